// Decision V32: GET /api/governance/live, the web app's server-sent events, read with Node's own
// fetch as a client reads a stream: a vote through the bridge and the proposal's status changes
// arrive as `proposal` events (never the voter), a stream for one proposal gets only its events,
// a comment line keeps an idle stream open, and a graceful shutdown ends open streams instead of
// waiting for them. Decision V37: visitors without a session share part of LIVE_MAX_STREAMS, the
// rest is kept for members, and one client holds LIVE_STREAMS_PER_CLIENT streams at most. Decision
// V38: a stream whose reader does not read is dropped once LIVE_MAX_BUFFER_BYTES wait.
import assert from 'node:assert/strict';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import Fastify, { type FastifyPluginAsync } from 'fastify';
import { IDLE_CLOSE_MS } from '@domdao/service-kit';
import { captureLogs } from '@domdao/test-helpers';
import type { EventType } from '../src/core/events/bus.ts';
import governanceLive, { type GovernanceLiveOptions } from '../src/features/governance-live/routes.ts';
import { visitorKey } from '../src/features/governance-live/admission.ts';
import { BoundedWriter } from '../src/features/governance-live/slow-readers.ts';
import { bridge, type Bridge, type Jar } from './harness.ts';

const HOUR_MS = 3_600_000;
let h: Bridge;
let base = '';
let voter: { jar: Jar; principal: string };

/** A stream read as EventSource would: events (with their id) and comment lines, as they arrive. */
async function open(path: string, extra: Record<string, string> = {}) {
  const headers = { accept: 'text/event-stream', ...extra };
  let ac = new AbortController();
  let res = await fetch(`${base}${path}`, { signal: ac.signal, headers });
  // A stream an earlier test closed frees its place when the server sees the close: wait for it.
  for (let i = 0; (res.status === 503 || res.status === 429) && i < 50; i++) {
    await res.body?.cancel();
    await new Promise((r) => setTimeout(r, 100));
    ac = new AbortController();
    res = await fetch(`${base}${path}`, { signal: ac.signal, headers });
  }
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  const blocks: string[] = [];
  const waiters: Array<() => void> = [];
  const pump = (async () => {
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        buffer += decoder.decode(value, { stream: true });
        let at: number;
        while ((at = buffer.indexOf('\n\n')) >= 0) {
          blocks.push(buffer.slice(0, at));
          buffer = buffer.slice(at + 2);
          for (const w of waiters.splice(0)) w();
        }
      }
    } catch {
      // aborted
    }
  })();
  const events = () =>
    blocks
      .filter((b) => b.includes('event: proposal'))
      .map((b) => ({
        id: /^id: (\d+)$/m.exec(b)?.[1],
        ...(JSON.parse(/^data: (.*)$/m.exec(b)![1]!) as { type: string; proposal_id: string }),
      }));
  /** Waits (on the stream, not a clock) until `done` holds; fails after 20 s. */
  const until = async (done: () => boolean, what: string) => {
    const deadline = Date.now() + 20_000;
    while (!done()) {
      if (Date.now() > deadline) throw new Error(`${what}: not seen; got ${JSON.stringify(blocks)}`);
      await Promise.race([new Promise<void>((r) => waiters.push(r)), new Promise((r) => setTimeout(r, 250))]);
    }
  };
  return { res, blocks, events, until, ended: pump, close: () => ac.abort() };
}

async function activate(userId: string): Promise<string> {
  const c = h.opened.canisters.clients;
  const { principal } = await h.opened.db
    .selectFrom('users')
    .select('principal')
    .where('id', '=', userId)
    .executeTakeFirstOrThrow();
  assert.ok('Ok' in (await c.user.record_kyc(principal, true)));
  assert.ok(
    'Ok' in
      (await c.user.upgrade_membership_to_active({
        principal,
        kyc_proof: new Uint8Array([1]),
        payment_proof: new Uint8Array([2]),
      })),
  );
  return principal;
}

/** bridge_live_streams_refused_total by reason, as scraped now. */
async function refusals(): Promise<Record<string, number>> {
  const text = await h.app.metrics.text();
  return Object.fromEntries(
    [...text.matchAll(/^bridge_live_streams_refused_total\{reason="(\w+)"\} (\d+)$/gm)].map((m) => [
      m[1]!,
      Number(m[2]),
    ]),
  );
}

async function proposal(title: string): Promise<string> {
  const r = await h.opened.canisters.clients.governance.create_proposal({ title, body: 'b', category: 'General' });
  assert.ok('Ok' in r);
  return String(r.Ok);
}

describe('decision V32: live proposal changes as server-sent events', () => {
  before(async () => {
    h = await bridge(undefined, {
      LIVE_POLL_MS: '100',
      LIVE_MAX_STREAMS: '6',
      LIVE_ANONYMOUS_STREAMS_PERCENT: '50',
      LIVE_STREAMS_PER_CLIENT: '2',
      LIVE_HEARTBEAT_SECONDS: '1',
      // Visitors told apart by the X-Forwarded-For this test sends, as behind the gateway.
      TRUST_PROXY: 'loopback',
    });
    await h.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}`;
    const m = await h.member('ada@domdao.example');
    const principal = await activate(m.user_id);
    voter = { jar: (await h.login('ada@domdao.example')).jar, principal };
  });
  after(() => h.close());

  it('a vote and the opening of voting arrive as events naming the proposal and what happened, never the voter', async () => {
    const id = await proposal('Live one');
    const stream = await open('/api/governance/live');
    assert.equal(stream.res.status, 200);
    assert.equal(stream.res.headers.get('content-type'), 'text/event-stream; charset=utf-8');
    assert.equal(stream.res.headers.get('cache-control'), 'no-store');
    assert.equal(stream.res.headers.get('x-accel-buffering'), 'no');
    await stream.until(() => stream.blocks.some((b) => b.startsWith('retry: 3000')), 'the retry field');
    // Voting opens: the governance follower copies the status change into the event log.
    h.advance(HOUR_MS);
    await h.opened.canisters.platform!.tick();
    await stream.until(
      () => stream.events().some((e) => e.type === 'ProposalOpened' && e.proposal_id === id),
      'ProposalOpened',
    );
    voter.jar = (await h.login('ada@domdao.example')).jar;
    const vote = await h.request({
      method: 'POST',
      url: '/api/governance/vote',
      payload: { proposal_id: id, vote: 'Yes' },
      jar: voter.jar,
    });
    assert.equal(vote.statusCode, 200, vote.body);
    await stream.until(
      () => stream.events().some((e) => e.type === 'MemberVoted' && e.proposal_id === id),
      'MemberVoted',
    );
    assert.ok(!stream.blocks.join('\n').includes(voter.principal), 'the voter is never in the stream');
    const ids = stream.events().map((e) => BigInt(e.id!));
    assert.deepEqual(
      ids,
      [...ids].sort((a, b) => (a < b ? -1 : 1)),
      'ids are the log positions, increasing',
    );
    stream.close();
  });

  it('a stream opened for one proposal gets only its events; a bad proposal_id is 400', async () => {
    const mine = await proposal('Mine');
    const other = await proposal('Other');
    const stream = await open(`/api/governance/live?proposal_id=${mine}`);
    assert.equal(stream.res.status, 200);
    h.advance(HOUR_MS);
    await h.opened.canisters.platform!.tick();
    await stream.until(() => stream.events().some((e) => e.type === 'ProposalOpened'), 'ProposalOpened of mine');
    voter.jar = (await h.login('ada@domdao.example')).jar;
    assert.equal(
      (
        await h.request({
          method: 'POST',
          url: '/api/governance/vote',
          payload: { proposal_id: other, vote: 'No' },
          jar: voter.jar,
        })
      ).statusCode,
      200,
    );
    assert.equal(
      (
        await h.request({
          method: 'POST',
          url: '/api/governance/vote',
          payload: { proposal_id: mine, vote: 'Yes' },
          jar: voter.jar,
        })
      ).statusCode,
      200,
    );
    await stream.until(() => stream.events().some((e) => e.type === 'MemberVoted'), 'the vote on mine');
    assert.ok(
      stream.events().every((e) => e.proposal_id === mine),
      JSON.stringify(stream.events()),
    );
    stream.close();
    const bad = await fetch(`${base}/api/governance/live?proposal_id=abc`);
    assert.equal(bad.status, 400);
    assert.equal(((await bad.json()) as { error: string }).error, 'VALIDATION_ERROR');
  });

  it('decision V37 (LIVE_MAX_STREAMS 6, LIVE_ANONYMOUS_STREAMS_PERCENT 50 so 3 for visitors, LIVE_STREAMS_PER_CLIENT 2 here): visitors fill their share and no more, one client holds two streams, members keep the rest; each refusal has Retry-After, a log line and a metric', async () => {
    const from = (ip: string) => ({ 'x-forwarded-for': ip });
    const refusedBefore = await refusals();
    const refusedNow = async () => {
      const now = await refusals();
      return Object.fromEntries(Object.entries(now).map(([k, v]) => [k, v - (refusedBefore[k] ?? 0)]));
    };
    // One visitor: its second stream is served, its third refused 429, whatever the others do.
    const a = [
      await open('/api/governance/live', from('203.0.113.1')),
      await open('/api/governance/live', from('203.0.113.1')),
    ];
    assert.deepEqual(
      a.map((s) => s.res.status),
      [200, 200],
    );
    const third = await fetch(`${base}/api/governance/live`, { headers: from('203.0.113.1') });
    assert.equal(third.status, 429);
    assert.equal(third.headers.get('retry-after'), '10');
    assert.equal(((await third.json()) as { error: string }).error, 'TOO_MANY_STREAMS');
    // Another visitor takes the share's last place; a third visitor is refused 503: the share is full.
    const b = await open('/api/governance/live', from('203.0.113.2'));
    assert.equal(b.res.status, 200);
    const c = await fetch(`${base}/api/governance/live`, { headers: from('203.0.113.3') });
    assert.equal(c.status, 503);
    assert.equal(c.headers.get('retry-after'), '10');
    assert.equal(((await c.json()) as { error: string }).error, 'LIVE_STREAMS_FULL');
    // Members still get streams (from the same address as a visitor at its limit): counted by account.
    const adaCookie = { cookie: `session=${voter.jar.cookie}`, ...from('203.0.113.1') };
    const m = [await open('/api/governance/live', adaCookie), await open('/api/governance/live', adaCookie)];
    assert.deepEqual(
      m.map((s) => s.res.status),
      [200, 200],
    );
    const adaThird = await fetch(`${base}/api/governance/live`, { headers: adaCookie });
    assert.equal(adaThird.status, 429, 'a member holds LIVE_STREAMS_PER_CLIENT streams too');
    await adaThird.body?.cancel();
    const bob = await h.member('bob-live@domdao.example');
    const bobCookie = { cookie: `session=${bob.jar.cookie}` };
    const b1 = await open('/api/governance/live', bobCookie);
    assert.equal(b1.res.status, 200, "the instance's sixth place");
    const b2 = await fetch(`${base}/api/governance/live`, { headers: bobCookie });
    assert.equal(b2.status, 503, 'one past LIVE_MAX_STREAMS');
    assert.equal(((await b2.json()) as { error: string }).error, 'LIVE_STREAMS_FULL');
    assert.deepEqual(await refusedNow(), { per_client: 2, anonymous_share_full: 1, instance_full: 1 });
    assert.deepEqual(
      h.logs
        .lines()
        .filter((l) => l.event === 'live.stream_refused')
        .slice(-4)
        .map((l) => [l.reason, l.kind]),
      [
        ['per_client', 'anonymous'],
        ['anonymous_share_full', 'anonymous'],
        ['per_client', 'member'],
        ['instance_full', 'member'],
      ],
    );
    assert.match(await h.app.metrics.text(), /^bridge_live_streams\{kind="anonymous"\} 3$/m);
    // A closed visitor's stream frees its place in the share.
    b.close();
    await b.ended;
    const again = await open('/api/governance/live', from('203.0.113.3'));
    assert.equal(again.res.status, 200, 'a place was freed');
    for (const s of [...a, ...m, b1, again]) s.close();
  });

  it('decision V37: a visitor is its address as the bridge sees it, an IPv6 one by its /64', () => {
    assert.equal(visitorKey('203.0.113.7'), '203.0.113.7');
    assert.equal(visitorKey('::ffff:203.0.113.7'), '203.0.113.7');
    assert.equal(visitorKey('2001:db8:1:2::1'), '2001:db8:1:2::/64');
    assert.equal(visitorKey('2001:db8:1:2:aaaa:bbbb:cccc:dddd'), '2001:db8:1:2::/64');
    assert.equal(visitorKey('2001:0db8:0001:0002::9%eth0'), '2001:db8:1:2::/64');
    assert.equal(visitorKey('2001:db8::1'), '2001:db8:0:0::/64');
    assert.notEqual(visitorKey('2001:db8:1:3::1'), visitorKey('2001:db8:1:2::1'));
  });

  it('an idle stream gets a comment line every LIVE_HEARTBEAT_SECONDS (1 here)', async () => {
    const stream = await open('/api/governance/live');
    await stream.until(() => stream.blocks.filter((b) => b === ': heartbeat').length >= 2, 'two heartbeats');
    stream.close();
  });

  it('closing the bridge (SIGTERM does this) ends an open stream instead of waiting for it', async () => {
    const stream = await open('/api/governance/live');
    assert.equal(stream.res.status, 200);
    const outcome = await Promise.race([
      h.app
        .close()
        .then(() => stream.ended)
        .then(() => 'closed'),
      new Promise((r) => setTimeout(r, 15_000).unref()).then(() => 'still waiting on the stream'),
    ]);
    assert.equal(outcome, 'closed');
  });

  it('decision R27: a stream asked for on an open keep-alive connection while the bridge closes is answered and ended at once, not held open', async () => {
    // The real idle bound: the connection stays open for the request its client sends once the listener closed.
    const b = await bridge(undefined, { LIVE_HEARTBEAT_SECONDS: '1' }, { closeIdleMs: IDLE_CLOSE_MS });
    await b.app.listen({ port: 0, host: '127.0.0.1' });
    const socket = connect({ host: '127.0.0.1', port: (b.app.server.address() as AddressInfo).port });
    socket.on('error', () => {});
    try {
      let received = '';
      socket.setEncoding('utf8').on('data', (d: string) => (received += d));
      const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
      socket.write('GET /health HTTP/1.1\r\nHost: bridge.test\r\n\r\n');
      while (!/\r\n\r\n[\s\S]*\}$/.test(received)) await new Promise((r) => setTimeout(r, 5));
      assert.match(received, /^HTTP\/1\.1 200 /);
      assert.doesNotMatch(received, /connection: close/i, 'kept alive');
      received = '';
      const closing = b.app.close();
      // The listener stops first; the connection stays open for the request its client may be sending.
      while (b.app.server.listening) await new Promise((r) => setTimeout(r, 5));
      socket.write('GET /api/governance/live HTTP/1.1\r\nHost: bridge.test\r\nAccept: text/event-stream\r\n\r\n');
      const outcome = await Promise.race([
        Promise.all([closed, closing]).then(() => 'closed'),
        new Promise((r) => setTimeout(r, 15_000).unref()).then(() => 'still waiting on the stream'),
      ]);
      assert.equal(outcome, 'closed');
      assert.match(received, /^HTTP\/1\.1 200 /);
      assert.match(received, /\r\ncontent-type: text\/event-stream; charset=utf-8\r\n/i);
      assert.match(received, /\r\nconnection: close\r\n/i);
      assert.match(received, /retry: 3000\n/);
    } finally {
      // A stream left open would hold the close for good.
      socket.destroy();
      await b.close();
    }
  });
});

/** A reader that reads only when told: the writes it has not taken wait in the stream's buffer. */
function heldReader(highWaterMark: number) {
  const pending: Array<() => void> = [];
  const sink = new Writable({ highWaterMark, decodeStrings: true, write: (_chunk, _enc, cb) => void pending.push(cb) });
  return { sink, readAll: () => pending.splice(0).forEach((cb) => cb()) };
}

describe('decision V38: a reader that falls behind', () => {
  it('LIVE_MAX_BUFFER_BYTES (100 here): exactly 100 bytes waiting keep the stream, 101 drop it, once', () => {
    const { sink } = heldReader(1);
    const drops: number[] = [];
    const w = new BoundedWriter(sink, 100, (buffered) => drops.push(buffered));
    w.event('x'.repeat(60));
    assert.equal(w.behind, true, 'write said the buffer is full');
    w.event('x'.repeat(40));
    assert.deepEqual([sink.writableLength, drops], [100, []], 'at the bound');
    w.event('x');
    assert.deepEqual(drops, [101], 'one byte past');
    w.event('x'.repeat(10));
    assert.deepEqual(drops, [101], 'dropped once; nothing more is written');
    assert.equal(sink.writableLength, 101);
  });

  it('heartbeats are left out while the reader is behind, and written again once it drained', () => {
    const { sink, readAll } = heldReader(16);
    const w = new BoundedWriter(sink, 1000, () => assert.fail('not dropped'));
    w.event('x'.repeat(20));
    assert.equal(w.behind, true);
    w.heartbeat(': heartbeat\n\n');
    assert.equal(sink.writableLength, 20, 'no heartbeat queued behind the event');
    readAll();
    readAll();
    assert.equal(w.behind, false, "'drain' came");
    w.heartbeat(': heartbeat\n\n');
    assert.equal(w.written, 20 + 13);
  });

  it('over HTTP: a client that never reads is dropped once LIVE_MAX_BUFFER_BYTES wait, with a log line and bridge_live_streams_dropped_total; a client that reads keeps its stream', async () => {
    // The plugin alone, fed by an event source of its own so the kernel's buffers (megabytes on
    // loopback) can be filled quickly: every event is a `proposal` change of proposal 7.
    let last = 0;
    const listeners = new Set<() => void>();
    const events = {
      lastSeq: async () => String(last),
      tail: async (after: string, _types: readonly EventType[], limit: number) => {
        // A page is a database round trip: the event loop turns (and sockets drain) between pages.
        await new Promise((r) => setImmediate(r));
        const out = [];
        for (let seq = Number(after) + 1; seq <= last && out.length < limit; seq++)
          out.push({ seq: String(seq), type: 'MemberVoted' as EventType, data: { proposal_id: '7' } });
        return out as never;
      },
      onPublish: (l: () => void) => (listeners.add(l), () => listeners.delete(l)),
    };
    const publish = (n: number) => {
      last += n;
      for (const l of listeners) l();
    };
    const dropped: string[] = [];
    const logs = captureLogs();
    const app = Fastify({ logger: { level: 'warn', stream: logs.stream } });
    await app.register(governanceLive as unknown as FastifyPluginAsync<GovernanceLiveOptions>, {
      events,
      pollMs: 60_000,
      heartbeatMs: 60_000,
      maxStreams: 10,
      maxAnonymousStreams: 5,
      streamsPerClient: 5,
      maxBufferBytes: 65_536,
      signedIn: async () => undefined,
      counters: { refused: () => undefined, dropped: (r: string) => dropped.push(r), open: () => undefined },
      log: app.log,
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const port = (app.server.address() as AddressInfo).port;
    const stuck: Socket = connect({ port, host: '127.0.0.1' });
    const reading: Socket = connect({ port, host: '127.0.0.1' });
    let readBytes = 0;
    try {
      const request = 'GET /api/governance/live HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n';
      const heads = [stuck, reading].map((s) => new Promise<void>((r) => s.once('data', () => r())));
      stuck.write(request);
      reading.write(request);
      await Promise.all(heads);
      stuck.pause();
      reading.on('data', (d: Buffer) => (readBytes += d.length));
      // 200 events a batch until the stream is dropped (bounded: about 36 MiB of events at most).
      for (let batch = 0; dropped.length === 0 && batch < 2000; batch++) {
        publish(200);
        await new Promise((r) => setTimeout(r, 5));
      }
      assert.deepEqual(dropped, ['slow_reader']);
      const line = logs.lines().find((l) => l.event === 'live.stream_dropped')!;
      assert.ok(line, 'live.stream_dropped was logged');
      assert.equal(line.reason, 'slow_reader');
      const buffered = line.buffered_bytes as number;
      assert.ok(
        buffered > 65_536 && buffered < 65_536 + 200,
        `dropped one event past the bound: ${buffered} bytes waiting`,
      );
      console.log(
        `# a client that never reads was dropped after ${((line.written_bytes as number) / 2 ** 20).toFixed(2)} MiB written, ${buffered} bytes waiting in the bridge`,
      );
      // The reading client's stream is untouched: it keeps receiving.
      const seen = readBytes;
      publish(10);
      for (let i = 0; readBytes === seen && i < 200; i++) await new Promise((r) => setTimeout(r, 25));
      assert.ok(readBytes > seen, 'the reading stream still gets events');
    } finally {
      stuck.destroy();
      reading.destroy();
      await app.close();
    }
  });
});
