// Decision V32: GET /api/governance/live, the web app's server-sent events, read with Node's own
// fetch as a client reads a stream: a vote through the bridge and the proposal's status changes
// arrive as `proposal` events (never the voter), a stream for one proposal gets only its events,
// streams are refused one past LIVE_MAX_STREAMS, a comment line keeps an idle stream open, and a
// graceful shutdown ends open streams instead of waiting for them.
import assert from 'node:assert/strict';
import { connect, type AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { IDLE_CLOSE_MS } from '@domdao/service-kit';
import { bridge, type Bridge, type Jar } from './harness.ts';

const HOUR_MS = 3_600_000;
let h: Bridge;
let base = '';
let voter: { jar: Jar; principal: string };

/** A stream read as EventSource would: events (with their id) and comment lines, as they arrive. */
async function open(path: string) {
  let ac = new AbortController();
  let res = await fetch(`${base}${path}`, { signal: ac.signal, headers: { accept: 'text/event-stream' } });
  // A stream an earlier test closed frees its place when the server sees the close: wait for it.
  for (let i = 0; res.status === 503 && i < 50; i++) {
    await res.body?.cancel();
    await new Promise((r) => setTimeout(r, 100));
    ac = new AbortController();
    res = await fetch(`${base}${path}`, { signal: ac.signal, headers: { accept: 'text/event-stream' } });
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
      .map((b) => ({ id: /^id: (\d+)$/m.exec(b)?.[1], ...(JSON.parse(/^data: (.*)$/m.exec(b)![1]!) as { type: string; proposal_id: string }) }));
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
  const { principal } = await h.opened.db.selectFrom('users').select('principal').where('id', '=', userId).executeTakeFirstOrThrow();
  assert.ok('Ok' in (await c.user.record_kyc(principal, true)));
  assert.ok('Ok' in (await c.user.upgrade_membership_to_active({ principal, kyc_proof: new Uint8Array([1]), payment_proof: new Uint8Array([2]) })));
  return principal;
}

async function proposal(title: string): Promise<string> {
  const r = await h.opened.canisters.clients.governance.create_proposal({ title, body: 'b', category: 'General' });
  assert.ok('Ok' in r);
  return String(r.Ok);
}

describe('decision V32: live proposal changes as server-sent events', () => {
  before(async () => {
    h = await bridge(undefined, { LIVE_POLL_MS: '100', LIVE_MAX_STREAMS: '3', LIVE_HEARTBEAT_SECONDS: '1' });
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
    await stream.until(() => stream.events().some((e) => e.type === 'ProposalOpened' && e.proposal_id === id), 'ProposalOpened');
    voter.jar = (await h.login('ada@domdao.example')).jar;
    const vote = await h.request({ method: 'POST', url: '/api/governance/vote', payload: { proposal_id: id, vote: 'Yes' }, jar: voter.jar });
    assert.equal(vote.statusCode, 200, vote.body);
    await stream.until(() => stream.events().some((e) => e.type === 'MemberVoted' && e.proposal_id === id), 'MemberVoted');
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
      (await h.request({ method: 'POST', url: '/api/governance/vote', payload: { proposal_id: other, vote: 'No' }, jar: voter.jar })).statusCode,
      200,
    );
    assert.equal(
      (await h.request({ method: 'POST', url: '/api/governance/vote', payload: { proposal_id: mine, vote: 'Yes' }, jar: voter.jar })).statusCode,
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

  it('LIVE_MAX_STREAMS (3 here): the third stream is served, the fourth is 503 LIVE_STREAMS_FULL with Retry-After and a log line; a closed stream frees its place', async () => {
    const streams = [await open('/api/governance/live'), await open('/api/governance/live'), await open('/api/governance/live')];
    assert.deepEqual(
      streams.map((s) => s.res.status),
      [200, 200, 200],
    );
    const refused = await fetch(`${base}/api/governance/live`);
    assert.equal(refused.status, 503);
    assert.equal(refused.headers.get('retry-after'), '10');
    assert.equal(((await refused.json()) as { error: string }).error, 'LIVE_STREAMS_FULL');
    assert.ok(h.logs.lines().some((l) => l.event === 'live.stream_refused'));
    streams[0]!.close();
    await streams[0]!.ended;
    const again = await open('/api/governance/live');
    assert.equal(again.res.status, 200, 'a place was freed');
    for (const s of [...streams.slice(1), again]) s.close();
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
