// Forms for the payloads that used to be raw JSON (decision F27): members are chosen by searching their
// display names (GET /api/members), never typed as principals; the constitution's numbers are entered in
// the units people use (percent, hours, days) and sent in the API's (basis points, seconds).
import { categoryLabel } from '@domdao/proposal-text';
import { useEffect, useState } from 'preact/hooks';
import { api, ApiError, type Answer } from '../api.ts';

export type Member = Answer<'searchMembers'>['items'][number];

/** A search box that offers members by name; `onPick` receives the chosen one. */
export function MemberPicker({ id, label, onPick }: { id: string; label: string; onPick(m: Member): void }) {
  const [q, setQ] = useState('');
  const [found, setFound] = useState<Member[]>([]);
  const [note, setNote] = useState('');
  useEffect(() => {
    const text = q.trim();
    if (text.length < 2) {
      setFound([]);
      setNote(text ? 'Type at least 2 letters of a name.' : '');
      return;
    }
    // A slower earlier answer must not overwrite a later one: only the newest query's answer is shown.
    let live = true;
    // Asked once the member pauses typing, not on every key.
    const t = setTimeout(() => {
      api<Answer<'searchMembers'>>(`/api/members?q=${encodeURIComponent(text)}&limit=8`).then(
        (r) => {
          if (!live) return;
          setFound(r.items);
          setNote(
            r.items.length
              ? `${r.items.length} member${r.items.length === 1 ? '' : 's'} found.`
              : 'No member has a name like that.',
          );
        },
        (err: unknown) => live && setNote(err instanceof ApiError ? err.message : String(err)),
      );
    }, 250);
    return () => {
      live = false;
      clearTimeout(t);
    };
  }, [q]);
  return (
    <div class="picker">
      <label for={id}>{label}</label>
      <input
        id={id}
        type="search"
        autoComplete="off"
        placeholder="Search members by name"
        value={q}
        onInput={(e) => setQ(e.currentTarget.value)}
      />
      <p class="hint" role="status">
        {note}
      </p>
      {found.length ? (
        <ul class="plain picks">
          {found.map((m) => (
            <li key={m.principal}>
              <button
                type="button"
                class="secondary"
                onClick={() => {
                  onPick(m);
                  setQ('');
                }}
              >
                {/* The principal's start beside the name tells two members with names alike apart (F27). */}
                <bdi>{m.display_name}</bdi> <span class="muted">{m.principal.slice(0, 11)}…</span>
              </button>
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

/** Chosen members, each removable. */
export function Chosen({ members, onRemove, empty }: { members: Member[]; onRemove(p: string): void; empty: string }) {
  if (!members.length) return <p class="muted">{empty}</p>;
  return (
    <ul class="plain">
      {members.map((m) => (
        <li key={m.principal}>
          <strong>
            <bdi>{m.display_name}</bdi>
          </strong>{' '}
          <span class="muted">{m.principal}</span>{' '}
          <button
            type="button"
            class="link"
            onClick={() => onRemove(m.principal)}
            aria-label={`Remove ${m.display_name}`}
          >
            Remove
          </button>
        </li>
      ))}
    </ul>
  );
}

export interface Policy {
  add_admins: Member[];
  remove_admins: Member[];
  revoke: Member[];
}
export const emptyPolicy = (): Policy => ({ add_admins: [], remove_admins: [], revoke: [] });
export const policyPayload = (p: Policy) => ({
  add_admins: p.add_admins.map((m) => m.principal),
  remove_admins: p.remove_admins.map((m) => m.principal),
  revoke: p.revoke.map((m) => m.principal),
});

const POLICY_PARTS: Array<[keyof Policy, string, string]> = [
  ['add_admins', 'Make governance admins', 'No one added.'],
  ['remove_admins', 'Remove as governance admins', 'No one removed.'],
  ['revoke', 'Revoke membership', 'No membership revoked.'],
];

export function PolicyForm({ value, onChange }: { value: Policy; onChange(p: Policy): void }) {
  return (
    <fieldset class="payload">
      <legend>Membership policy</legend>
      {POLICY_PARTS.map(([key, label, empty]) => (
        <div key={key}>
          <MemberPicker
            id={`p-${key}`}
            label={label}
            // A member already in the list is not added again: each is named once in the proposal.
            onPick={(m) =>
              value[key].every((x) => x.principal !== m.principal) && onChange({ ...value, [key]: [...value[key], m] })
            }
          />
          <Chosen
            members={value[key]}
            empty={empty}
            onRemove={(p) => onChange({ ...value, [key]: value[key].filter((x) => x.principal !== p) })}
          />
        </div>
      ))}
    </fieldset>
  );
}

export interface Amendment {
  category: string;
  quorum_pct: string;
  threshold_pct: string;
  window_days: string;
  delay_hours: string;
  execution_days: string;
}
export const emptyAmendment = (category: string): Amendment => ({
  category,
  quorum_pct: '',
  threshold_pct: '',
  window_days: '',
  delay_hours: '',
  execution_days: '',
});

/** The API's ConstitutionalAmendment payload, or why the form is not complete. */
export function amendmentPayload(a: Amendment): { payload: Record<string, unknown> } | { problem: string } {
  // An empty field is left out of the payload, which keeps today's rule for it (F27).
  const num = (s: string) => (s.trim() === '' ? undefined : Number(s));
  const rule: Record<string, unknown> = { category: a.category };
  const q = num(a.quorum_pct);
  const t = num(a.threshold_pct);
  const w = num(a.window_days);
  if (q !== undefined) rule.quorum_bps = Math.round(q * 100);
  if (t !== undefined) rule.threshold_bps = Math.round(t * 100);
  if (w !== undefined) rule.voting_window = Math.round(w * 86_400);
  const payload: Record<string, unknown> = {};
  // `category` alone changes nothing: a rule is sent only with at least one number in it.
  if (Object.keys(rule).length > 1) payload.category_rules = [rule];
  const d = num(a.delay_hours);
  const x = num(a.execution_days);
  if (d !== undefined) payload.voting_delay = Math.round(d * 3_600);
  if (x !== undefined) payload.execution_window = Math.round(x * 86_400);
  if ([q, t, w, d, x].some((v) => v !== undefined && !Number.isFinite(v))) return { problem: 'Enter numbers only.' };
  if (!Object.keys(payload).length) return { problem: 'Change at least one rule.' };
  return { payload };
}

export function AmendmentForm({
  value,
  onChange,
  categories,
}: {
  value: Amendment;
  onChange(a: Amendment): void;
  categories: readonly string[];
}) {
  const field = (key: keyof Amendment, label: string, hint: string) => (
    <label>
      {label}
      <input
        inputMode="decimal"
        value={value[key]}
        placeholder={hint}
        onInput={(e) => onChange({ ...value, [key]: e.currentTarget.value })}
      />
    </label>
  );
  return (
    <fieldset class="payload">
      <legend>Constitutional amendment (leave a field empty to keep today's rule)</legend>
      <label>
        Rules of the category
        <select value={value.category} onChange={(e) => onChange({ ...value, category: e.currentTarget.value })}>
          {categories.map((c) => (
            <option key={c} value={c}>
              {categoryLabel(c)}
            </option>
          ))}
        </select>
      </label>
      <div class="filters">
        {field('quorum_pct', 'Quorum (% of members)', 'e.g. 20')}
        {field('threshold_pct', 'Pass threshold (% yes)', 'e.g. 60')}
        {field('window_days', 'Voting window (days)', 'e.g. 7')}
      </div>
      <div class="filters">
        {field('delay_hours', 'Voting delay, all proposals (hours)', 'e.g. 1')}
        {field('execution_days', 'Execution window (days)', 'e.g. 3')}
      </div>
    </fieldset>
  );
}
