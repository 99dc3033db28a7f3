// Decision R26: the ports tests give their servers come from below the kernel's ephemeral range, from
// the share of it the runner gave the process, one after another, each checked free.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { describe, it } from 'node:test';
import { freePort, portRange } from '@domdao/test-helpers';

const listen = (port: number) =>
  new Promise<Server>((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(port, '127.0.0.1', () => resolve(s));
  });
const close = (s: Server) => new Promise((r) => s.close(r));

describe('ports for test servers (decision R26)', () => {
  it('decision R26: the share is below the ephemeral range, from port 10000, and "i/n" takes the i-th of n equal shares at every level', () => {
    assert.deepEqual(portRange('', 32_768), { from: 10_000, to: 32_768 });
    assert.deepEqual(portRange('0/4', 32_768), { from: 10_000, to: 15_692 });
    assert.deepEqual(portRange('3/4', 32_768), { from: 27_076, to: 32_768 });
    assert.deepEqual(portRange('1/4,2/4', 32_768), { from: 15_692 + 2 * 1_423, to: 15_692 + 3 * 1_423 });
    assert.deepEqual(portRange(' 1/4 , ', 32_768), portRange('1/4', 32_768));
  });

  it('decision R26: a share of 16 ports is the least; one port fewer, a kernel range that leaves fewer, or a share that is not "i/n" with i < n, is refused by name', () => {
    assert.deepEqual(portRange('1/2', 10_032), { from: 10_016, to: 10_032 });
    assert.throws(() => portRange('1/2', 10_031), /TEST_PORT_SLOT "1\/2" leaves fewer than 16 ports below 10031/);
    // A kernel whose ephemeral range starts too low leaves no room at all: said, not worked around.
    assert.deepEqual(portRange('', 10_016), { from: 10_000, to: 10_016 });
    assert.throws(
      () => portRange('', 10_015),
      /the kernel hands out ephemeral ports from 10015 \(net\.ipv4\.ip_local_port_range\), which leaves fewer than 16 ports/,
    );
    for (const bad of ['4/4', '1/0', '-1/4', 'x', '1/4;2/4', '1.5/4'])
      assert.throws(
        () => portRange(bad, 32_768),
        /TEST_PORT_SLOT must be shares "i\/n" with 0 <= i < n, joined by commas/,
        bad,
      );
  });

  it("decision R26: freePort hands out ports of this process's share, each once, one after another, passing over ports something listens on", async () => {
    const { from, to } = portRange();
    assert.ok(
      to <= Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').split(/\s+/)[0]),
      'below the ephemeral range',
    );
    const size = to - from;
    const ports: number[] = [];
    for (let i = 0; i < 20; i++) ports.push(await freePort());
    assert.equal(new Set(ports).size, 20);
    for (const p of ports) assert.ok(p >= from && p < to, `${p} in ${from}–${to - 1}`);
    const after = (p: number, k: number) => from + ((p - from + k) % size);
    const last = ports.at(-1)!;
    const taken = await Promise.all([listen(after(last, 1)), listen(after(last, 2))]);
    try {
      assert.equal(await freePort(), after(last, 3));
    } finally {
      await Promise.all(taken.map(close));
    }
  });
});
