// Decision R14 (drainOnClose): a close waits for the request in flight and answers it, but a
// connection on which no request has arrived (a client's spare one) does not hold the close until
// Node's headersTimeout; nor does a keep-alive connection left idle after its answer.
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import Fastify from 'fastify';
import { drainOnClose } from '../src/index.ts';

async function app() {
  const a = Fastify();
  drainOnClose(a);
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
  // Runs after drainOnClose's own preClose hook: the close has begun.
  let began: () => void = () => undefined;
  const closeBegan = new Promise<void>((r) => (began = r));
  a.addHook('preClose', async () => began());
  await a.listen({ port: 0, host: '127.0.0.1' });
  return { a, port: (a.server.address() as AddressInfo).port, release, inHandler, closeBegan };
}

const socketTo = (port: number) =>
  new Promise<Socket>((resolve, reject) => {
    const s = connect({ host: '127.0.0.1', port }, () => resolve(s));
    s.once('error', reject);
  });

/** 'closed', or 'held' if the close did not finish within 10 s (a guard, not a speed measure). */
const closeOutcome = (close: Promise<unknown>) =>
  Promise.race([close.then(() => 'closed'), new Promise((r) => setTimeout(r, 10_000).unref()).then(() => 'held')]);

describe('decision R14: the close drains requests, not idle connections', () => {
  it('a connection that never sent a request does not hold the close', async () => {
    const { a, port } = await app();
    const spare = await socketTo(port);
    const ended = new Promise((r) => spare.once('close', r));
    assert.equal(await closeOutcome(a.close()), 'closed');
    await ended;
  });

  it('a keep-alive connection idle after its answer does not hold the close', async () => {
    const { a, port } = await app();
    const res = await fetch(`http://127.0.0.1:${port}/fast`);
    assert.equal(res.status, 200);
    await res.text();
    assert.equal(await closeOutcome(a.close()), 'closed');
  });

  it('a request in flight when the close begins is answered, with Connection: close, before the close ends', async () => {
    const { a, port, release, inHandler, closeBegan } = await app();
    const pending = fetch(`http://127.0.0.1:${port}/slow`);
    await inHandler;
    const closing = a.close();
    await closeBegan;
    release();
    const res = await pending;
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('connection'), 'close');
    assert.deepEqual(await res.json(), { ok: true });
    assert.equal(await closeOutcome(closing), 'closed');
  });
});
