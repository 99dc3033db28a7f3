// The wallet (decisions F29, F30): the member's DOM balance and ICRC-1 account (copyable), sending DOM
// to another member found by name (amount, the ledger's fee, a confirmation step, the result), the
// history from the ledger's blocks (GET /api/me/transactions, decision B76), and in development the
// faucet. A transfer carries one Idempotency-Key from the confirmation on, so trying again after a lost
// answer can never send twice (decision B75).
import { useCallback, useEffect, useState } from 'preact/hooks';
import { api, ApiError, dom, handler, toE8s, useApi, waitText, type Answer, type Loaded } from '../api.ts';
import { localTime } from '../time.tsx';
import { useSession } from '../session.tsx';
import { MemberPicker, type Member } from '../components/payload-forms.tsx';

type Balance = Answer<'getMyBalance'>;
type History = Answer<'listMyTransactions'>;
type Item = History['items'][number];
type Sent = Answer<'sendDom'>;

export function WalletPage() {
  const { session, signInUrl } = useSession();
  const balance = useApi<Balance>(session ? '/api/me/balance' : null);
  const history = useHistory(!!session);
  if (session === undefined) return <p aria-busy="true">Loading…</p>;
  if (!session)
    return (
      <section class="card">
        <h1>Wallet</h1>
        <p>
          <a href={signInUrl()}>Sign in</a> to see your DOM and send it to other members.
        </p>
      </section>
    );
  const changed = () => {
    balance.reload();
    history.reload();
  };
  return (
    <>
      <h1>Wallet</h1>
      <div class="grid">
        <AccountCard balance={balance} onChange={changed} />
        <SendCard balance={balance.data} onSent={changed} />
      </div>
      <HistoryCard history={history} />
    </>
  );
}

function AccountCard({ balance, onChange }: { balance: Loaded<Balance>; onChange(): void }) {
  const [msg, setMsg] = useState('');
  /** Decision B107: the day's grants are taken; the button waits until the bridge's Retry-After has passed. */
  const [faucetUntil, setFaucetUntil] = useState(0);
  const [copied, setCopied] = useState('');
  if (!balance.data)
    return (
      <section class="card">
        {balance.error ? <p class="error">{balance.error.message}</p> : <p aria-busy="true">…</p>}
      </section>
    );
  const d = balance.data;
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(d.account_text);
      setCopied('Copied: your account is on the clipboard.');
    } catch {
      // Without clipboard access (an insecure page, a refused permission) the text is selected for Ctrl+C.
      const code = document.getElementById('account');
      if (code) window.getSelection()?.selectAllChildren(code);
      setCopied('Selected: press Ctrl+C (⌘C) to copy it.');
    }
  };
  return (
    <section class="card" aria-labelledby="balance-h">
      <h2 id="balance-h">Balance</h2>
      <p class="big">{dom(d.balance_e8s)} DOM</p>
      <p class="muted">Each transfer costs the ledger's fee of {dom(d.fee_e8s)} DOM.</p>
      <p id="account-label" class="label">
        Your DOM account, to receive DOM
      </p>
      <div class="copy account">
        <code id="account" aria-labelledby="account-label">
          {d.account_text}
        </code>
        <button type="button" class="secondary" aria-describedby="account-label" onClick={handler(copy)}>
          {copied.startsWith('Copied') ? 'Copied' : 'Copy'}
        </button>
      </div>
      <p id="copy-status" class="hint" role="status">
        {copied}
      </p>
      {d.faucet_e8s !== null ? (
        <>
          <button
            type="button"
            disabled={faucetUntil > Date.now()}
            onClick={handler(async () => {
              setMsg('');
              try {
                const r = await api<Answer<'mintDevelopmentDom'>>('/api/dev/faucet', { method: 'POST', body: {} });
                setMsg(`${dom(r.amount_e8s)} test DOM added.`);
                onChange();
              } catch (err) {
                if (err instanceof ApiError && err.code === 'RATE_LIMITED') {
                  const wait = err.retryAfter ?? 3600;
                  setFaucetUntil(Date.now() + wait * 1000);
                  setMsg(
                    `You have had today's test DOM (${d.faucet_per_day ?? 'a few'} times a day). Try again in ${waitText(wait)}.`,
                  );
                } else setMsg(err instanceof ApiError ? err.message : String(err));
              }
            })}
          >
            Get test DOM
          </button>
          <p class="hint">
            Development only: test DOM has no value and does not exist in production.
            {d.faucet_per_day ? ` Up to ${d.faucet_per_day} times a day.` : ''}
          </p>
        </>
      ) : null}
      <p role="status">{msg}</p>
    </section>
  );
}

type Step =
  | { at: 'edit'; error?: string }
  | { at: 'confirm'; to: Member; amount: string; fee: string; key: string; error?: string; sending?: boolean }
  | { at: 'done'; sent: Sent };

/** Decision F30: choose a member, enter an amount, review it with the fee, confirm, see the result. */
function SendCard({ balance, onSent }: { balance: Balance | undefined; onSent(): void }) {
  const [to, setTo] = useState<Member | null>(null);
  const [amount, setAmount] = useState('');
  const [step, setStep] = useState<Step>({ at: 'edit' });
  if (!balance) return <section class="card" aria-labelledby="send-h" />;
  const fee = BigInt(balance.fee_e8s);
  const have = BigInt(balance.balance_e8s);
  // "Max": the ledger takes the fee from the sender's balance too (decision F30).
  const max = have > fee ? have - fee : 0n;

  const review = (e: Event) => {
    e.preventDefault();
    if (!to) return setStep({ at: 'edit', error: 'Choose the member to send to.' });
    if (to.principal === balance.account.owner)
      return setStep({ at: 'edit', error: 'That is you: choose another member.' });
    const e8s = toE8s(amount);
    if (!e8s) return setStep({ at: 'edit', error: 'Enter an amount above 0 DOM with at most 8 decimals.' });
    if (BigInt(e8s) + fee > have)
      return setStep({
        at: 'edit',
        error: `The amount plus the fee is more than your balance: at most ${dom(max)} DOM.`,
      });
    // Decision F30: the key is made once, as the confirmation opens; every "Try again" sends the same one.
    setStep({ at: 'confirm', to, amount: e8s, fee: balance.fee_e8s, key: `web-${crypto.randomUUID()}` });
  };

  const send = async (s: Extract<Step, { at: 'confirm' }>) => {
    setStep({ ...s, sending: true, error: undefined });
    try {
      const sent = await api<Sent>('/api/me/transfers', {
        method: 'POST',
        // The fee the member saw: one that changed meanwhile is refused (409 BadFee), never charged unseen.
        body: { to: s.to.principal, amount_e8s: s.amount, fee_e8s: s.fee },
        headers: { 'idempotency-key': s.key },
      });
      setStep({ at: 'done', sent });
      setAmount('');
      setTo(null);
      onSent();
    } catch (err) {
      if (err instanceof ApiError && err.status >= 400 && err.status < 500) {
        // A refusal: nothing was sent. Back to the form with the reason (a fee that changed is shown anew).
        setStep({ at: 'edit', error: err.message });
        onSent();
      } else {
        // No answer, or the ledger failed: trying again with the same key cannot send twice.
        setStep({
          ...s,
          sending: false,
          error: `${err instanceof ApiError ? err.message : String(err)} Trying again is safe: it cannot send twice.`,
        });
      }
    }
  };

  return (
    <section class="card" aria-labelledby="send-h">
      <h2 id="send-h">Send DOM</h2>
      {step.at === 'edit' ? (
        <form onSubmit={review} noValidate>
          {to ? (
            <p>
              To{' '}
              <strong>
                <bdi>{to.display_name}</bdi>
              </strong>{' '}
              <span class="muted">{short(to.principal)}</span>{' '}
              <button type="button" class="link" onClick={() => setTo(null)}>
                Change
              </button>
            </p>
          ) : (
            <MemberPicker id="send-to" label="To (search members by name)" onPick={setTo} />
          )}
          <label for="send-amount">Amount in DOM</label>
          <div class="copy">
            <input
              id="send-amount"
              inputMode="decimal"
              autoComplete="off"
              value={amount}
              onInput={(e) => setAmount(e.currentTarget.value)}
              aria-describedby="send-hint send-error"
            />
            <button
              type="button"
              class="secondary"
              onClick={() => setAmount(dom(max).replace(/,/g, ''))}
              disabled={max === 0n}
            >
              Max
            </button>
          </div>
          <p id="send-hint" class="hint">
            Fee {dom(fee)} DOM · you have {dom(have)} DOM · up to 8 decimals
          </p>
          <p id="send-error" class="error" role="alert">
            {step.error ?? ''}
          </p>
          <button type="submit">Review</button>
        </form>
      ) : step.at === 'confirm' ? (
        <div role="group" aria-labelledby="confirm-h">
          <h3 id="confirm-h">Check and confirm</h3>
          <dl class="summary">
            <dt>To</dt>
            <dd>
              <bdi>{step.to.display_name}</bdi> <span class="muted">{short(step.to.principal)}</span>
            </dd>
            <dt>Amount</dt>
            <dd>{dom(step.amount)} DOM</dd>
            <dt>Ledger fee</dt>
            <dd>{dom(step.fee)} DOM</dd>
            <dt>Total</dt>
            <dd>
              <strong>{dom(BigInt(step.amount) + BigInt(step.fee))} DOM</strong>
            </dd>
            <dt>Balance after</dt>
            <dd>{dom(have - BigInt(step.amount) - BigInt(step.fee))} DOM</dd>
          </dl>
          <p class="error" role="alert">
            {step.error ?? ''}
          </p>
          <div class="actions">
            <button type="button" disabled={step.sending} onClick={handler(() => send(step))}>
              {step.sending ? 'Sending…' : step.error ? 'Try again' : 'Confirm and send'}
            </button>
            <button type="button" class="secondary" disabled={step.sending} onClick={() => setStep({ at: 'edit' })}>
              Back
            </button>
          </div>
        </div>
      ) : (
        <div>
          <p role="status" class="result">
            {step.sent.state === 'done'
              ? `Sent ${dom(step.sent.amount_e8s)} DOM to ${step.sent.to_name ?? short(step.sent.to)} (ledger block #${step.sent.block_index}).`
              : `Your transfer of ${dom(step.sent.amount_e8s)} DOM to ${step.sent.to_name ?? short(step.sent.to)} is recorded; the ledger has not answered yet. It completes on its own and shows as pending in your history until then.`}
          </p>
          <button type="button" class="secondary" onClick={() => setStep({ at: 'edit' })}>
            Send more
          </button>
        </div>
      )}
    </section>
  );
}

const short = (principal: string) =>
  principal.length > 17 ? `${principal.slice(0, 11)}…${principal.slice(-5)}` : principal;

/** The member's history, page by page (newest first); `reload` starts again from the newest. */
function useHistory(enabled: boolean) {
  const [pages, setPages] = useState<History[]>([]);
  const [error, setError] = useState<ApiError | undefined>();
  const [loading, setLoading] = useState(false);
  const [n, setN] = useState(0);
  const load = useCallback(async (before: string | null, reset: boolean) => {
    setLoading(true);
    try {
      const page = await api<History>(`/api/me/transactions?limit=20${before ? `&before=${before}` : ''}`);
      setPages((p) => (reset ? [page] : [...p, page]));
      setError(undefined);
    } catch (err) {
      setError(err instanceof ApiError ? err : new ApiError(0, 'ERROR', String(err)));
    } finally {
      setLoading(false);
    }
  }, []);
  useEffect(() => {
    if (enabled) void load(null, true);
  }, [enabled, n, load]);
  const last = pages[pages.length - 1];
  return {
    items: pages.flatMap((p) => p.items),
    // Transfers still waiting for the ledger: shown once, on top, from the newest page's answer.
    pending: pages[0]?.pending ?? [],
    loaded: pages.length > 0,
    more: last?.next_before ? () => void load(last.next_before, false) : undefined,
    error,
    loading,
    reload: () => setN((x) => x + 1),
  };
}

function who(i: Item): string {
  const c = i.counterparty;
  // Decision F29: a member's name, else the platform's name for a canister account, else the account cut short.
  return c ? (c.display_name ?? c.label ?? short(c.account)) : '';
}

/** What a block was, for the member, in a few words (decision F29). */
function describe(i: Item): string {
  switch (i.kind) {
    case 'mint':
      return 'DOM minted to you';
    case 'burn':
      return 'Burned';
    case 'donation':
      return 'Donation (burned)';
    case 'send':
      return `Sent to ${who(i)}`;
    case 'receive':
      return `Received from ${who(i)}`;
    case 'approve':
      return `Allowed ${who(i)} to take up to ${dom(i.amount_e8s)} DOM`;
    case 'contribution':
      return `Contribution to ${who(i)}`;
    default:
      return `Spent by ${who(i)}`;
  }
}

function HistoryCard({ history }: { history: ReturnType<typeof useHistory> }) {
  return (
    <section class="card" aria-labelledby="history-h">
      <div class="row">
        <h2 id="history-h">History</h2>
        <button type="button" class="secondary small" onClick={history.reload} disabled={history.loading}>
          Refresh
        </button>
      </div>
      {history.error ? <p class="error">{history.error.message}</p> : null}
      {history.pending.length || history.items.length ? (
        <ul class="list tx">
          {history.pending.map((p) => (
            <li key={`p${p.id}`} class="item">
              <span class="what">
                Sending to <bdi>{p.to_name ?? short(p.to)}</bdi> <span class="badge s-open">pending</span>
              </span>
              <span class="amount out">−{dom(BigInt(p.amount_e8s) + BigInt(p.fee_e8s))} DOM</span>
              <span class="muted">
                {localTime(p.created_at)} · fee {dom(p.fee_e8s)} DOM · waiting for the ledger
              </span>
            </li>
          ))}
          {history.items.map((i) => {
            const change = BigInt(i.change_e8s);
            return (
              <li key={i.block_index} class="item">
                <span class="what">{describe(i)}</span>
                <span class={`amount ${change < 0n ? 'out' : 'in'}`}>
                  {change < 0n ? '−' : '+'}
                  {dom(change < 0n ? -change : change)} DOM
                </span>
                <span class="muted">
                  {localTime(i.at)} · amount {dom(i.amount_e8s)} DOM · fee {dom(i.fee_e8s)} DOM
                  {i.kind === 'receive' ? ', paid by the sender' : ''} · block #{i.block_index}
                </span>
              </li>
            );
          })}
        </ul>
      ) : (
        <p>{history.loaded ? 'Nothing yet: DOM you receive or send shows here.' : '…'}</p>
      )}
      {history.more ? (
        <p class="actions">
          <button type="button" class="secondary small" onClick={history.more} disabled={history.loading}>
            Older
          </button>
        </p>
      ) : null}
    </section>
  );
}
