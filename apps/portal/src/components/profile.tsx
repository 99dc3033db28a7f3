// The member's name (decision F22) and, on /me, the balance with the way to the wallet page (decision
// F29; the account, transfers, history and the faucet are there).
import { useState } from 'preact/hooks';
import { api, ApiError, dom, handler, useApi, type Answer } from '../api.ts';

type Profile = Answer<'getMyProfile'>;

export function DisplayNameCard() {
  const p = useApi<Profile>('/api/me/profile');
  // null: the field shows the saved name; a string: what the member is typing.
  const [name, setName] = useState<string | null>(null);
  const [msg, setMsg] = useState('');
  if (!p.data)
    return (
      <section class="card">{p.error ? <p class="error">{p.error.message}</p> : <p aria-busy="true">…</p>}</section>
    );
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
        Other members see you as{' '}
        <strong>
          <bdi>{d.display_name}</bdi>
        </strong>
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
        {/* null clears the chosen name: the member is shown the default one they were given (decision F22). */}
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

/** On /me, the balance and the way to the wallet page (decision F29 moved the wallet there). */
export function WalletCard() {
  const b = useApi<Balance>('/api/me/balance');
  return (
    <section class="card" aria-labelledby="wallet-h">
      <h2 id="wallet-h">Wallet</h2>
      {b.data ? (
        <p class="big">{dom(b.data.balance_e8s)} DOM</p>
      ) : b.error ? (
        <p class="error">{b.error.message}</p>
      ) : (
        <p aria-busy="true">…</p>
      )}
      <p>
        <a href="/wallet">Open your wallet</a> to send DOM to members, copy your account and see your history.
      </p>
    </section>
  );
}
