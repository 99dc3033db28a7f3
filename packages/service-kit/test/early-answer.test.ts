// Decision E17: lingerAfterEarlyAnswers. A `Connection: close` answer given before its request's body
// arrived ends with a FIN; the connection then reads and drops what still comes until the peer closes
// it, and at most LINGER_MS (tested at the bound and one past on a fake clock).
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { describe, it, mock } from 'node:test';
import Fastify from 'fastify';
import { sendWholeBody } from '@domdao/test-helpers/whole-body';
import { lingerAfterEarlyAnswers, LINGER_MS } from '../src/early-answer.ts';

async function smallLimitApp() {
  const app = Fastify();
  lingerAfterEarlyAnswers(app);
  app.post('/small', { bodyLimit: 16 }, async () => ({ ok: true }));
  const sockets: Socket[] = [];
  app.server.on('connection', (s: Socket) => sockets.push(s));
  await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, sockets, port: (app.server.address() as AddressInfo).port };
}

describe('decision E17: lingering after an early answer', () => {
  it('a peer that sends its whole 8 MiB body after the 413 reads the answer, with no write failing; the connection closes when the peer closes', async () => {
    const { app, sockets, port } = await smallLimitApp();
    // The fake clock never runs out here: only the peer's close can end the connection.
    mock.timers.enable({ apis: ['setTimeout'] });
    try {
      const { answer, error } = await sendWholeBody(port, '/small', 8 << 20);
      assert.equal(error, undefined);
      assert.match(answer, /^HTTP\/1\.1 413 /);
      if (!sockets[0]!.destroyed) await once(sockets[0]!, 'close');
    } finally {
      mock.timers.reset();
      await app.close();
    }
  });

  it('a peer that neither sends nor closes is cut off LINGER_MS after the answer, not one millisecond sooner (fake clock)', async () => {
    const { app, sockets, port } = await smallLimitApp();
    mock.timers.enable({ apis: ['setTimeout'] });
    // allowHalfOpen: the client keeps its side open after the server's FIN, as a stuck peer would.
    const client = connect({ host: '127.0.0.1', port, allowHalfOpen: true });
    try {
      let answer = '';
      client.on('data', (d: Buffer) => (answer += d.toString('latin1')));
      const ended = new Promise((r) => client.once('end', r));
      client.write(
        'POST /small HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"a":',
      );
      await ended;
      assert.match(answer, /^HTTP\/1\.1 413 /);
      const server = sockets[0]!;
      const turns = async () => {
        for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
      };
      mock.timers.tick(LINGER_MS - 1);
      await turns();
      assert.equal(server.destroyed, false, 'still lingering at LINGER_MS - 1');
      mock.timers.tick(1);
      await turns();
      assert.equal(server.destroyed, true, 'cut off at LINGER_MS');
    } finally {
      mock.timers.reset();
      client.destroy();
      await app.close();
    }
  });
});
