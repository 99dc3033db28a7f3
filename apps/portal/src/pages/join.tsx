// Spec 2 registration rules 1–2: date of birth first; under 13 → the block screen and a block flag kept
// 24 hours in this browser, nothing else collected; 13–17 and 18+ see the form. Name, email and date
// of birth are sealed in the browser with the bridge's published key (the bridge's own client helper)
// before they leave it. Decision F47: the form also asks the name other members see, filled in from
// the name as it is typed until the member edits it; it is public, so it is sent as it is.
import { useState } from 'preact/hooks';
import { encryptRegistration, passwordProblem, PASSWORD_MAX, PASSWORD_MIN } from '@domdao/registration';
import { api, ApiError, handler, type Answer } from '../api.ts';

// Decision F5: the under-13 block is kept in this browser only (nothing about the child is sent or stored).
export const BLOCK_KEY = 'age_block_until';
const BLOCK_MS = 24 * 3_600_000;

/** Whole years from `dob` (YYYY-MM-DD) to `today`, counted in UTC so a birthday does not depend on the
 *  browser's zone; undefined for a date that does not exist or lies ahead. */
export function ageOn(dob: string, today = new Date()): number | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(dob);
  if (!m) return undefined;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const birth = new Date(Date.UTC(y, mo - 1, d));
  if (birth.getUTCMonth() !== mo - 1 || birth > today) return undefined;
  let age = today.getUTCFullYear() - y;
  if (today.getUTCMonth() + 1 < mo || (today.getUTCMonth() + 1 === mo && today.getUTCDate() < d)) age -= 1;
  return age;
}

function blocked(): boolean {
  const until = Number(localStorage.getItem(BLOCK_KEY) ?? 0);
  if (until > Date.now()) return true;
  // An expired flag is removed, so a later visit starts at the date of birth again.
  if (until) localStorage.removeItem(BLOCK_KEY);
  return false;
}

type Step =
  | { kind: 'dob' }
  | { kind: 'form'; dob: string; minor: boolean }
  | { kind: 'sent'; email: string }
  | { kind: 'blocked' };

export function JoinPage() {
  const [step, setStep] = useState<Step>(blocked() ? { kind: 'blocked' } : { kind: 'dob' });
  if (step.kind === 'blocked') {
    return (
      <section class="card" role="alert">
        <h1>We can’t create an account for you</h1>
        <p>You must be at least 13 years old to join DOM DAO. No information about you was stored or sent.</p>
        <h2>What you can do</h2>
        <ul>
          <li>
            Read what the DAO decides: <a href="/govern">proposals</a>, <a href="/campaigns">campaigns</a> and the{' '}
            <a href="/price">DOM price</a> are open to everyone.
          </li>
          <li>Ask a parent or guardian about DOM DAO; you are welcome to join once you are 13.</li>
          <li>
            Entered the wrong date? This device keeps the answer for 24 hours (
            {new Date(Number(localStorage.getItem(BLOCK_KEY))).toLocaleString('en-GB', {
              dateStyle: 'medium',
              timeStyle: 'short',
            })}
            ), then you can try again.
          </li>
        </ul>
      </section>
    );
  }
  if (step.kind === 'dob')
    return (
      <DobStep
        onBlocked={() => setStep({ kind: 'blocked' })}
        onOk={(dob, minor) => setStep({ kind: 'form', dob, minor })}
      />
    );
  if (step.kind === 'form')
    return <FormStep dob={step.dob} minor={step.minor} onSent={(email) => setStep({ kind: 'sent', email })} />;
  return <SentStep email={step.email} />;
}

function DobStep({ onBlocked, onOk }: { onBlocked(): void; onOk(dob: string, minor: boolean): void }) {
  const [dob, setDob] = useState('');
  const [error, setError] = useState('');
  return (
    <form
      class="card narrow"
      onSubmit={(e) => {
        e.preventDefault();
        const age = ageOn(dob);
        if (age === undefined) return setError('Enter your date of birth.');
        if (age < 13) {
          localStorage.setItem(BLOCK_KEY, String(Date.now() + BLOCK_MS));
          return onBlocked();
        }
        onOk(dob, age < 18);
      }}
    >
      <h1>Join DOM DAO</h1>
      <label for="dob">Date of birth</label>
      <input
        id="dob"
        name="dob"
        type="date"
        required
        value={dob}
        onInput={(e) => setDob(e.currentTarget.value)}
        aria-describedby="dob-help"
      />
      <p id="dob-help" class="hint">
        We ask first: members must be 13 or older.
      </p>
      <p class="error" role="alert">
        {error}
      </p>
      <button type="submit">Continue</button>
    </form>
  );
}

function FormStep({ dob, minor, onSent }: { dob: string; minor: boolean; onSent(email: string): void }) {
  const [name, setName] = useState('');
  // Decision F47: follows the name until the member types a name of their own here.
  const [shown, setShown] = useState<string | undefined>(undefined);
  const displayName = shown ?? name.trim().replace(/\s+/g, ' ');
  const [nameError, setNameError] = useState('');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [tos, setTos] = useState(false);
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const problem = password ? passwordProblem(password, email) : undefined;
  return (
    <form
      class="card narrow"
      onSubmit={handler(async (e) => {
        e.preventDefault();
        setError('');
        setNameError('');
        const p = passwordProblem(password, email);
        if (p) return setError(`Password: ${p}.`);
        if (!tos) return setError('Accept the terms to continue.');
        setBusy(true);
        try {
          // Asked at each submit, not kept from the page's load: a restarted bridge may hold another key (B66).
          const key = await api<Answer<'getRegistrationKey'>>('/api/auth/registration-key');
          const sealed = await encryptRegistration(key.public_key, { email: email.trim(), name: name.trim(), dob });
          await api('/api/auth/register', {
            method: 'POST',
            body: { ...sealed, password, tos_accepted: true, display_name: displayName.trim() },
          });
          onSent(email.trim());
        } catch (err) {
          // A refused display name is said beside its field and focused there: the rest of the form stands.
          if (err instanceof ApiError && (err.code === 'NAME_TAKEN' || err.message.startsWith('display_name'))) {
            const why = err.message.replace(/^display_name: /, '');
            setNameError(`${why[0]!.toUpperCase()}${why.slice(1)}.`);
            document.getElementById('display_name')?.focus();
            return;
          }
          setError(
            err instanceof ApiError
              ? err.code === 'EMAIL_EXISTS'
                ? 'An account already uses this email address. Sign in instead.'
                : err.message
              : String(err),
          );
        } finally {
          setBusy(false);
        }
      })}
    >
      <h1>Create your account</h1>
      {minor ? (
        <p class="note">
          You are under 18: you can join, read governance and support campaigns; voting needs an Active membership,
          which starts at 18.
        </p>
      ) : null}
      <label for="name">Name</label>
      <input
        id="name"
        autocomplete="name"
        required
        maxLength={100}
        value={name}
        onInput={(e) => setName(e.currentTarget.value)}
      />
      <label for="display_name">Name other members see</label>
      <input
        id="display_name"
        autocomplete="nickname"
        required
        minLength={3}
        maxLength={32}
        value={displayName}
        onInput={(e) => setShown(e.currentTarget.value)}
        aria-describedby="display-name-help display-name-error"
        aria-invalid={nameError ? true : undefined}
      />
      <p id="display-name-help" class="hint">
        Shown beside your votes, proposals and contributions: your name, or any other 3 to 32 letters, digits, spaces
        and . - _ ' that no member uses.
      </p>
      <p id="display-name-error" class="error" role="alert">
        {nameError}
      </p>
      <label for="email">Email</label>
      <input
        id="email"
        type="email"
        autocomplete="email"
        required
        value={email}
        onInput={(e) => setEmail(e.currentTarget.value)}
      />
      <label for="password">Password</label>
      <input
        id="password"
        type="password"
        autocomplete="new-password"
        required
        minLength={PASSWORD_MIN}
        maxLength={PASSWORD_MAX}
        value={password}
        onInput={(e) => setPassword(e.currentTarget.value)}
        aria-describedby="pw-rules"
      />
      <p id="pw-rules" class={problem ? 'hint bad' : 'hint'}>
        {problem
          ? `The ${problem.replace(/^the /, '')}.`
          : `${PASSWORD_MIN} to ${PASSWORD_MAX} characters; not a common password; not your email address.`}
      </p>
      <label class="check">
        <input type="checkbox" checked={tos} onChange={(e) => setTos(e.currentTarget.checked)} /> I accept the terms of
        membership.
      </label>
      <p class="hint">
        Your name, email and date of birth are encrypted in this browser before they are sent; the name other members
        see is public.
      </p>
      <p class="error" role="alert">
        {error}
      </p>
      <button type="submit" disabled={busy}>
        {busy ? 'Creating…' : 'Create account'}
      </button>
    </form>
  );
}

function SentStep({ email }: { email: string }) {
  const [note, setNote] = useState('');
  return (
    <section class="card narrow">
      <h1>Check your email</h1>
      <p>
        We sent a link to <strong>{email}</strong>. Follow it and confirm with your password: you are then signed in.
      </p>
      <button
        type="button"
        class="secondary"
        onClick={handler(async () => {
          try {
            await api('/api/auth/resend-verification', { method: 'POST', body: { email } });
            setNote('Sent again. It can take a minute to arrive.');
          } catch (err) {
            setNote(err instanceof ApiError ? err.message : String(err));
          }
        })}
      >
        Send the link again
      </button>
      <p role="status">{note}</p>
    </section>
  );
}
