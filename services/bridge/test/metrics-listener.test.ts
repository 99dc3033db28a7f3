// Decision B70: the bridge's metrics listener binds METRICS_HOST (127.0.0.1 by default), so it answers
// on that address and on no other of the machine: not another loopback address (on Linux all of
// 127.0.0.0/8 reaches a listener bound to every interface) and not the machine's own network address.
// The bridge started as `npm run bridge` starts it (startBridge), from a seeded DATA_DIR.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';
import { after, before, describe, it } from 'node:test';
import { freePort } from '@domdao/test-helpers/free-port';
import { startBridge } from '../src/main.ts';
import { seededDataDir } from './embedded-template.ts';

const METRICS_TOKEN = 'metrics-listener-test-token-0123';

/** Whether a TCP connection to host:port is accepted (a refused one is the answer where nothing listens). */
const reachable = (host: string, port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

/** The machine's own IPv4 addresses outside loopback (none on a machine without a network). */
const networkAddresses = () =>
  Object.values(networkInterfaces())
    .flat()
    .filter((a) => a !== undefined && a.family === 'IPv4' && !a.internal)
    .map((a) => a!.address);

describe(
  'decision B70: the metrics listener binds METRICS_HOST only',
  { skip: process.platform !== 'linux' && '127.0.0.2 is a loopback address on Linux' },
  () => {
    let dir: string;
    before(async () => (dir = await seededDataDir('domdao-metrics-listener-')));
    after(() => rmSync(dir, { recursive: true, force: true }));

    /** A bridge started from `env` on the test's DATA_DIR (the second start is a restart), closed after `use`. */
    const withBridge = async (
      env: Record<string, string>,
      use: (metricsPort: number, b: Awaited<ReturnType<typeof startBridge>>) => Promise<void>,
    ) => {
      const metricsPort = await freePort();
      const b = await startBridge({
        NODE_ENV: 'test',
        LOG_LEVEL: 'error',
        DATA_DIR: dir,
        HOST: '127.0.0.1',
        PORT: String(await freePort()),
        PUBLIC_URL: 'http://127.0.0.1',
        ACCESS_TOKEN: 'metrics-listener-access-token-0123',
        METRICS_PORT: String(metricsPort),
        METRICS_TOKEN,
        ...env,
      });
      try {
        await use(metricsPort, b);
      } finally {
        await b.app.close();
      }
    };
    const scrape = async (host: string, port: number) => {
      const res = await fetch(`http://${host}:${port}/metrics`, {
        headers: { authorization: `Bearer ${METRICS_TOKEN}` },
      });
      assert.equal(res.status, 200);
      assert.match(await res.text(), /bridge_sessions_created_total/);
    };

    it('by default (127.0.0.1) it answers on 127.0.0.1 and refuses connections on 127.0.0.2 and on the network address', async () => {
      await withBridge({}, async (port, b) => {
        assert.equal(b.config.METRICS_HOST, '127.0.0.1', 'the default');
        await scrape('127.0.0.1', port);
        assert.equal(await reachable('127.0.0.2', port), false, '127.0.0.2');
        for (const address of networkAddresses()) assert.equal(await reachable(address, port), false, address);
      });
    });

    it('METRICS_HOST=127.0.0.2: it answers there and not on 127.0.0.1', async () => {
      await withBridge({ METRICS_HOST: '127.0.0.2' }, async (port) => {
        await scrape('127.0.0.2', port);
        assert.equal(await reachable('127.0.0.1', port), false);
      });
    });
  },
);
