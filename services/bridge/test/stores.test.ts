// The bridge and its stores (decisions B17 and B18): a PostgreSQL restart is an
// outage answered 503, never a crash, and the bridge recovers by itself; one bridge per DATA_DIR.
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import pg from 'pg';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { rmSync } from 'node:fs';
import { connect, createServer, type AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { freePort, START_DEV_FLAGS, startPrivatePostgres } from '@domdao/test-helpers';
import { BACKENDS, bridge, paymentEvent } from './harness.ts';
import { seededDataDir } from './embedded-template.ts';

describe('decision B17: a PostgreSQL restart is an outage, not a crash', () => {
  it('requests during the outage get 503 with a JSON error; the bridge recovers when PostgreSQL is back', async (t) => {
    const server = await startPrivatePostgres();
    t.after(() => server.close());
    const h = await bridge(BACKENDS[0], { DATABASE_URL: server.url, SESSION_STORE: 'database' });
    t.after(() => h.close());
    assert.equal(h.opened.dbKind, 'postgres');
    const { jar } = await h.member('ada@example.org');
    // Pooled connections are idle now; the restart terminates them ("administrator command").
    const uncaught: Error[] = [];
    const onUncaught = (e: Error) => uncaught.push(e);
    process.on('uncaughtException', onUncaught);
    t.after(() => process.off('uncaughtException', onUncaught));
    // And one connection is checked out, mid-query, when the server goes: it must reject, not end the process.
    const inFlight = sql`select pg_sleep(30)`.execute(h.opened.db).then(
      () => undefined,
      (e: unknown) => e,
    );
    await new Promise((r) => setTimeout(r, 100));
    await server.stop();
    assert.ok((await inFlight) instanceof Error, 'the query in flight is rejected');
    await new Promise((r) => setTimeout(r, 200));

    const session = await h.request({ method: 'GET', url: '/auth/session', jar });
    assert.equal(session.statusCode, 503);
    assert.equal(session.json().error, 'SESSION_STORE_UNAVAILABLE');
    const login = await h.login('ada@example.org');
    assert.equal(login.res.statusCode, 503);
    assert.match(login.res.headers['content-type'] as string, /application\/json/);
    assert.ok(['DATABASE_UNAVAILABLE', 'SESSION_STORE_UNAVAILABLE'].includes(login.res.json().error), login.res.body);
    assert.equal(login.jar.cookie, undefined);
    const hook = await h.signedWebhook(paymentEvent('00000000-0000-4000-8000-000000000000'));
    assert.equal(hook.statusCode, 503);
    assert.equal(hook.json().error, 'DATABASE_UNAVAILABLE');
    assert.equal(hook.headers['retry-after'], '5');
    // Event delivery during the outage pauses and says so; it never rejects (CI once saw
    // "Connection terminated unexpectedly" escape from it here).
    const rejected: unknown[] = [];
    const onRejected = (e: unknown) => rejected.push(e);
    process.on('unhandledRejection', onRejected);
    t.after(() => process.off('unhandledRejection', onRejected));
    await h.app.events.drain();
    assert.ok(
      h.logs.lines().some((l) => l.event === 'events.delivery_unavailable'),
      'the paused delivery is logged',
    );
    assert.deepEqual(uncaught, []);
    assert.deepEqual(rejected, []);
    assert.ok(
      h.logs.lines().some((l) => l.event === 'database.connection_lost'),
      'the lost connection is logged',
    );

    await server.start();
    const back = await h.request({ method: 'GET', url: '/auth/session', jar });
    assert.equal(back.statusCode, 200);
    assert.equal(back.json().authenticated, true);
    assert.equal((await h.login('ada@example.org')).res.statusCode, 200);
    // Delivery resumes by itself: every subscriber's cursor reaches the end of the log.
    await h.app.events.drain();
    const last = await h.opened.db
      .selectFrom('bridge_events')
      .select((eb) => eb.fn.max('seq').as('seq'))
      .executeTakeFirst();
    for (const s of await h.app.events.status()) assert.equal(String(s.last_seq), String(last?.seq ?? 0), s.subscriber);
  });
});

describe('decision B17: a connection cut mid-query (a network failure, no goodbye from the server)', () => {
  it('rejects the query in flight and does not end the process', async (t) => {
    const server = await startPrivatePostgres();
    t.after(() => server.close());
    const target = new URL(server.url);
    // A TCP relay on 127.0.0.1 whose sockets the test destroys: the client sees its socket end
    // without an ErrorResponse, so pg both rejects the query and emits `error` on the client.
    const sockets = new Set<import('node:net').Socket>();
    const relay = createServer((inbound) => {
      const outbound = connect(Number(target.port), target.hostname);
      sockets.add(inbound).add(outbound);
      inbound.pipe(outbound).pipe(inbound);
      inbound.on('error', () => undefined);
      outbound.on('error', () => undefined);
    });
    await new Promise<void>((r) => relay.listen(0, '127.0.0.1', r));
    // Whatever the test's outcome, the relay's connections end so that its close returns.
    t.after(
      () =>
        new Promise<void>((r) => {
          for (const socket of sockets) socket.destroy();
          relay.close(() => r());
        }),
    );
    const via = new URL(server.url);
    via.port = String((relay.address() as AddressInfo).port);
    const h = await bridge(BACKENDS[0], { DATABASE_URL: via.toString(), SESSION_STORE: 'database' });
    t.after(() => h.close());
    const uncaught: Error[] = [];
    const onUncaught = (e: Error) => uncaught.push(e);
    process.on('uncaughtException', onUncaught);
    t.after(() => process.off('uncaughtException', onUncaught));
    const inFlight = sql`select pg_sleep(30)`.execute(h.opened.db).then(
      () => undefined,
      (e: unknown) => e,
    );
    // Cut only once the query runs on the server: under load the pool may take longer than any fixed
    // wait to send it, and a query sent after the cut would just sleep its 30 s.
    const direct = new pg.Client({ connectionString: server.url });
    await direct.connect();
    try {
      for (let i = 0; i < 400; i++) {
        const { rows } = await direct.query<{ n: number }>(
          `select count(*)::int as n from pg_stat_activity where state = 'active' and query like 'select pg_sleep(30)%'`,
        );
        if (rows[0]!.n > 0) break;
        await new Promise((r) => setTimeout(r, 50));
      }
    } finally {
      await direct.end();
    }
    for (const socket of sockets) socket.destroy();
    const error = await inFlight;
    assert.ok(error instanceof Error && /Connection terminated unexpectedly/.test(error.message), String(error));
    await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(uncaught, [], 'the client error event had a listener');
    // New connections through the relay work again.
    assert.equal((await h.request({ method: 'GET', url: '/auth/session' })).statusCode, 200);
  });
});

describe('decision B18: one bridge per DATA_DIR', () => {
  const main = new URL('../src/main.ts', import.meta.url).pathname;
  const start = async (dir: string): Promise<{ child: ChildProcess; output: () => string; started: Promise<void> }> => {
    const port = await freePort();
    const child = spawn(process.execPath, [...START_DEV_FLAGS, main], {
      env: {
        PATH: process.env.PATH,
        NODE_ENV: 'development',
        DATA_DIR: dir,
        PORT: String(port),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let exited = false;
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.once('exit', () => (exited = true));
    // Started = answering /health (bounded: 60 s).
    const started = (async () => {
      for (let i = 0; i < 600; i++) {
        if (exited) throw new Error(`exited: ${out}`);
        const ok = await fetch(`http://127.0.0.1:${port}/health`).then(
          (r) => r.ok,
          () => false,
        );
        if (ok) return;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error(`not started: ${out}`);
    })();
    started.catch(() => undefined);
    return { child, output: () => out, started };
  };

  it('a second process on the same DATA_DIR refuses to start with a clear message; a killed one leaves no stuck lock', async (t) => {
    const dir = await seededDataDir('bridge-lock-');
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const first = await start(dir);
    t.after(() => first.child.kill('SIGKILL'));
    await first.started;

    const second = await start(dir);
    t.after(() => second.child.kill('SIGKILL'));
    const [code] = (await once(second.child, 'exit')) as [number];
    assert.equal(code, 1);
    assert.match(second.output(), new RegExp(`bridge: .*in use by another process \\(PID ${first.child.pid}\\)`));

    first.child.kill('SIGKILL');
    await once(first.child, 'exit');
    const third = await start(dir);
    t.after(() => third.child.kill('SIGKILL'));
    await third.started;
    third.child.kill('SIGTERM');
    await once(third.child, 'exit');
  });
});
