// Decision E21 (RFC 9110 §7.6.1): the client's connection to the gateway is the gateway's own. A service's
// `Connection`, the fields it names and its `Keep-Alive` describe the gateway's pooled connection to that service;
// the client gets the gateway's own hint and keeps its connection when a service closes one of the gateway's.
import assert from 'node:assert/strict';
import { createServer, request, Agent, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { gatewayFor } from './harness.ts';

describe('decision E21: hop-by-hop headers stop at the gateway', () => {
  it("a client gets the gateway's Connection and Keep-Alive, never the service's, and keeps its connection when a service closes its own", async () => {
    // A service that names a hop-by-hop field of its own, hints 9 s, and on `?close` ends its connection.
    const service = createServer((req, res) => {
      res.setHeader('content-type', 'application/json');
      res.setHeader('x-hop', 'upstream-only');
      res.setHeader('keep-alive', 'timeout=9, max=100');
      res.setHeader('connection', req.url?.includes('close') ? 'close' : 'keep-alive, x-hop');
      res.end('{"ok":true}');
    });
    await new Promise<void>((r) => service.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(service.address() as AddressInfo).port}`;
    const gateway = await gatewayFor(url);
    await gateway.listen({ port: 0, host: '127.0.0.1' });
    const port = (gateway.server.address() as AddressInfo).port;
    // One kept connection, as a browser or undici holds it.
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const get = (path: string) =>
      new Promise<{ status: number; headers: IncomingHttpHeaders; reused: boolean; localPort: number }>(
        (resolve, reject) => {
          const req = request({ host: '127.0.0.1', port, path, agent }, (res) => {
            res.resume();
            res.on('end', () =>
              resolve({
                status: res.statusCode!,
                headers: res.headers,
                reused: req.reusedSocket,
                localPort: req.socket!.localPort!,
              }),
            );
          });
          req.on('error', reject);
          req.end();
        },
      );
    try {
      const first = await get('/health');
      assert.equal(first.status, 200);
      assert.equal(first.headers.connection, 'keep-alive');
      // Fastify's keepAliveTimeout, 72 s: the gateway's own hint, where the service said 9.
      assert.equal(first.headers['keep-alive'], 'timeout=72');
      assert.equal(first.headers['x-hop'], undefined, 'a field the service named in Connection is not relayed');

      const closed = await get('/api/auth/session?close=1');
      assert.equal(closed.status, 200);
      assert.equal(closed.headers.connection, 'keep-alive', "the service's close was of the gateway's connection");
      assert.equal(closed.reused, true);
      assert.equal(closed.localPort, first.localPort);

      const next = await get('/health');
      assert.equal(next.reused, true, 'the client connection outlived the service closing its own');
      assert.equal(next.localPort, first.localPort);
    } finally {
      agent.destroy();
      await gateway.close();
      service.close();
    }
  });
});
