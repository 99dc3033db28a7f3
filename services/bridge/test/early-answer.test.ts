// Decision E17, the service's half: an answer given before the request's body was read (Fastify's
// 413 for a declared body over the route's limit, with `Connection: close`) ends the connection with
// a FIN, and the bridge reads and drops what the peer still sends, so a proxy that is still sending
// the body (nginx, the gateway) reads the answer instead of failing its next write on a reset.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { sendWholeBody } from '@domdao/test-helpers/whole-body';
import { bridge, type Bridge } from './harness.ts';

describe('decision E17: an early answer ends its connection with a FIN, not a reset', () => {
  let h: Bridge;
  let port = 0;
  before(async () => {
    h = await bridge();
    await h.app.listen({ port: 0, host: '127.0.0.1' });
    port = (h.app.server.address() as AddressInfo).port;
  });
  after(() => h.close());

  it('a 16 MiB body to POST /api/auth/register: the whole body is taken, then the 413 PAYLOAD_TOO_LARGE is read, and no write fails', async () => {
    const { answer, error } = await sendWholeBody(port, '/api/auth/register', 16 << 20);
    assert.equal(error, undefined, 'the bridge reset the connection under the body');
    assert.match(answer, /^HTTP\/1\.1 413 /);
    assert.match(answer, /"error":"PAYLOAD_TOO_LARGE"/);
    assert.match(answer, /\r\nconnection: close\r\n/i);
  });
});
