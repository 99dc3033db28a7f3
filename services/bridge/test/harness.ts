// Bridge test harness: the service built the production way (openBridge) on PGlite or a fresh
// PostgreSQL database of its own, sessions in the database or under a Redis key prefix of its own,
// the embedded canisters with the bridge's clock, and email through the real notification service
// whose provider is a local stand-in that records every rendered message. Plus a cookie jar.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { buildApp as buildNotification } from '@domdao/notification-service';
import { loadNotificationConfig } from '@domdao/notification-service/config';
import { createNotificationClient } from '@domdao/notification-client';
import {
  captureLogs,
  redisUrlForTests,
  requireRedis,
  startRecorder,
  uniquePrefix,
  type Recorder,
} from '@domdao/test-helpers';
import { createLogger } from '@domdao/service-kit';
import { notificationClientFromEnv } from '@domdao/notification-client';
import { buildApp } from '../src/compose/app.ts';
import { openBridge, type OpenBridgeOptions } from '../src/compose/open-bridge.ts';
import type { AiTestOptions } from '../src/compose/parts.ts';
import { databaseSessionStore } from '../src/core/auth/session-store.ts';
import { openDatabase } from '../src/core/db/connect.ts';
import { loadKeys } from '../src/core/keys.ts';
import type { FaultHook } from '../src/core/outbox/types.ts';
import { loadBridgeConfig } from '../src/config.ts';
import { encryptRegistration } from '@domdao/registration/seal';
import { signPayload } from '../src/features/payments/signature.ts';
import {
  initdbFromTemplate,
  lendEmbeddedDatabase,
  seedEmbeddedDatabase,
  type EmbeddedLoan,
} from './embedded-template.ts';
import { forgetPostgresTemplate, postgresTemplate } from './postgres-template.ts';

export const APP = 'https://app.domdao.example';
export const GOV = 'https://gov.domdao.example';
export const ACCESS_TOKEN = 'test-access-token-0123456789';
export const WEBHOOK_SECRET = 'whsec_test_0123456789abcdef';
export const ADMIN_EMAIL = 'root@domdao.example';
export const PG_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/**
 * Decision R23: the bridges this harness opens hash new passwords with argon2id at the least cost it
 * accepts (8 KiB, one pass) instead of decision B5's 19 MiB and two passes, about 0.3 ms a hash
 * instead of 23: the suite registers, signs in and resets passwords thousands of times, and B5's cost
 * was an eighth of a bridge file's CPU. B5's cost is what every other bridge uses (openBridge's
 * default, every process a test starts) and is checked by registration.test.ts.
 */
export const TEST_PASSWORD_COST = { memoryCost: 8, timeCost: 1 } as const;

/**
 * Decision R27: the bridge and the notification service this harness opens close a quiet connection
 * as soon as the close has begun, instead of after IDLE_CLOSE_MS (3 s, R48): the bridge's client keeps
 * its connections to the notification service alive, and each harness would wait that bound out
 * when it closes (registration.test: 20.5 s → 24.8 s). A test of the close itself passes
 * `closeIdleMs: IDLE_CLOSE_MS`; the processes tests start use the real bound.
 */
export const TEST_CLOSE_IDLE_MS = 0;

export type Backend = { db: 'pglite' | 'postgres'; sessions: 'database' | 'redis' };
export const BACKENDS: Backend[] = [
  { db: 'pglite', sessions: 'database' },
  { db: 'postgres', sessions: 'redis' },
  { db: 'postgres', sessions: 'database' },
];

/** A database of its own on the real PostgreSQL server (fails, never skips, when it is down);
 *  `prefix` names it after the test that made it, for whoever looks at the server meanwhile.
 *  Empty, or with `migrated`, a copy of the migrated template (decision R13, postgres-template.ts). */
export async function freshPostgres(
  prefix = 'bridge_test',
  options: { migrated?: boolean } = {},
): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `${prefix}_${randomUUID().replace(/-/g, '')}`;
  const admin = new pg.Client({ connectionString: PG_URL });
  try {
    await admin.connect();
  } catch (e) {
    throw new Error(
      `PostgreSQL is required for this test and is not reachable at ${PG_URL} (${(e as Error).message}); see scripts/README.md "Servers and tools the tests need"`,
    );
  }
  try {
    if (!options.migrated) await admin.query(`create database ${name}`);
    else
      for (let attempt = 1; ; attempt++) {
        try {
          await admin.query(`create database ${name} template ${await postgresTemplate(PG_URL)}`);
          break;
        } catch (e) {
          // 3D000: the template was dropped meanwhile (another checkout's run made a newer one).
          if ((e as { code?: string }).code !== '3D000' || attempt === 2) throw e;
          forgetPostgresTemplate();
        }
      }
  } finally {
    await admin.end();
  }
  const url = new URL(PG_URL);
  url.pathname = `/${name}`;
  return {
    url: url.href,
    async drop() {
      const c = new pg.Client({ connectionString: PG_URL });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}

export interface Jar {
  cookie?: string;
  setCookie?: string;
}

/** The mailbox owner's own answers when a test starts an account afresh (decision B86). */
export const OWNER_NAME = 'Mailbox Owner';
export const OWNER_DOB = '1984-02-29';

export async function bridge(
  backend: Backend = BACKENDS[0]!,
  env: Record<string, string> = {},
  faults: {
    interceptCall?: (from: string, to: string, method: string) => void;
    backupPause?: OpenBridgeOptions['backupPause'];
    ai?: AiTestOptions;
    outboxFaults?: FaultHook;
    jobTimer?: boolean;
    embeddedSyncFault?: (fd: number) => void;
    /** Hash at decision B5's cost, as a bridge opened from configuration does, instead of TEST_PASSWORD_COST. */
    productionPasswords?: boolean;
    /** The bridge's idle bound while it closes, instead of TEST_CLOSE_IDLE_MS. */
    closeIdleMs?: number;
    /** The embedded ledger in archive mode (decision L43). */
    ledgerArchive?: { localBlocks: bigint };
  } = {},
) {
  const dir = mkdtempSync(join(tmpdir(), 'domdao-bridge-'));
  const provider: Recorder = await startRecorder();
  const notification = await buildNotification({
    config: loadNotificationConfig({
      NODE_ENV: 'test',
      SERVICE_TOKEN: 'bridge-test-notification-token',
      EMAIL_PROVIDER_API_KEY: 're_test',
      EMAIL_PROVIDER_API_URL: provider.url,
      LOG_LEVEL: 'warn',
    }),
    logStream: captureLogs().stream,
    closeIdleMs: TEST_CLOSE_IDLE_MS,
  });
  await notification.listen({ port: 0, host: '127.0.0.1' });
  const notificationUrl = `http://127.0.0.1:${(notification.server.address() as AddressInfo).port}`;
  const pgdb = backend.db === 'postgres' ? await freshPostgres('bridge_test', { migrated: true }) : undefined;
  if (backend.sessions === 'redis') (await requireRedis()).disconnect();
  let now = Date.parse('2026-03-10T12:00:00Z');
  const logs = captureLogs();
  const fullEnv: Record<string, string> = {
    NODE_ENV: 'test',
    LOG_LEVEL: 'info',
    DATA_DIR: dir,
    PUBLIC_URL: 'https://bridge.domdao.example',
    FRONTEND_ORIGINS: `${APP},${GOV}`,
    COOKIE_DOMAIN: '.domdao.example',
    ACCESS_TOKEN,
    PAYMENT_WEBHOOK_SECRET: WEBHOOK_SECRET,
    BOOTSTRAP_ADMIN_EMAILS: ADMIN_EMAIL,
    // Suites register many accounts from one injected address; the limit's own test sets it (decision B33).
    REGISTRATION_LIMIT_PER_CLIENT: '1000',
    SESSION_STORE: backend.sessions,
    ...(backend.sessions === 'redis' && {
      SESSION_REDIS_URL: redisUrlForTests,
      SESSION_KEY_PREFIX: uniquePrefix('bridge-session'),
    }),
    ...(pgdb && { DATABASE_URL: pgdb.url }),
    ...env,
  };
  // A refused configuration (or a bridge that fails to open) must not leave the servers above running.
  const release = async () => {
    await notification.close();
    await provider.close();
    await pgdb?.drop();
    rmSync(dir, { recursive: true, force: true });
  };
  let config: ReturnType<typeof loadBridgeConfig>;
  let opened: Awaited<ReturnType<typeof openBridge>>;
  const notifier = createNotificationClient({
    baseUrl: notificationUrl,
    token: 'bridge-test-notification-token',
    logger: { warn: () => undefined },
  });
  // Decision R24: the embedded database is lent from the process's pool; it goes back when the bridge
  // closes for good, goes on to the reopened app at a restart, and into DATA_DIR/pglite when its app
  // closes otherwise (a test that reopens the directory), where it stays the bridge's own.
  let loan: EmbeddedLoan | undefined;
  let closing = false;
  let restarting = false;
  const handBack = async () => {
    if (restarting) return;
    const l = loan;
    loan = undefined;
    if (!l) return;
    if (closing) await l.giveBack();
    else await l.surrender(join(dir, 'pglite'));
  };
  const open = ({ productionPasswords, ...f }: typeof faults) =>
    openBridge(config, fullEnv, {
      ...(loan && { lent: { lite: loan.lite, release: handBack } }),
      embeddedInitdb: initdbFromTemplate,
      now: () => now,
      canisterClock: () => BigInt(now) * 1_000_000n,
      scheduler: false,
      logStream: logs.stream,
      notifier,
      ...(!(productionPasswords ?? faults.productionPasswords) && { passwordCost: TEST_PASSWORD_COST }),
      closeIdleMs: TEST_CLOSE_IDLE_MS,
      ...f,
    });
  try {
    config = loadBridgeConfig(fullEnv);
    // Decision R13: a new, migrated database without making one (about 4 s each); R24: a started one.
    if (!config.DATABASE_URL && config.DATA_DIR === dir) {
      if (config.EMBEDDED_DATABASE_FSYNC && !faults.embeddedSyncFault) loan = await lendEmbeddedDatabase();
      else await seedEmbeddedDatabase(join(dir, 'pglite'));
    }
    opened = await open(faults);
  } catch (err) {
    closing = true;
    await handBack();
    await release();
    throw err;
  }
  let app = opened.app;

  const request = async (
    opts: InjectOptions & { jar?: Jar; origin?: string | null },
  ): Promise<LightMyRequestResponse> => {
    const headers: Record<string, string> = { ...(opts.headers as Record<string, string>) };
    if (opts.jar?.cookie) headers.cookie = `session=${opts.jar.cookie}`;
    if (opts.origin !== null && opts.method && opts.method !== 'GET') headers.origin ??= opts.origin ?? APP;
    if (opts.payload !== undefined && typeof opts.payload !== 'string' && !Buffer.isBuffer(opts.payload))
      headers['content-type'] ??= 'application/json';
    const { jar, origin: _o, ...rest } = opts;
    const res = await app.inject({
      ...rest,
      headers,
      ...(opts.payload !== undefined &&
        typeof opts.payload === 'object' &&
        !Buffer.isBuffer(opts.payload) && { payload: JSON.stringify(opts.payload) }),
    } as InjectOptions);
    const set = res.headers['set-cookie'];
    const line = (Array.isArray(set) ? set : set ? [set] : []).find((c) => c.startsWith('session='));
    if (jar && line) {
      jar.setCookie = line;
      const value = /^session=([^;]*)/.exec(line)![1]!;
      jar.cookie = /Max-Age=0/i.test(line) ? undefined : value;
    }
    return res;
  };

  const h = {
    get app() {
      return app;
    },
    get opened() {
      return opened;
    },
    /**
     * A crash and a restart on the same data (database, canister state): the app is closed without
     * finishing anything (what a crash left stays as it is), then opened again, with other faults.
     */
    async restart(f: typeof faults = {}) {
      // A sync fault is a hook of the database's start: such a restart opens the directory.
      restarting = !f.embeddedSyncFault;
      try {
        await app.close();
      } finally {
        restarting = false;
      }
      opened = await open(f);
      app = opened.app;
      await app.ready();
    },
    provider,
    /** The bridge's client of the real notification service (tests that drive a feature's functions). */
    notifier,
    logs,
    config,
    /** The environment the bridge was configured from (a child process can be started on the same data). */
    env: fullEnv,
    now: () => now,
    advance: (ms: number) => (now += ms),
    request,
    /** Every email the provider stand-in received, parsed. */
    emails: () =>
      provider.requests.map((r) => r.json() as { to: string[]; subject: string; text: string; html: string }),
    async encrypt(fields: { email: string; name: string; dob: string }) {
      const key = (await request({ method: 'GET', url: '/api/auth/registration-key' })).json() as {
        public_key: string;
      };
      return encryptRegistration(key.public_key, fields);
    },
    async register(email: string, opts: { dob?: string; password?: string; name?: string } = {}) {
      const fields = await h.encrypt({ email, name: opts.name ?? 'Ada Lovelace', dob: opts.dob ?? '1990-05-01' });
      return request({
        method: 'POST',
        url: '/api/auth/register',
        payload: { ...fields, password: opts.password ?? 'correct horse battery staple', tos_accepted: true },
      });
    },
    /** The verification link of the last verification email sent to `email`. */
    verificationPath(email: string): string {
      const mail = h
        .emails()
        .filter((m) => m.to.includes(email) && /confirm your email/i.test(m.text))
        .at(-1);
      if (!mail) throw new Error(`no verification email to ${email}`);
      const link = /https?:\/\/[^/\s]+(\/verify-email\?token=[0-9a-f-]+)/.exec(mail.text)?.[1];
      if (!link) throw new Error('no verification link in the email');
      return link;
    },
    /**
     * Opens the verification link and confirms it as a person does (decision B51): the link's page,
     * then its form with the password chosen at registration; or, with `{ newPassword }`, the way that
     * starts the account afresh (decisions B86, B87): the date of birth, then the name, the terms and the
     * new password (`name` and `dob` default to the mailbox owner's below).
     */
    async verify(email: string, proof: { password?: string; newPassword?: string; name?: string; dob?: string } = {}) {
      const path = h.verificationPath(email);
      // Without an Origin, as a client that is no browser: the confirmation makes no session (decision B105), so
      // suites that count an account's sessions count only their own sign-ins.
      const form = (fields: Record<string, string>) =>
        request({
          method: 'POST',
          url: '/verify-email',
          origin: null,
          payload: new URLSearchParams(fields).toString(),
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
        });
      const token = new URL(path, 'https://bridge.example').searchParams.get('token')!;
      if (proof.newPassword === undefined) {
        const page = await request({ method: 'GET', url: path });
        if (page.statusCode !== 200) return page;
        return form({ token, password: proof.password ?? 'correct horse battery staple' });
      }
      const choose = await request({ method: 'GET', url: `${path}&choose=1` });
      if (choose.statusCode !== 200) return choose;
      const dob = proof.dob ?? OWNER_DOB;
      const age = await form({ token, dob });
      if (age.statusCode !== 200) return age;
      return form({
        token,
        dob,
        name: proof.name ?? OWNER_NAME,
        new_password: proof.newPassword,
        tos_accepted: 'true',
      });
    },
    async login(email: string, password = 'correct horse battery staple', jar: Jar = {}) {
      const res = await request({ method: 'POST', url: '/auth/login', payload: { email, password }, jar });
      return { res, jar };
    },
    /** Registered, verified and signed in. */
    async member(email: string, opts: { dob?: string } = {}) {
      const r = await h.register(email, opts);
      if (r.statusCode !== 201) throw new Error(`register ${email}: ${r.statusCode} ${r.body}`);
      const v = await h.verify(email);
      if (v.statusCode !== 200) throw new Error(`verify ${email}: ${v.statusCode} ${v.body.slice(0, 300)}`);
      const { jar } = await h.login(email);
      const s = (await request({ method: 'GET', url: '/auth/session', jar })).json() as { user_id: string };
      return { jar, user_id: s.user_id };
    },
    signedWebhook(body: unknown, t = Math.floor(now / 1000), secret = WEBHOOK_SECRET) {
      const raw = JSON.stringify(body);
      return request({
        method: 'POST',
        url: '/api/webhooks/payments',
        payload: raw,
        origin: null,
        headers: { 'content-type': 'application/json', 'payment-signature': signPayload(secret, t, raw) },
      });
    },
    async close() {
      closing = true;
      await app.close();
      await handBack();
      await release();
    },
  };
  return h;
}

export type Bridge = Awaited<ReturnType<typeof bridge>>;

/** Waits for work the bridge does after its answer (emails sent in the background), checking every 20 ms. */
export async function eventually<T>(
  what: string,
  check: () => Promise<T | undefined> | T | undefined,
  ms = 10_000,
): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export function paymentEvent(userId: string, id = `evt_${randomUUID().slice(0, 8)}`, amount = 2500) {
  return {
    id,
    type: 'payment_intent.succeeded',
    data: { object: { id: `pi_${id}`, amount, currency: 'usd', metadata: { user_id: userId } } },
  };
}

/**
 * Another bridge instance of the same canister set on `h`'s PostgreSQL database (what IC canisters let a
 * deployment run, decision B100), built the production way around `h`'s canisters, with a pool of its
 * own. Instances with canisters of their own on one database are refused (decision B101).
 */
export async function sameSetInstance(h: Bridge, options: { jobTimer?: boolean } = {}) {
  const database = await openDatabase({ url: h.config.DATABASE_URL! });
  const log = createLogger('silent', 'bridge', 'test');
  const app = await buildApp({
    config: h.config,
    db: database.db,
    sessionStore: databaseSessionStore(database.db, database.pool),
    canisters: h.opened.canisters,
    notifier: notificationClientFromEnv(log.logger, {}),
    keys: await loadKeys(h.config),
    log,
    now: h.now,
    passwordCost: TEST_PASSWORD_COST,
    ...(options.jobTimer === false && { jobTimer: false }),
  });
  return {
    app,
    db: database.db,
    async close() {
      await app.close();
      await database.close();
    },
  };
}
