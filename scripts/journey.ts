// `npm run journey` (with `npm start` running): the membership journey over HTTP against
// the local platform — register (fields encrypted with the client helper) → verification link (from
// the development outbox) → Registered → admin KYC → signed payment webhook → Active in the session.
// The bridge and the outbox are those of `npm start`'s environment (BRIDGE_URL, HOST, BRIDGE_PORT,
// DATA_DIR, DEV_OUTBOX_FILE; decision R16); whatever fails is said in one sentence, without a stack.
import { randomUUID } from 'node:crypto';
import { encryptRegistration } from '@domdao/registration/seal';
import { signPayload } from '../services/bridge/src/features/payments/signature.ts';
import { DEV_ADMIN_EMAIL, DEV_WEBHOOK_SECRET, JOURNEY_PASSWORD } from './dev-defaults.ts';
import { notRunning, outboxLink, platformEnv } from './platform-env.ts';

const { bridge: BRIDGE, outbox: OUTBOX } = platformEnv();
const SECRET = process.env.PAYMENT_WEBHOOK_SECRET || DEV_WEBHOOK_SECRET;
const PASSWORD = JOURNEY_PASSWORD;
const step = (s: string) => console.log(`→ ${s}`);

async function call(path: string, init: RequestInit & { cookie?: string } = {}) {
  const headers = new Headers(init.headers);
  if (init.cookie) headers.set('cookie', init.cookie);
  if (init.body) headers.set('content-type', 'application/json');
  const res = await fetch(`${BRIDGE}${path}`, { ...init, headers }).catch((e: unknown) => {
    throw new Error(notRunning(BRIDGE, e));
  });
  const text = await res.text();
  const cookie = res.headers
    .getSetCookie()
    .find((c) => c.startsWith('session='))
    ?.split(';')[0];
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // an HTML page
  }
  return { status: res.status, body: body as Record<string, any>, cookie };
}

async function register(email: string, name: string) {
  const key = (await call('/api/auth/registration-key')).body as { public_key: string };
  const fields = await encryptRegistration(key.public_key, { email, name, dob: '1990-05-01' });
  const r = await call('/api/auth/register', {
    method: 'POST',
    body: JSON.stringify({ ...fields, password: PASSWORD, tos_accepted: true }),
  });
  if (r.status !== 201 && !(r.status === 409 && email === DEV_ADMIN_EMAIL))
    throw new Error(`register ${email}: ${r.status} ${JSON.stringify(r.body)}`);
  if (r.status === 201) {
    const link = outboxLink(OUTBOX, email, 'verification');
    if (!link)
      throw new Error(
        `the development outbox ${OUTBOX} holds no verification link for ${email}: is it the outbox of the platform at ${BRIDGE}?`,
      );
    // Decision B51: the link proves the mailbox; the confirmation carries the password chosen at registration.
    const token = new URL(link).searchParams.get('token');
    const v = await call('/api/auth/verify-email', {
      method: 'POST',
      body: JSON.stringify({ token, password: PASSWORD }),
    });
    if (v.status !== 200) throw new Error(`verify ${email}: ${v.status}`);
  }
  const login = await call('/auth/login', { method: 'POST', body: JSON.stringify({ email, password: PASSWORD }) });
  if (login.status !== 200) throw new Error(`login ${email}: ${login.status} ${JSON.stringify(login.body)}`);
  return login.cookie!;
}

async function journey(): Promise<void> {
  const email = `member-${randomUUID().slice(0, 8)}@example.org`;
  step(`registering ${email} (name, email and date of birth sealed with HPKE to the bridge's key)`);
  const cookie = await register(email, 'Journey Member');
  let session = (await call('/api/auth/session', { cookie })).body;
  step(`verified and signed in: roles ${JSON.stringify(session.roles)}, membership ${session.membership_status}`);
  step(`the admin (${DEV_ADMIN_EMAIL}) signs in and approves KYC`);
  const admin = await register(DEV_ADMIN_EMAIL, 'Platform Admin');
  const kyc = await call(`/api/admin/users/${session.user_id}/kyc`, {
    method: 'POST',
    cookie: admin,
    headers: { origin: BRIDGE },
    body: JSON.stringify({ approved: true }),
  });
  if (kyc.status !== 200) throw new Error(`kyc: ${kyc.status} ${JSON.stringify(kyc.body)}`);
  step('the card processor reports the payment (signed webhook)');
  const event = JSON.stringify({
    id: `evt_${randomUUID().slice(0, 12)}`,
    type: 'payment_intent.succeeded',
    data: {
      object: {
        id: `pi_${randomUUID().slice(0, 12)}`,
        amount: 2500,
        currency: 'usd',
        metadata: { user_id: session.user_id },
      },
    },
  });
  const paid = await fetch(`${BRIDGE}/api/webhooks/payments`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'payment-signature': signPayload(SECRET, Math.floor(Date.now() / 1000), event),
    },
    body: event,
  });
  step(`webhook answered ${paid.status} ${await paid.text()}`);
  session = (await call('/api/auth/session', { cookie })).body;
  step(`the member's session now shows membership ${session.membership_status}`);
  if (session.membership_status !== 'Active')
    throw new Error(`the membership is ${session.membership_status}, not Active`);
}

try {
  await journey();
} catch (e) {
  console.error(`journey: ${(e as Error).message}`);
  process.exit(1);
}
