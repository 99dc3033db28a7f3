// The member's name (decision F22) and wallet (decision F26) on /me: the name other members see,
// the DOM balance, the ICRC-1 account to receive DOM (copyable), and in development the faucet.
import { useState } from 'preact/hooks';
import { api, ApiError, dom, handler, useApi, type Answer } from '../api.ts';

type Profile = Answer<'getMyProfile'>;

export function DisplayNameCard() {
  const p = useApi<Profile>('/api/me/profile');
  const [name, setName] = useState<string | null>(null);
  const [msg, setMsg] = useState('');
  if (!p.data) return <section class="card">{p.error ? <p class="error">{p.error.message}</p> : <p aria-busy="true">…</p>}</section>;
  const d = p.data;
  const save = async (display_name: string | null) => {
    setMsg('');
    try {
      const r = await api<Profile>('/api/me/display-name', { method: 'PUT', body: { display_name } });
      setMsg(`Saved: other members now see “${r.display_name}”.`);
      setName(null);
      p.reload();
    } catch (err) {
      setMsg(err instanceof ApiError ? err.message : String(err));
    }
  };
  return (
    <section class="card" aria-labelledby="name-h">
      <h2 id="name-h">Your name</h2>
      <p>
        Other members see you as <strong>{d.display_name}</strong>
        {d.chosen ? '' : ' (given to you until you choose one)'}. Your email is never shown to them.
      </p>
      <form
        class="filters"
        onSubmit={handler(async (e: Event) => {
          e.preventDefault();
          await save(name ?? d.display_name);
        })}
      >
        <label class="grow">
          Display name
          <input
            id="display-name"
            value={name ?? (d.chosen ? d.display_name : '')}
            placeholder={d.default_name}
            minLength={3}
            maxLength={32}
            required
            aria-describedby="name-hint"
            onInput={(e) => setName(e.currentTarget.value)}
          />
        </label>
        <button type="submit">Save name</button>
        {d.chosen ? (
          <button type="button" class="secondary" onClick={handler(() => save(null))}>
            Use {d.default_name}
          </button>
        ) : null}
      </form>
      <p id="name-hint" class="hint">
        3 to 32 letters, digits, spaces and . - _ ’. Shown beside your proposals, votes, campaigns and contributions.
      </p>
      <p role="status">{msg}</p>
    </section>
  );
}

type Balance = Answer<'getMyBalance'>;

export function WalletCard() {
  const b = useApi<Balance>('/api/me/balance');
  const [msg, setMsg] = useState('');
  const [copied, setCopied] = useState(false);
  if (!b.data) return <section class="card">{b.error ? <p class="error">{b.error.message}</p> : <p aria-busy="true">…</p>}</section>;
  const d = b.data;
  // ICRC-1 textual account: with no subaccount it is the owner's principal itself.
  const account = d.account.owner;
  return (
    <section class="card" aria-labelledby="wallet-h">
      <h2 id="wallet-h">Wallet</h2>
      <p class="big">{dom(d.balance_e8s)} DOM</p>
      <p class="muted">Each ledger transfer costs {dom(d.fee_e8s)} DOM.</p>
      <label for="account">Your DOM account (ICRC-1), to receive DOM</label>
      <div class="copy">
        <input id="account" readOnly value={account} onFocus={(e) => e.currentTarget.select()} />
        <button
          type="button"
          class="secondary"
          onClick={handler(async () => {
            await navigator.clipboard.writeText(account);
            setCopied(true);
          })}
        >
          {copied ? 'Copied' : 'Copy'}
        </button>
      </div>
      {d.faucet_e8s !== null ? (
        <>
          <button
            type="button"
            onClick={handler(async () => {
              setMsg('');
              try {
                const r = await api<Answer<'mintDevelopmentDom'>>('/api/dev/faucet', { method: 'POST', body: {} });
                setMsg(`${dom(r.amount_e8s)} test DOM added.`);
                b.reload();
              } catch (err) {
                setMsg(err instanceof ApiError ? err.message : String(err));
              }
            })}
          >
            Get test DOM
          </button>
          <p class="hint">Development only: test DOM has no value and does not exist in production.</p>
        </>
      ) : null}
      <p role="status">{msg}</p>
    </section>
  );
}
