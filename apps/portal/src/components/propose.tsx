// A proposal form per category (spec 1 payloads as the bridge takes them), with the AI drafting
// helper when the bridge has an inference server (a draft is a starting point the member edits).
import { categoryLabel } from '@domdao/proposal-text';
import { useState } from 'preact/hooks';
import { PROPOSAL_CATEGORIES } from '@domdao/canister-kit/rules';
import { api, ApiError, toE8s, useApi, handler, type Answer } from '../api.ts';
import {
  AmendmentForm,
  amendmentPayload,
  emptyAmendment,
  emptyPolicy,
  MemberPicker,
  PolicyForm,
  policyPayload,
  type Member,
} from './payload-forms.tsx';

/** Spec 1's categories in the governance canister's order (decision S17): one list, in @domdao/canister-kit/rules. */
export const CATEGORIES = PROPOSAL_CATEGORIES;

export function ProposeForm({ onCreated }: { onCreated(id: string): void }) {
  const ai = useApi<Answer<'getAiHealth'>>('/api/ai/health');
  const [category, setCategory] = useState<(typeof CATEGORIES)[number]>('General');
  const [title, setTitle] = useState('');
  const [body, setBody] = useState('');
  const [price, setPrice] = useState('');
  const [sourceUrl, setSourceUrl] = useState('');
  const [recipient, setRecipient] = useState<Member | null>(null);
  const [amount, setAmount] = useState('');
  const [unit, setUnit] = useState<'usd' | 'dom'>('usd');
  const [memo, setMemo] = useState('');
  const [policy, setPolicy] = useState(emptyPolicy());
  const [amendment, setAmendment] = useState(emptyAmendment('General'));
  const [intent, setIntent] = useState('');
  const [msg, setMsg] = useState('');
  const [busy, setBusy] = useState(false);

  // The payload the bridge takes for the category (spec 1), or undefined for General; a throw is a
  // problem the member fixes in the form, said before anything is sent.
  const payload = (): unknown => {
    if (category === 'SetDomPrice')
      return { price_usd: Number(price), ...(sourceUrl.trim() && { source_url: sourceUrl.trim() }) };
    if (category === 'TreasuryPayout') {
      // A USD amount is paid at the ratified price when the proposal executes, not at today's.
      const a = unit === 'usd' ? { usd: Number(amount) } : { dom_e8s: toE8s(amount) ?? '0' };
      if (!recipient) throw new Error('Choose the member to pay.');
      return { recipient: recipient.principal, amount: a, ...(memo.trim() && { memo: memo.trim() }) };
    }
    if (category === 'MembershipPolicy') {
      const p = policyPayload(policy);
      if (!p.add_admins.length && !p.remove_admins.length && !p.revoke.length)
        throw new Error('Choose at least one member.');
      return p;
    }
    if (category === 'ConstitutionalAmendment') {
      const r = amendmentPayload(amendment);
      if ('problem' in r) throw new Error(r.problem);
      return r.payload;
    }
    return undefined;
  };

  return (
    <form
      id="propose"
      class="card"
      onSubmit={handler(async (e) => {
        e.preventDefault();
        setMsg('');
        let p: unknown;
        try {
          p = payload();
        } catch (err) {
          return setMsg(err instanceof Error ? err.message : String(err));
        }
        setBusy(true);
        try {
          const r = await api<Answer<'createProposal'>>('/api/governance/propose', {
            method: 'POST',
            body: { title, body, category, ...(p !== undefined && { payload: p }) },
          });
          onCreated(r.proposal_id);
        } catch (err) {
          setMsg(err instanceof ApiError ? err.message : String(err));
        } finally {
          setBusy(false);
        }
      })}
    >
      <h2>New proposal</h2>
      <label for="p-category">Category</label>
      <select
        id="p-category"
        value={category}
        onChange={(e) => setCategory(e.currentTarget.value as (typeof CATEGORIES)[number])}
      >
        {CATEGORIES.map((c) => (
          <option key={c} value={c}>
            {categoryLabel(c)}
          </option>
        ))}
      </select>
      {/* Only when the bridge's inference server answers: no button that can only fail. */}
      {ai.data?.status === 'ok' ? (
        <div class="note">
          <label for="p-intent">Describe what you want; AI drafts a title and text for you to edit</label>
          <input id="p-intent" value={intent} onInput={(e) => setIntent(e.currentTarget.value)} />
          <button
            type="button"
            class="secondary"
            disabled={busy || !intent.trim()}
            onClick={handler(async () => {
              setMsg('');
              setBusy(true);
              try {
                const d = await api<Answer<'draftProposal'>>('/api/ai/draft', {
                  method: 'POST',
                  body: { intent: intent.trim(), category },
                });
                setTitle(d.draft.title);
                setBody(d.draft.body);
              } catch (err) {
                setMsg(err instanceof ApiError ? `No draft: ${err.message}` : String(err));
              } finally {
                setBusy(false);
              }
            })}
          >
            Draft with AI
          </button>
        </div>
      ) : null}
      <label for="p-title">Title</label>
      <input id="p-title" required maxLength={200} value={title} onInput={(e) => setTitle(e.currentTarget.value)} />
      <label for="p-body">Text (Markdown)</label>
      <textarea
        id="p-body"
        required
        rows={8}
        maxLength={50000}
        value={body}
        onInput={(e) => setBody(e.currentTarget.value)}
      />
      {category === 'SetDomPrice' ? (
        <div class="filters">
          <label>
            Price (USD per DOM)
            <input
              id="p-price"
              inputMode="decimal"
              required
              value={price}
              onInput={(e) => setPrice(e.currentTarget.value)}
            />
          </label>
          <label class="grow">
            Source URL (https, optional)
            <input type="url" value={sourceUrl} onInput={(e) => setSourceUrl(e.currentTarget.value)} />
          </label>
        </div>
      ) : null}
      {category === 'TreasuryPayout' ? (
        <div class="filters">
          <div class="grow">
            <MemberPicker id="p-recipient" label="Pay to (search members by name)" onPick={setRecipient} />
            <p id="p-recipient-chosen">
              {recipient ? (
                <>
                  Paying{' '}
                  <strong>
                    <bdi>{recipient.display_name}</bdi>
                  </strong>{' '}
                  {/* The principal beside the name: money goes to an account, and two names may look alike (F27). */}
                  <span class="muted">{recipient.principal}</span>
                </>
              ) : (
                <span class="muted">No member chosen yet.</span>
              )}
            </p>
          </div>
          <label>
            Amount
            <input
              id="p-amount"
              inputMode="decimal"
              required
              value={amount}
              onInput={(e) => setAmount(e.currentTarget.value)}
            />
          </label>
          <label>
            In
            <select id="p-unit" value={unit} onChange={(e) => setUnit(e.currentTarget.value as 'usd' | 'dom')}>
              <option value="usd">USD</option>
              <option value="dom">DOM</option>
            </select>
          </label>
          <label class="grow">
            Memo (optional)
            <input value={memo} onInput={(e) => setMemo(e.currentTarget.value)} />
          </label>
        </div>
      ) : null}
      {category === 'MembershipPolicy' ? <PolicyForm value={policy} onChange={setPolicy} /> : null}
      {category === 'ConstitutionalAmendment' ? (
        <AmendmentForm value={amendment} onChange={setAmendment} categories={CATEGORIES} />
      ) : null}
      <p class="error" role="alert">
        {msg}
      </p>
      <button type="submit" disabled={busy}>
        Submit proposal
      </button>
    </form>
  );
}
