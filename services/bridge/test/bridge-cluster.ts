// Several bridge processes on one state (decisions B100, B109): each `npm run bridge` as an operator
// starts it, in IC mode against one replica, on one PostgreSQL database and one Redis key prefix, with
// the secrets every instance of a deployment shares; and an HTTP client that keeps a session cookie.
// Used by several-bridges.test.ts and by `npm run bench several-bridges`.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, START_DEV_FLAGS } from '@domdao/test-helpers';
import { generateRegistrationKey } from '../src/core/identity/sealed-fields.ts';
import { encryptRegistration } from '@domdao/registration/seal';
import { signPayload } from '../src/features/payments/signature.ts';

const MAIN = new URL('../src/main.ts', import.meta.url).pathname;
export const CLUSTER_ORIGIN = 'https://app.domdao.example';
export const CLUSTER_WEBHOOK_SECRET = 'whsec_cluster_0123456789abcdef';
export const CLUSTER_PASSWORD = 'correct horse battery staple';

/** The secrets every instance of one deployment is given alike (docs/operations/several-bridges.md). */
export async function clusterSecrets(): Promise<Record<string, string>> {
  const b64 = (b: Uint8Array) => Buffer.from(b).toString('base64url');
  return {
    HPKE_PRIVATE_KEY: b64((await generateRegistrationKey()).privateKey),
    BLIND_INDEX_KEY: b64(randomBytes(32)),
    SESSION_DATA_KEY: b64(randomBytes(32)),
    MEMBER_IDENTITY_SECRET: b64(randomBytes(32)),
    SIGNING_SECRET: randomBytes(32).toString('base64url'),
    PAYMENT_WEBHOOK_SECRET: CLUSTER_WEBHOOK_SECRET,
  };
}

export interface BridgeProcess {
  name: string;
  port: number;
  url: string;
  pid: number;
  child: ChildProcess;
  /** Its DEV_OUTBOX_FILE (the links of the emails it sent). */
  outbox: string;
  output(): string;
  exited: Promise<number | null>;
  /** SIGTERM, then SIGKILL after 10 s; removes its DATA_DIR. */
  stop(): Promise<void>;
}

/** `npm run bridge` with `env` on a free port; resolves once /health/ready answers 200. */
export async function startBridgeProcess(
  name: string,
  env: Record<string, string>,
  readyWithinMs = 120_000,
): Promise<BridgeProcess> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), `domdao-bridge-${name}-`));
  const outbox = join(dir, 'dev-outbox.jsonl');
  const child = spawn(process.execPath, [...START_DEV_FLAGS, MAIN], {
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      DATA_DIR: dir,
      DEV_OUTBOX_FILE: outbox,
      ...env,
      HOST: '127.0.0.1',
      PORT: String(port),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const until = Date.now() + readyWithinMs;
  for (;;) {
    const ok = await fetch(`${url}/health/ready`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) break;
    if (child.exitCode !== null || child.signalCode !== null || Date.now() > until) {
      await stop();
      throw new Error(`bridge ${name} did not become ready (exit ${child.exitCode}): ${out.slice(-4000)}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return { name, port, url, pid: child.pid!, child, outbox, output: () => out, exited, stop };
}

export interface Answer {
  status: number;
  body: any;
  text: string;
  headers: Headers;
}

/** A client of one base URL (an instance, or the edge); `jar` keeps the session cookie it is given. */
export async function call(
  base: string,
  path: string,
  o: {
    method?: string;
    body?: unknown;
    jar?: { cookie?: string };
    headers?: Record<string, string>;
    form?: boolean;
  } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { ...o.headers };
  if (o.jar?.cookie) headers.cookie = `session=${o.jar.cookie}`;
  const method = o.method ?? (o.body === undefined ? 'GET' : 'POST');
  if (method !== 'GET') headers.origin ??= CLUSTER_ORIGIN;
  if (o.body !== undefined) headers['content-type'] ??= 'application/json';
  const res = await fetch(`${base}${path}`, {
    method,
    headers,
    ...(o.body !== undefined && { body: JSON.stringify(o.body) }),
  });
  const text = await res.text();
  const line = res.headers.getSetCookie().find((c) => c.startsWith('session='));
  if (o.jar && line) o.jar.cookie = /Max-Age=0/i.test(line) ? undefined : /^session=([^;]*)/.exec(line)![1];
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // a page or an empty answer
  }
  return { status: res.status, body, text, headers: res.headers };
}

/** The last link of `type` sent to `to` in any of the instances' development outboxes. */
export function outboxLink(bridges: Array<{ outbox: string }>, to: string, type: string): string | undefined {
  return bridges
    .flatMap((b) => (existsSync(b.outbox) ? readFileSync(b.outbox, 'utf8').split('\n').filter(Boolean) : []))
    .map((l) => JSON.parse(l) as { to: string; type?: string; link: string })
    .filter((l) => l.to === to && l.type === type)
    .at(-1)?.link;
}

/** Registered through `base`, verified from the outbox link, signed in: the member's jar and ids. */
export async function signUp(base: string, bridges: Array<{ outbox: string }>, email: string, name: string) {
  const key = (await call(base, '/api/auth/registration-key')).body as { public_key: string };
  const fields = await encryptRegistration(key.public_key, { email, name, dob: '1990-05-01' });
  const r = await call(base, '/api/auth/register', {
    body: { ...fields, password: CLUSTER_PASSWORD, tos_accepted: true },
  });
  if (r.status !== 201) throw new Error(`register ${email}: ${r.status} ${r.text}`);
  const link = outboxLink(bridges, email, 'verification');
  if (!link) throw new Error(`no verification link for ${email}`);
  const token = new URL(link).searchParams.get('token');
  const v = await call(base, '/api/auth/verify-email', { body: { token, password: CLUSTER_PASSWORD } });
  if (v.status !== 200) throw new Error(`verify ${email}: ${v.status} ${v.text}`);
  const jar: { cookie?: string } = {};
  const login = await call(base, '/auth/login', { body: { email, password: CLUSTER_PASSWORD }, jar });
  if (login.status !== 200) throw new Error(`login ${email}: ${login.status} ${login.text}`);
  const s = (await call(base, '/auth/session', { jar })).body as { user_id: string };
  const { principal } = (await call(base, '/api/me/profile', { jar })).body as { principal: string };
  return { email, jar, user_id: s.user_id, principal };
}

/** The card processor's signed webhook for the membership payment of `userId`. */
export function paymentWebhook(base: string, userId: string, id: string) {
  const raw = JSON.stringify({
    id,
    type: 'payment_intent.succeeded',
    data: { object: { id: `pi_${id}`, amount: 2500, currency: 'usd', metadata: { user_id: userId } } },
  });
  return fetch(`${base}/api/webhooks/payments`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'payment-signature': signPayload(CLUSTER_WEBHOOK_SECRET, Math.floor(Date.now() / 1000), raw),
    },
    body: raw,
  });
}
