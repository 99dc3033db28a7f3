// Decisions R14, R27, R48 and R55 (drainOnClose): a close answers every request that reaches a connection.
// The listener stops first; the connections already open are served on, each answer saying
// `Connection: close`; the server closes a connection itself only once it has been quiet for the
// idle bound since its last answer, so neither a client's spare connection nor one left idle after its
// answer holds the close, and a client whose process was starved for a while after its answer is served.
import assert from 'node:assert/strict';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { describe, it } from 'node:test';
import Fastify from 'fastify';
import { drainOnClose, type DrainOptions } from '../src/index.ts';
import { PEERS_LOGGED } from '../src/drain.ts';

async function app(options: DrainOptions = {}) {
  // As every service builds it: requests on open connections are served while closing, not 503'd.
  const logs: string[] = [];
  const a = Fastify({
    return503OnClosing: false,
    logger: { level: 'info', stream: { write: (line: string) => void logs.push(line) } },
  });
  drainOnClose(a, options);
  let release: () => void = () => undefined;
  let entered: () => void = () => undefined;
  const held = new Promise<void>((r) => (release = r));
  const inHandler = new Promise<void>((r) => (entered = r));
  a.get('/slow', async () => {
    entered();
    await held;
    return { ok: true };
  });
  a.get('/fast', async () => ({ ok: true }));
  a.post('/count', async () => ({ counted: ++counted }));
  let counted = 0;
  // Runs after drainOnClose's own preClose hook: the listener is closed.
  let stopped: () => void = () => undefined;
  const listenerClosed = new Promise<void>((r) => (stopped = r));
  a.addHook('preClose', async () => stopped());
  await a.listen({ port: 0, host: '127.0.0.1' });
  return {
    a,
    port: (a.server.address() as AddressInfo).port,
    release,
    inHandler,
    listenerClosed,
    counted: () => counted,
    /** The app's log lines, parsed. */
    logs: () => logs.map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}

/** A raw HTTP/1.1 client on one socket: what it received, and when the server closed it. */
async function rawClient(port: number) {
  const socket: Socket = connect({ host: '127.0.0.1', port });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  let received = '';
  const errors: string[] = [];
  socket.setEncoding('utf8').on('data', (d: string) => (received += d));
  socket.on('error', (e: NodeJS.ErrnoException) => errors.push(e.code ?? e.message));
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  /** Resolves with the next complete answer (headers and Content-Length bytes of body). */
  const answer = (from = received.length) =>
    new Promise<string>((resolve, reject) => {
      const check = () => {
        const text = received.slice(from);
        const end = text.indexOf('\r\n\r\n');
        const length = /\r\ncontent-length: (\d+)\r\n/i.exec(text)?.[1];
        if (end >= 0 && length !== undefined && Buffer.byteLength(text.slice(end + 4)) >= Number(length)) {
          socket.off('data', check);
          resolve(text);
        }
      };
      socket.on('data', check);
      void closed.then(() =>
        reject(
          new Error(
            `closed before a complete answer (${errors.join(', ') || 'no error'}): ${JSON.stringify(received.slice(from))}`,
          ),
        ),
      );
      check();
    });
  return { socket, received: () => received, errors, closed, answer };
}

const request = (method: string, path: string) =>
  `${method} ${path} HTTP/1.1\r\nHost: drain.test\r\nContent-Length: 0\r\n\r\n`;

/** 'closed', or 'held' if the close did not finish within 10 s (a guard, not a speed measure). */
const closeOutcome = (close: Promise<unknown>) =>
  Promise.race([close.then(() => 'closed'), new Promise((r) => setTimeout(r, 10_000).unref()).then(() => 'held')]);

describe('decisions R14, R27, R48: the close drains requests, not connections', () => {
  it('decision R14: a connection that never sent a request does not hold the close', async () => {
    const { a, port } = await app({ idleMs: 50 });
    const spare = await rawClient(port);
    assert.equal(await closeOutcome(a.close()), 'closed');
    await spare.closed;
  });

  it('decision R14: a keep-alive connection idle after its answer does not hold the close', async () => {
    const { a, port } = await app({ idleMs: 50 });
    const res = await fetch(`http://127.0.0.1:${port}/fast`);
    assert.equal(res.status, 200);
    await res.text();
    assert.equal(await closeOutcome(a.close()), 'closed');
  });

  it('decision R14: a request in flight when the close begins is answered, with Connection: close, before the close ends', async () => {
    const { a, port, release, inHandler, listenerClosed } = await app();
    const pending = fetch(`http://127.0.0.1:${port}/slow`);
    await inHandler;
    const closing = a.close();
    await listenerClosed;
    release();
    const res = await pending;
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('connection'), 'close');
    assert.deepEqual(await res.json(), { ok: true });
    assert.equal(await closeOutcome(closing), 'closed');
  });

  it('decision R27: a request sent on a kept-alive connection once the close has begun is served, answered with Connection: close, and the connection ends', async () => {
    const { a, port, listenerClosed, counted } = await app();
    const client = await rawClient(port);
    const first = client.answer();
    client.socket.write(request('GET', '/fast'));
    assert.doesNotMatch(await first, /\r\nconnection: close\r\n/i, 'kept alive before the close');
    const closing = a.close();
    await listenerClosed;
    // A client that picked this idle connection for its next request just as the signal came.
    const second = client.answer();
    client.socket.write(request('POST', '/count'));
    const answer = await second;
    assert.match(answer, /^HTTP\/1\.1 200 /);
    assert.match(answer, /\r\nconnection: close\r\n/i);
    assert.match(answer, /\{"counted":1\}$/);
    assert.equal(counted(), 1, 'the POST was applied');
    await client.closed;
    assert.deepEqual(client.errors, [], 'closed cleanly, not reset');
    assert.equal(await closeOutcome(closing), 'closed');
  });

  it('decision R27: once the close has begun a new connection is refused, so nothing is sent on it', async () => {
    const { a, port, listenerClosed } = await app();
    const held = await rawClient(port);
    const closing = a.close();
    await listenerClosed;
    await assert.rejects(rawClient(port), (e: NodeJS.ErrnoException) => e.code === 'ECONNREFUSED');
    held.socket.destroy();
    assert.equal(await closeOutcome(closing), 'closed');
  });

  it('decision R27: a request whose first bytes arrived before the idle bound ran out is not cut, and is answered when the rest arrives', async () => {
    const { a, port, listenerClosed } = await app({ idleMs: 20 });
    const client = await rawClient(port);
    const closing = a.close();
    await listenerClosed;
    const pending = client.answer();
    const text = request('GET', '/fast');
    client.socket.write(text.slice(0, 10));
    // Well past the idle bound (20 ms) and its checks: the connection has read bytes, so it stays.
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(client.socket.destroyed, false);
    client.socket.write(text.slice(10));
    const answer = await pending;
    assert.match(answer, /^HTTP\/1\.1 200 /);
    assert.match(answer, /\r\nconnection: close\r\n/i);
    await client.closed;
    assert.equal(await closeOutcome(closing), 'closed');
  });

  it('decision R48: a client that sends its next request on a kept-alive connection 2 s after its answer (its process starved across the close) is served; R27 closed the connection at 1 s', async () => {
    // The platform's own bound (IDLE_CLOSE_MS), not a test's.
    const { a, port, listenerClosed, counted } = await app();
    const client = await rawClient(port);
    const first = client.answer();
    client.socket.write(request('GET', '/fast'));
    assert.doesNotMatch(await first, /\r\nconnection: close\r\n/i, 'kept alive before the close');
    const answeredAt = performance.now();
    const closing = a.close();
    await listenerClosed;
    // The client's process gets no CPU: it neither reads nor writes until 2 s after the answer.
    await new Promise((r) => setTimeout(r, 2000 - (performance.now() - answeredAt)));
    assert.equal(client.socket.readableEnded, false, 'the server has not closed the connection');
    const second = client.answer();
    client.socket.write(request('POST', '/count'));
    const answer = await second;
    assert.match(answer, /^HTTP\/1\.1 200 /);
    assert.match(answer, /\r\nconnection: close\r\n/i);
    assert.equal(counted(), 1, 'the POST was applied');
    await client.closed;
    assert.deepEqual(client.errors, [], 'closed cleanly, not reset');
    assert.equal(await closeOutcome(closing), 'closed');
  });

  it('decision R48: a connection already quiet for the idle bound when the close begins is closed at once, not after another bound', async () => {
    const { a, port } = await app({ idleMs: 2000 });
    const client = await rawClient(port);
    const first = client.answer();
    client.socket.write(request('GET', '/fast'));
    await first;
    await new Promise((r) => setTimeout(r, 2100));
    const start = performance.now();
    assert.equal(await closeOutcome(a.close()), 'closed');
    const took = performance.now() - start;
    assert.ok(took < 1000, `the close took ${Math.round(took)} ms (a second bound from the close would be 2000)`);
    await client.closed;
  });

  it('decision R55: the close logs every connection it served (drain.closed); one closed before the close and one refused after it are not named', async () => {
    const { a, port, listenerClosed, logs } = await app({ idleMs: 50 });
    const gone = await rawClient(port);
    const goneAt = `127.0.0.1:${gone.socket.localPort}`;
    gone.socket.destroy();
    await new Promise((r) => setTimeout(r, 50));
    const open = await rawClient(port);
    const openAt = `127.0.0.1:${open.socket.localPort}`;
    const closing = a.close();
    await listenerClosed;
    await assert.rejects(rawClient(port), (e: NodeJS.ErrnoException) => e.code === 'ECONNREFUSED');
    assert.equal(await closeOutcome(closing), 'closed');
    const closed = logs().filter((line) => line.event === 'drain.closed');
    assert.equal(closed.length, 1);
    assert.deepEqual(closed[0]!.peers, [openAt]);
    assert.equal(closed[0]!.connections, 1);
    assert.notEqual(goneAt, openAt, 'two connections, two ports');
  });

  for (const open of [PEERS_LOGGED, PEERS_LOGGED + 1])
    it(`decision R55: with ${open} connections open at the close, drain.closed counts ${open} and names ${Math.min(open, PEERS_LOGGED)} (PEERS_LOGGED)`, async () => {
      const { a, port, logs } = await app({ idleMs: 50 });
      const clients = await Promise.all(Array.from({ length: open }, () => rawClient(port)));
      const local = new Set(clients.map((c) => `127.0.0.1:${c.socket.localPort}`));
      assert.equal(await closeOutcome(a.close()), 'closed');
      await Promise.all(clients.map((c) => c.closed));
      const [closed] = logs().filter((line) => line.event === 'drain.closed');
      assert.equal(closed!.connections, open);
      const peers = closed!.peers as string[];
      assert.equal(peers.length, Math.min(open, PEERS_LOGGED));
      assert.ok(peers.every((p) => local.has(p)));
    });
});
