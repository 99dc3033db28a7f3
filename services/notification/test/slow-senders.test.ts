// Slow senders against the in-flight budget (decision D8, D32): real sockets on 127.0.0.1. Each bound
// tells a timeout apart from the much longer wait it replaces (BODY_READ_TIMEOUT_MS's 60 s default, a
// budget never freed), at half of it, so it holds on a loaded machine; order is checked by the log.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { connect, type Socket } from 'node:net';
import { describe, it, type TestContext } from 'node:test';
import { SMALL_BODY_READ_TIMEOUT_MS } from '../src/app.ts';
import { makeServiceWithProvider, TEST_TOKEN, validBody } from './harness.ts';

const MiB = 1024 * 1024;

/** Opens a connection that announces `declared` body bytes and then sends one byte every 100 ms. */
function slowSender(t: TestContext, port: number, declared: number): { socket: Socket; closed: Promise<number> } {
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => {});
  socket.write(
    `POST /api/v1/send HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TEST_TOKEN}\r\nContent-Type: application/json\r\nContent-Length: ${declared}\r\n\r\n{`,
  );
  const drip = setInterval(() => socket.writable && socket.write(' '), 100);
  const opened = Date.now();
  const closed = new Promise<number>((resolve) => socket.on('close', () => resolve(Date.now() - opened)));
  t.after(() => {
    clearInterval(drip);
    socket.destroy();
  });
  return { socket, closed };
}

async function listening(t: TestContext, env: Record<string, string>) {
  const p = await makeServiceWithProvider(env, () => ({ status: 200, body: { id: 'ok' } }));
  t.after(() => p.close());
  await p.app.listen({ port: 0, host: '127.0.0.1' });
  return { p, port: (p.app.server.address() as AddressInfo).port };
}

async function timedSend(port: number, body: unknown, limitMs = 45_000) {
  const started = Date.now();
  const res = await fetch(`http://127.0.0.1:${port}/api/v1/send`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(limitMs),
  });
  await res.arrayBuffer();
  return { status: res.status, ms: Date.now() - started };
}

describe('slow senders (decision D32)', () => {
  it('decision D32: four slow senders announcing 40 MiB do not stall a small send (separate lane)', async (t) => {
    const { port } = await listening(t, {});
    const senders = Array.from({ length: 4 }, () => slowSender(t, port, 40 * MiB));
    await new Promise((r) => setTimeout(r, 300));
    const small = await timedSend(port, validBody('welcome'));
    assert.equal(small.status, 200);
    // Stalled behind them it would wait for their 60 s read timeout (BODY_READ_TIMEOUT_MS's default).
    assert.ok(small.ms < 30_000, `small send took ${small.ms} ms`);
    // Gone before the close, which would give their bodies up to SMALL_BODY_READ_TIMEOUT_MS (D29, R27).
    for (const sender of senders) sender.socket.destroy();
  });

  it('decision D32: 40 slow 1 MiB senders fill the 32 MiB small lane for at most SMALL_BODY_READ_TIMEOUT_MS', async (t) => {
    const { port } = await listening(t, {});
    for (let i = 0; i < 40; i++) slowSender(t, port, 1 * MiB);
    await new Promise((r) => setTimeout(r, 300));
    // The lane is full of slow 1 MiB reservations: an ordinary send waits, but only until their bodies
    // time out (SMALL_BODY_READ_TIMEOUT_MS), not for BODY_READ_TIMEOUT_MS (60 s).
    const small = await timedSend(port, validBody('welcome'));
    assert.equal(small.status, 200);
    assert.ok(SMALL_BODY_READ_TIMEOUT_MS < 30_000);
    assert.ok(
      small.ms < 30_000,
      `small send took ${small.ms} ms: the slow bodies held the lane for BODY_READ_TIMEOUT_MS (60 s)`,
    );
  });

  it('decision D32: a body slower than BODY_READ_TIMEOUT_MS loses its connection and frees its budget for the next large send', async (t) => {
    const { p, port } = await listening(t, {
      MAX_BODY_BYTES: String(4 * MiB),
      INFLIGHT_BODY_BYTES: String(4 * MiB),
      BODY_READ_TIMEOUT_MS: '600',
    });
    const slow = slowSender(t, port, 4 * MiB);
    await new Promise((r) => setTimeout(r, 100));
    // A large (> 1 MiB) body queues behind the slow one until its read timeout ends it.
    const body = {
      ...validBody('welcome'),
      attachments: [{ filename: 'a.bin', content: Buffer.alloc(2 * MiB).toString('base64') }],
    };
    const large = await timedSend(port, body);
    assert.equal(large.status, 200);
    const slowLife = await slow.closed;
    // Not before its 600 ms read deadline; and by it, not by one of Node's own (60 s and more).
    assert.ok(slowLife >= 500 && slowLife < 30_000, `slow connection closed after ${slowLife} ms`);
    assert.ok(large.ms < 30_000, `large send took ${large.ms} ms`);
    // The large send went out only once the slow body's timeout had freed the budget: the log's order.
    const lines = p.logs.lines();
    const timeoutAt = lines.findIndex((l) => l.event === 'request.body_timeout');
    assert.ok(timeoutAt >= 0, 'request.body_timeout logged');
    assert.equal(lines[timeoutAt]!.declared_bytes, 4 * MiB);
    const sentAt = lines.findIndex((l) => l.event === 'email.sent');
    assert.ok(
      sentAt > timeoutAt,
      `the large send (line ${sentAt}) went out after the slow body's timeout (line ${timeoutAt})`,
    );
  });
});
