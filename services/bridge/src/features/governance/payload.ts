// Decision V13: POST /api/governance/propose's `payload` per category, checked field by field and
// turned into the canister's payload. Times are Unix seconds in JSON (as the price endpoint's
// `timestamp`) and nanoseconds on the canister; DOM amounts are decimal strings of e8s.
import { isSourceUrl, PROPOSAL_CATEGORIES, SOURCE_URL_RULE, type ProposalCategory } from '@domdao/canister-kit/rules';
import { Type } from '@sinclair/typebox';
import { HttpError } from '../../core/http/errors.ts';

/** Spec 1's categories: the governance canister's list (decision S17). */
export const CATEGORIES = PROPOSAL_CATEGORIES;
export type Category = ProposalCategory;
/** A principal's text form: base32 groups of five joined by dashes (at most 63 characters). */
export const Principal = Type.String({
  pattern: '^[a-z0-9]{1,5}(-[a-z0-9]{1,5}){0,10}$',
  maxLength: 63,
  description: 'principal (text)',
});

const NS = 1_000_000_000n;
const PRINCIPAL = /^[a-z0-9]{5}(-[a-z0-9]{1,5})*$/;

type Obj = Record<string, unknown>;
const bad = (field: string, what: string) => new HttpError(400, 'VALIDATION_ERROR', `payload.${field}: ${what}`);

function only(p: Obj, allowed: string[]) {
  for (const k of Object.keys(p))
    if (!allowed.includes(k))
      throw bad(k, `unknown field for this category (allowed: ${allowed.join(', ') || 'none'})`);
}
function seconds(p: Obj, field: string): bigint | undefined {
  const v = p[field];
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0)
    throw bad(field, 'Unix seconds, a non-negative integer');
  return BigInt(v) * NS;
}
function principals(p: Obj, field: string): string[] {
  const v = p[field] ?? [];
  if (!Array.isArray(v) || v.length > 100 || !v.every((x) => typeof x === 'string' && PRINCIPAL.test(x)))
    throw bad(field, 'a list of at most 100 principals (text form)');
  return v as string[];
}
function bps(v: unknown, field: string): number | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > 10_000)
    throw bad(field, 'basis points, an integer 0..10000');
  return v;
}

/** The canister payload for `category`, or undefined when the category takes none. */
export function canisterPayload(category: Category, raw: unknown): unknown {
  const p = (raw ?? {}) as Obj;
  if (typeof p !== 'object' || Array.isArray(p)) throw bad('', 'an object');
  switch (category) {
    case 'General':
    case 'EmergencyAction':
      only(p, []);
      return undefined;
    case 'SetDomPrice': {
      only(p, ['price_usd', 'source_url', 'effective_at', 'expires_at']);
      if (typeof p.price_usd !== 'number' || !Number.isFinite(p.price_usd) || p.price_usd <= 0)
        throw bad('price_usd', 'a number > 0');
      // Decision G22: the canister's own rule, so the bridge never lets through what the canister refuses.
      if (p.source_url !== undefined && !isSourceUrl(p.source_url)) throw bad('source_url', SOURCE_URL_RULE);
      const effective_at = seconds(p, 'effective_at');
      const expires_at = seconds(p, 'expires_at');
      return {
        SetDomPrice: {
          price_usd: p.price_usd,
          ...(p.source_url !== undefined && { source_url: p.source_url }),
          ...(effective_at !== undefined && { effective_at }),
          ...(expires_at !== undefined && { expires_at }),
        },
      };
    }
    case 'TreasuryPayout': {
      only(p, ['recipient', 'amount', 'memo']);
      if (typeof p.recipient !== 'string' || !PRINCIPAL.test(p.recipient))
        throw bad('recipient', 'a principal (text form)');
      const a = p.amount as Obj | undefined;
      let amount: unknown;
      if (
        a &&
        typeof a === 'object' &&
        typeof a.usd === 'number' &&
        Object.keys(a).length === 1 &&
        Number.isFinite(a.usd) &&
        a.usd > 0
      )
        amount = { Usd: a.usd };
      else if (
        a &&
        typeof a === 'object' &&
        typeof a.dom_e8s === 'string' &&
        Object.keys(a).length === 1 &&
        /^[1-9][0-9]{0,30}$/.test(a.dom_e8s)
      )
        amount = { DomE8s: BigInt(a.dom_e8s) };
      else throw bad('amount', '{"usd": number > 0} or {"dom_e8s": "<positive integer>"}');
      if (p.memo !== undefined && (typeof p.memo !== 'string' || p.memo.length > 500))
        throw bad('memo', 'text of at most 500 characters');
      return { TreasuryPayout: { recipient: p.recipient, amount, ...(p.memo !== undefined && { memo: p.memo }) } };
    }
    case 'MembershipPolicy':
      only(p, ['add_admins', 'remove_admins', 'revoke']);
      return {
        MembershipPolicy: {
          add_admins: principals(p, 'add_admins'),
          remove_admins: principals(p, 'remove_admins'),
          revoke: principals(p, 'revoke'),
        },
      };
    case 'ConstitutionalAmendment': {
      only(p, ['category_rules', 'voting_delay', 'execution_window']);
      const rules = p.category_rules ?? [];
      if (!Array.isArray(rules) || rules.length > CATEGORIES.length)
        throw bad('category_rules', `a list of at most ${CATEGORIES.length} changes`);
      const category_rules = rules.map((r: Obj, i) => {
        if (!r || typeof r !== 'object') throw bad(`category_rules[${i}]`, 'an object');
        only(r, ['category', 'quorum_bps', 'threshold_bps', 'voting_window']);
        if (!CATEGORIES.includes(r.category as Category))
          throw bad(`category_rules[${i}].category`, `one of ${CATEGORIES.join(', ')}`);
        const quorum_bps = bps(r.quorum_bps, `category_rules[${i}].quorum_bps`);
        const threshold_bps = bps(r.threshold_bps, `category_rules[${i}].threshold_bps`);
        const voting_window = seconds(r, 'voting_window');
        return {
          category: r.category,
          ...(quorum_bps !== undefined && { quorum_bps }),
          ...(threshold_bps !== undefined && { threshold_bps }),
          ...(voting_window !== undefined && { voting_window }),
        };
      });
      const voting_delay = seconds(p, 'voting_delay');
      const execution_window = seconds(p, 'execution_window');
      return {
        ConstitutionalAmendment: {
          category_rules,
          ...(voting_delay !== undefined && { voting_delay }),
          ...(execution_window !== undefined && { execution_window }),
        },
      };
    }
  }
}
