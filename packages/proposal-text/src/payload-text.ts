// What a proposal does, in words (decision F43): the one set of rules the web app (proposal page, list
// rows, result) and the bridge (activity items, emails) use, so a member reads the same sentence
// everywhere. Pure: the caller brings the context (names, prices, the rules in force) it has.
// A payload is the canister's (bigint) or the bridge's JSON of it (decimal strings, decision V12).
import {
  change,
  domAbout,
  domE8s,
  duration,
  listed,
  moment,
  percent,
  price,
  usd,
  whole,
  type Whole,
} from './format.ts';

export type Category =
  'General' | 'TreasuryPayout' | 'SetDomPrice' | 'MembershipPolicy' | 'ConstitutionalAmendment' | 'EmergencyAction';

/** The rules in force (GET /api/governance/settings, or the canister's get_settings in JSON form). */
export interface RulesNow {
  rules: { category: string; quorum_bps: number; threshold_bps: number; voting_window: Whole }[];
  voting_delay: Whole;
  execution_window: Whole;
}

export interface PayloadContext {
  /** principal → display name; a principal without one is shown as an account without a member name. */
  names?: Readonly<Record<string, string>>;
  /** The ratified DOM/USD price now, null when none was ratified. */
  ratified_price_usd?: number | null;
  /** The oracle's aggregate now, when the reader has it. */
  oracle_price_usd?: number | null;
  /** The rules in force now: an amendment's "before" while it has not executed (decision F44). */
  rules_now?: RulesNow | null;
  /** An executed amendment's rules just before it applied (the proposal's `rules_before`, decision G52): its "before". */
  rules_before?: RulesNow | null;
  /** The proposal's status: an executed proposal is told in the past tense. */
  status?: string;
  /** What the treasury paid for this proposal, e8s, once paid (the treasury's record). */
  paid_e8s?: Whole | null;
}

export interface PayloadLine {
  label: string;
  text: string;
}

/** `summary`: one sentence for a list row, an activity item, an email; `lines`: the page's and the result's detail. */
export interface PayloadText {
  summary: string;
  lines: PayloadLine[];
}

/** Human names of the categories (list filters and amendments say these, not the variant names). */
export const CATEGORY_LABEL: Record<Category, string> = {
  General: 'General',
  TreasuryPayout: 'Treasury payout',
  SetDomPrice: 'DOM price',
  MembershipPolicy: 'Membership policy',
  ConstitutionalAmendment: 'Constitutional amendment',
  EmergencyAction: 'Emergency action',
};

type Obj = Record<string, unknown>;
/** A category as a person reads it (decision F56): the label, or the text itself when it is no category. */
export const categoryLabel = (c: string): string => CATEGORY_LABEL[c as Category] ?? c;
const label = categoryLabel;

function nameOf(ctx: PayloadContext, principal: string): string {
  const n = ctx.names !== undefined && Object.hasOwn(ctx.names, principal) ? ctx.names[principal] : undefined;
  // Decision F45: a principal no member has named is shown by its first characters, never the word "principal".
  return n ?? `account ${principal.slice(0, 11)}…`;
}

/** Every principal a payload names (recipient, admins, revocations), for one look-up of display names. */
export function payloadPrincipals(payload: unknown): string[] {
  const p = (payload ?? {}) as Obj;
  const t = p.TreasuryPayout as { recipient?: string } | undefined;
  const m = p.MembershipPolicy as { add_admins?: string[]; remove_admins?: string[]; revoke?: string[] } | undefined;
  return [
    ...(t?.recipient ? [t.recipient] : []),
    ...(m?.add_admins ?? []),
    ...(m?.remove_admins ?? []),
    ...(m?.revoke ?? []),
  ];
}

function payout(
  t: { recipient: string; amount: { Usd?: number; DomE8s?: Whole }; memo?: string | null },
  ctx: PayloadContext,
): PayloadText {
  const who = nameOf(ctx, t.recipient);
  const rate = ctx.ratified_price_usd ?? null;
  const done = ctx.status === 'Executed';
  const lines: PayloadLine[] = [{ label: 'Recipient', text: who }];
  let amount: string;
  if (t.amount.Usd !== undefined) {
    const inDom = rate
      ? `${domAbout(t.amount.Usd / rate)} at the ratified price of ${price(rate)}`
      : 'no DOM price is ratified yet';
    amount = `${usd(t.amount.Usd)} (${rate ? domAbout(t.amount.Usd / rate) : 'in DOM at the ratified price'})`;
    lines.push({ label: 'Amount', text: usd(t.amount.Usd) });
    lines.push({ label: 'In DOM', text: `${inDom}; paid in DOM at the price ratified when it executes` });
  } else {
    const e8s = whole(t.amount.DomE8s ?? 0);
    const dom = Number(e8s) / 1e8;
    amount = `${domE8s(e8s)}${rate ? ` (about ${usd(dom * rate)})` : ''}`;
    lines.push({ label: 'Amount', text: domE8s(e8s) });
    lines.push({
      label: 'In USD',
      text: rate ? `about ${usd(dom * rate)} at the ratified price of ${price(rate)}` : 'no DOM price is ratified yet',
    });
  }
  if (ctx.paid_e8s !== undefined && ctx.paid_e8s !== null) lines.push({ label: 'Paid', text: domE8s(ctx.paid_e8s) });
  if (t.memo) lines.push({ label: 'Memo', text: t.memo });
  const summary =
    done && ctx.paid_e8s !== undefined && ctx.paid_e8s !== null
      ? `Paid ${who} ${domE8s(ctx.paid_e8s)} from the treasury`
      : `${done ? 'Paid' : 'Pays'} ${who} ${amount} from the treasury`;
  return { summary, lines };
}

function setPrice(
  s: { price_usd: number; effective_at?: Whole | null; expires_at?: Whole | null; source_url?: string | null },
  ctx: PayloadContext,
): PayloadText {
  const rate = ctx.ratified_price_usd ?? null;
  const done = ctx.status === 'Executed';
  const against = (n: number) => `${price(n)} per DOM (this proposal: ${change(s.price_usd, n)})`;
  const lines: PayloadLine[] = [{ label: 'Proposed price', text: `${price(s.price_usd)} per DOM` }];
  if (ctx.oracle_price_usd !== undefined)
    lines.push({
      label: 'Oracle price now',
      text: ctx.oracle_price_usd ? against(ctx.oracle_price_usd) : 'the oracle has no price now',
    });
  if (done && rate === s.price_usd)
    lines.push({ label: 'Ratified price now', text: `${price(rate)} per DOM: this proposal's` });
  else lines.push({ label: 'Ratified price now', text: rate ? against(rate) : 'none yet: this would be the first' });
  lines.push({
    label: 'In force from',
    text: s.effective_at ? moment(s.effective_at) : done ? 'when it executed' : 'when it executes',
  });
  if (s.expires_at) lines.push({ label: 'Valid until', text: moment(s.expires_at) });
  if (s.source_url) lines.push({ label: 'Source', text: s.source_url });
  const was = !done && rate ? ` (ratified now: ${price(rate)})` : '';
  return { summary: `${done ? 'Set' : 'Sets'} the DOM price to ${price(s.price_usd)}${was}`, lines };
}

function policy(
  m: { add_admins: string[]; remove_admins: string[]; revoke: string[] },
  ctx: PayloadContext,
): PayloadText {
  const done = ctx.status === 'Executed';
  const names = (ps: string[]) => ps.map((p) => nameOf(ctx, p));
  const lines: PayloadLine[] = [];
  const parts: string[] = [];
  // Decision F58: only what the payload says. The canister records no one's role before it applies a
  // change, so a "before" (admin → member) would be assumed, and false for someone who never held it.
  const each = (ps: string[], pending: string, executed: string) =>
    names(ps)
      .map((n) => `${n}: ${done ? executed : pending}`)
      .join('; ');
  if (m.add_admins.length) {
    lines.push({ label: 'Admins added', text: each(m.add_admins, 'to be made admin', 'made admin') });
    parts.push(`${done ? 'made' : 'makes'} ${listed(names(m.add_admins))} admin${m.add_admins.length > 1 ? 's' : ''}`);
  }
  if (m.remove_admins.length) {
    lines.push({ label: 'Admins removed', text: each(m.remove_admins, 'to be removed as admin', 'removed as admin') });
    parts.push(`${done ? 'removed' : 'removes'} ${listed(names(m.remove_admins))} as admin`);
  }
  if (m.revoke.length) {
    lines.push({
      label: 'Memberships revoked',
      text: each(m.revoke, 'membership to be revoked', 'membership revoked'),
    });
    parts.push(`${done ? 'revoked' : 'revokes'} the membership of ${listed(names(m.revoke))}`);
  }
  const s = parts.join('; ');
  return { summary: s.charAt(0).toUpperCase() + s.slice(1), lines };
}

type RuleChange = {
  category: string;
  quorum_bps?: number | null;
  threshold_bps?: number | null;
  voting_window?: Whole | null;
};

function amendment(
  a: { category_rules: RuleChange[]; voting_delay?: Whole | null; execution_window?: Whole | null },
  ctx: PayloadContext,
): PayloadText {
  // Decision F44: "before" is the rule in force now while the amendment waits; decision G52: once
  // executed, the rules the canister recorded just before it applied them (an older record has none,
  // and the result then says what it set).
  const before = ctx.status === 'Executed' ? (ctx.rules_before ?? null) : (ctx.rules_now ?? null);
  const arrow = (from: string | undefined, to: string) =>
    from === undefined ? `set to ${to}` : from === to ? `${to} (unchanged)` : `${from} → ${to}`;
  const lines: PayloadLine[] = [];
  for (const r of a.category_rules) {
    const now = before?.rules.find((x) => x.category === r.category);
    if (r.quorum_bps != null)
      lines.push({
        label: `${label(r.category)}: quorum`,
        text: arrow(now && percent(now.quorum_bps), percent(r.quorum_bps)),
      });
    if (r.threshold_bps != null)
      lines.push({
        label: `${label(r.category)}: Yes needed`,
        text: arrow(now && percent(now.threshold_bps), percent(r.threshold_bps)),
      });
    if (r.voting_window != null)
      lines.push({
        label: `${label(r.category)}: voting period`,
        text: arrow(now && duration(now.voting_window), duration(r.voting_window)),
      });
  }
  if (a.voting_delay != null)
    lines.push({
      label: 'Review time before voting',
      text: arrow(before ? duration(before.voting_delay) : undefined, duration(a.voting_delay)),
    });
  if (a.execution_window != null)
    lines.push({
      label: 'Time to execute an approved proposal',
      text: arrow(before ? duration(before.execution_window) : undefined, duration(a.execution_window)),
    });
  const shown = lines.map((l) => `${l.label.replace(': ', ' ')} ${l.text}`);
  const verb = ctx.status === 'Executed' ? 'Changed' : 'Changes';
  return { summary: `${verb} the rules: ${listed(shown, 2)}`, lines };
}

function actionText(payload: Obj, ctx: PayloadContext): PayloadText | undefined {
  if (payload.TreasuryPayout) return payout(payload.TreasuryPayout as Parameters<typeof payout>[0], ctx);
  if (payload.SetDomPrice) return setPrice(payload.SetDomPrice as Parameters<typeof setPrice>[0], ctx);
  if (payload.MembershipPolicy) return policy(payload.MembershipPolicy as Parameters<typeof policy>[0], ctx);
  if (payload.ConstitutionalAmendment)
    return amendment(payload.ConstitutionalAmendment as Parameters<typeof amendment>[0], ctx);
  return undefined;
}

const NOTHING = 'Nothing is executed automatically: approved, it stands as the members’ decision';

/** What the proposal does, as one sentence and as detail lines (decision F43). */
export function describePayload(category: string, payload: unknown, ctx: PayloadContext = {}): PayloadText {
  const p = payload && typeof payload === 'object' ? (payload as Obj) : undefined;
  const action = p ? actionText(p, ctx) : undefined;
  if (category === 'EmergencyAction') {
    // Decision F46: an emergency action opens at once and runs 24 hours; with a payload, it does that payload.
    const track = {
      label: 'Emergency',
      text: 'Voting opens at once and runs 24 hours; it needs 80 % Yes of a 5 % quorum',
    };
    const window = ctx.rules_now?.rules.find((r) => r.category === 'EmergencyAction');
    if (window)
      track.text = `Voting opens at once and runs ${duration(window.voting_window)}; it needs ${percent(window.threshold_bps)} Yes of a ${percent(window.quorum_bps)} quorum`;
    if (action)
      return {
        summary: `Emergency: ${action.summary.charAt(0).toLowerCase()}${action.summary.slice(1)}`,
        lines: [track, ...action.lines],
      };
    return {
      summary: `An emergency decision on the fast track; nothing is executed automatically`,
      lines: [track, { label: 'Action', text: NOTHING }],
    };
  }
  if (action) return action;
  return {
    summary: 'A decision of the members; nothing is executed automatically',
    lines: [{ label: 'Action', text: NOTHING }],
  };
}
