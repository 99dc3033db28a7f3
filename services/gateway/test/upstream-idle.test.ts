// Decision E19: the gateway keeps an idle connection to a service for UPSTREAM_IDLE_MS, half the idle
// bound after which a closing service closes a quiet connection itself (IDLE_CLOSE_MS, decision R27),
// so it never sends a request on a connection the service is closing at that moment.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import Fastify from 'fastify';
import { drainOnClose, IDLE_CLOSE_MS } from '@domdao/service-kit';
import { UPSTREAM_IDLE_MS } from '../src/upstream.ts';
import { gatewayFor } from './harness.ts';

describe('decision E19: idle connections to a service', () => {
  it("a connection to a service idle for UPSTREAM_IDLE_MS (under the services' IDLE_CLOSE_MS) is not used again; one in steady use is", async () => {
    assert.ok(UPSTREAM_IDLE_MS < IDLE_CLOSE_MS);
    // A service as the platform builds one: Fastify's keep-alive (it tells clients `timeout=72`) and drainOnClose.
    const service = Fastify({ return503OnClosing: false });
    drainOnClose(service);
    service.get('/health', async (request) => ({ port: request.socket.remotePort }));
    await service.listen({ port: 0, host: '127.0.0.1' });
    const url = `http://127.0.0.1:${(service.server.address() as AddressInfo).port}`;
    const gateway = await gatewayFor(url);
    try {
      const connection = async () => {
        const r = await gateway.inject({ method: 'GET', url: '/health' });
        assert.equal(r.statusCode, 200);
        return (r.json() as { port: number }).port;
      };
      const before: number[] = [];
      for (let i = 0; i < 4; i++) before.push(await connection());
      assert.ok(
        new Set(before).size < before.length,
        `connections are kept for the next request: ${before.join(', ')}`,
      );
      // The pool's idle timers were set when the answers arrived, before this one: they run out first.
      await new Promise((r) => setTimeout(r, UPSTREAM_IDLE_MS + 100));
      const after = await connection();
      assert.ok(
        !before.includes(after),
        `idle for UPSTREAM_IDLE_MS, no connection was used again (${before.join(', ')}, then ${after})`,
      );
    } finally {
      await gateway.close();
      await service.close();
    }
  });
});
