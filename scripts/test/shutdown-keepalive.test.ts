// Decision R27: a SIGTERM to `npm start` under load from keep-alive clients cuts no request. Each run
// starts the platform (npm start, as a process manager does), loads the gateway, the bridge and the
// notification service directly with Node's fetch (its agent keeps connections alive) and curl (a
// process sends a batch over one connection), POSTs that change state among the requests, signals
// npm's PID in the middle, and counts: every request got a complete answer or had its connection
// refused (never sent); none was reset; every answer is a 2xx (served during the close, not 503); every
// acknowledged POST is found applied. Before R27 each run reset 1 to 9 requests.
// Decision R55: the one reset a single listener cannot prevent, a connection the kernel completed in the
// instant of the listener's close, is told apart by the service's drain.closed line (the connections it
// served): a curl reset whose local port the service never served was never read; it must not have been
// applied, and there is at most one per start.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openDatabase } from '../../services/bridge/src/core/db/connect.ts';
import { signPayload } from '../../services/bridge/src/features/payments/signature.ts';
import { seededDataDir } from '@domdao/bridge-service/testing/embedded-template';
import { DEV_NOTIFICATION_TOKEN, DEV_WEBHOOK_SECRET } from '../dev-defaults.ts';
import { curlLoop, fetchLoop, newTally, type LoadRequest, type RunState, type Tally } from './keepalive-load.ts';
import { endLeftovers, startPlatform, stubSend, stubSends, unlessHung } from '@domdao/test-helpers/npm-start';

const RUNS = 10;
/** Requests answered before the signal; those sent after it come on top. */
const BEFORE_SIGNAL = 100;

/** Round-robin over request makers. */
function mix(...makers: Array<() => LoadRequest>): () => LoadRequest {
  let i = 0;
  return () => makers[i++ % makers.length]!();
}

const health = (base: string): LoadRequest => ({ method: 'GET', url: `${base}/health` });

/** A signed payment event of a type the bridge records (webhook_events) and acknowledges. */
function webhook(base: string): LoadRequest {
  const id = `evt_r27_${randomUUID()}`;
  const body = JSON.stringify({ id, type: 'r27.load' });
  return {
    method: 'POST',
    url: `${base}/api/webhooks/payments`,
    headers: {
      'content-type': 'application/json',
      'payment-signature': signPayload(DEV_WEBHOOK_SECRET, Math.floor(Date.now() / 1000), body),
    },
    body,
    tag: `event ${id}`,
  };
}

/** A send in stub mode: applied when an email.stub_send line carries its request id. */
function send(url: string): LoadRequest {
  const { id, ...request } = stubSend(url, DEV_NOTIFICATION_TOKEN);
  return { ...request, tag: `send ${id}` };
}

/** One run: the platform started, loaded, signalled, and what every request came to. */
async function run(data: string): Promise<{
  tally: Tally;
  exit: { code: number | null; signal: NodeJS.Signals | null };
  stubSends: Set<string>;
  closes: string[];
  /** Whether a reset was on a connection its service never served (R55): a curl reset whose port drain.closed lacks. */
  neverServed: (reset: Tally['resets'][number]) => boolean;
  /** The services that logged drain.closed. */
  drained: string[];
}> {
  const { s, gateway, bridge, notification } = await startPlatform(data);
  try {
    const tally = newTally();
    const state: RunState = { signalledAt: undefined };
    const loops = Promise.all([
      fetchLoop(
        mix(
          () => health(gateway),
          () => webhook(gateway),
          () => send(`${gateway}/notify/api/v1/send`),
        ),
        tally,
        state,
      ),
      fetchLoop(
        mix(
          () => webhook(gateway),
          () => health(gateway),
        ),
        tally,
        state,
      ),
      fetchLoop(
        mix(
          () => send(`${gateway}/notify/api/v1/send`),
          () => health(gateway),
        ),
        tally,
        state,
      ),
      fetchLoop(
        mix(
          () => health(bridge),
          () => webhook(bridge),
        ),
        tally,
        state,
      ),
      fetchLoop(() => webhook(bridge), tally, state),
      fetchLoop(() => send(`${notification}/api/v1/send`), tally, state),
      curlLoop(
        mix(
          () => health(gateway),
          () => webhook(gateway),
          () => send(`${gateway}/notify/api/v1/send`),
        ),
        8,
        tally,
        state,
      ),
      curlLoop(
        mix(
          () => webhook(bridge),
          () => health(bridge),
        ),
        8,
        tally,
        state,
      ),
      curlLoop(() => send(`${notification}/api/v1/send`), 8, tally, state),
    ]);
    await unlessHung(
      new Promise<void>((resolve) => {
        const check = () => (tally.answered >= BEFORE_SIGNAL ? resolve() : setTimeout(check, 5));
        check();
      }),
      'the load',
      s,
    );
    state.signalledAt = Date.now();
    process.kill(s.npm.pid!, 'SIGTERM');
    const exit = await unlessHung(s.exited, 'npm exiting', s);
    // Every loop ends at its first refused connection, which comes once the platform has stopped.
    await unlessHung(loops, 'the clients ending', s);
    const lines = s.output().split('\n');
    // How long each part took to close, newest first (R14): says which service was closing when a request was reset.
    const closes = lines.filter((line) => /platform: (closed|closing|SIGTERM)/.test(line));
    // Each service's drain.closed line (R55): the peer ports of every connection its close served, by base URL.
    const bases = new Map([
      ['gateway', gateway],
      ['bridge', bridge],
      ['notification', notification],
    ]);
    const served = new Map<string, Set<number>>();
    for (const line of lines.filter((l) => l.includes('"drain.closed"'))) {
      const { service, peers } = JSON.parse(line) as { service: string; peers: string[] };
      served.set(bases.get(service)!, new Set(peers.map((p) => Number(p.slice(p.lastIndexOf(':') + 1)))));
    }
    const neverServed = (r: Tally['resets'][number]) => {
      const ports = served.get(new URL(r.url).origin);
      return r.localPort !== undefined && ports !== undefined && !ports.has(r.localPort);
    };
    const drained = [...bases].filter(([, base]) => served.has(base)).map(([service]) => service);
    return { tally, exit, stubSends: stubSends(s.output()), closes, neverServed, drained };
  } finally {
    await endLeftovers(s.marker);
  }
}

describe('decision R27: a SIGTERM to npm start under keep-alive load cuts no request', () => {
  let data = '';
  before(async () => {
    data = await seededDataDir('domdao-keepalive-');
  });
  after(() => rmSync(data, { recursive: true, force: true }));

  it(`${RUNS} runs of Node's fetch and curl on the gateway, the bridge and the notification service, SIGTERM to npm amid at least ${BEFORE_SIGNAL} requests: each request answered 2xx or its connection refused, none reset; each acknowledged POST applied`, async (t) => {
    const events: string[] = [];
    const resets: Array<Tally['resets'][number] & { run: number }> = [];
    /** Resets on connections the service never served (R55): their POSTs' tags, to check none was applied. */
    const unread: Array<Tally['resets'][number] & { run: number }> = [];
    for (let i = 0; i < RUNS; i++) {
      const { tally, exit, stubSends, closes, neverServed, drained } = await run(data);
      const runUnread = tally.resets.filter(neverServed);
      const runServed = tally.resets.filter((r) => !neverServed(r));
      t.diagnostic(
        `run ${i + 1}: ${tally.sent} requests, ${tally.answered} answered ${JSON.stringify(tally.statuses)}, ${tally.refused} refused, ${tally.resets.length} reset (${runUnread.length} on a connection never served, R55); exit ${exit.code}`,
      );
      if (tally.resets.length > 0)
        t.diagnostic(`run ${i + 1}: ${JSON.stringify(tally.resets)}; the platform's close: ${closes.join(' | ')}`);
      assert.deepEqual(drained, ['gateway', 'bridge', 'notification'], `run ${i + 1}: each service logs drain.closed`);
      assert.ok(runUnread.length <= 1, `run ${i + 1}: at most one reset at the listener's close instant (R55)`);
      assert.deepEqual(
        runUnread.filter((r) => r.tag?.startsWith('send ') && stubSends.has(r.tag.slice(5))),
        [],
        `run ${i + 1}: a send reset unread was not made`,
      );
      unread.push(...runUnread.map((r) => ({ ...r, run: i + 1 })));
      resets.push(...runServed.map((r) => ({ ...r, run: i + 1 })));
      assert.deepEqual(exit, { code: 0, signal: null }, `run ${i + 1}: npm start exits 0`);
      assert.ok(tally.sent >= BEFORE_SIGNAL, `run ${i + 1}: ${tally.sent} requests`);
      assert.deepEqual(
        Object.keys(tally.statuses).filter((status) => !/^2\d\d$/.test(status)),
        [],
        `run ${i + 1}: every answer is a 2xx: ${JSON.stringify(tally.statuses)}`,
      );
      const sends = tally.acknowledged.filter((tag) => tag.startsWith('send ')).map((tag) => tag.slice(5));
      assert.ok(sends.length > 0);
      assert.deepEqual(
        sends.filter((id) => !stubSends.has(id)),
        [],
        `run ${i + 1}: every acknowledged send was made (email.stub_send)`,
      );
      events.push(...tally.acknowledged.filter((tag) => tag.startsWith('event ')).map((tag) => tag.slice(6)));
    }
    assert.deepEqual(resets, [], 'no request reset on a connection the service served');
    if (unread.length > 0) t.diagnostic(`reset unread at a listener's close (R55): ${JSON.stringify(unread)}`);
    // The bridge's own database, once every run has stopped: each acknowledged event is recorded.
    const database = await openDatabase({ dir: join(data, 'pglite') });
    try {
      const recorded = new Set<string>();
      for (let i = 0; i < events.length; i += 500) {
        const rows = await database.db
          .selectFrom('webhook_events')
          .select('event_id')
          .where('event_id', 'in', events.slice(i, i + 500))
          .execute();
        for (const row of rows) recorded.add(row.event_id);
      }
      assert.ok(events.length > 0);
      assert.deepEqual(
        events.filter((id) => !recorded.has(id)),
        [],
        'every acknowledged payment event is recorded',
      );
      const unreadEvents = unread.flatMap((r) => (r.tag?.startsWith('event ') ? [r.tag.slice(6)] : []));
      if (unreadEvents.length > 0) {
        const applied = await database.db
          .selectFrom('webhook_events')
          .select('event_id')
          .where('event_id', 'in', unreadEvents)
          .execute();
        assert.deepEqual(applied, [], 'a payment event reset unread was not recorded');
      }
    } finally {
      await database.close();
    }
  });
});
