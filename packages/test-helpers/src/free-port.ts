import { readFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';

// Ports for the servers a test starts (decision R26). A port listen(0) hands out is in the kernel's
// ephemeral range, where the next outgoing connection or listen(0) of any process on the machine may
// take it between our close and the server's bind (a run of four files at a time saw EADDRINUSE so).
// So ports come from below that range, from this process's share of it (TEST_PORT_SLOT, set by
// scripts/test.mjs: "i/n", and "i/n,j/m" in a run the runner's own test starts), one after another,
// each checked free when it is handed out.

/** The lowest port handed out: ports below are the ones services are usually configured on. */
const FLOOR = 10_000;
const SMALLEST_SHARE = 16;

const RANGE_FILE = '/proc/sys/net/ipv4/ip_local_port_range';

function ephemeralLow(): number {
  let text: string;
  try {
    text = readFileSync(RANGE_FILE, 'utf8');
  } catch {
    // not Linux: the range IANA sets aside for ephemeral ports
    return 49_152;
  }
  const low = Number(text.trim().split(/\s+/)[0]);
  if (!Number.isInteger(low)) throw new Error(`${RANGE_FILE} does not start with a port: ${JSON.stringify(text)}`);
  return low;
}

/**
 * The ports this process may hand out, [from, to): below the ephemeral range (`below`), narrowed by each
 * level of `slot` ("i/n" takes the i-th of n equal shares).
 */
export function portRange(
  slot = process.env.TEST_PORT_SLOT ?? '',
  below = ephemeralLow(),
): { from: number; to: number } {
  if (below - FLOOR < SMALLEST_SHARE)
    throw new Error(
      `the kernel hands out ephemeral ports from ${below} (net.ipv4.ip_local_port_range), which leaves fewer than ${SMALLEST_SHARE} ports from ${FLOOR} below them for test servers: raise the range's low end`,
    );
  let from = FLOOR;
  let to = below;
  for (const level of slot.split(',').filter((s) => s.trim() !== '')) {
    const m = /^\s*(\d+)\/(\d+)\s*$/.exec(level);
    const [i, n] = m ? [Number(m[1]), Number(m[2])] : [NaN, NaN];
    if (!(i >= 0 && n > 0 && i < n))
      throw new Error(
        `TEST_PORT_SLOT must be shares "i/n" with 0 <= i < n, joined by commas (got ${JSON.stringify(slot)})`,
      );
    const size = Math.floor((to - from) / n);
    if (size < SMALLEST_SHARE)
      throw new Error(
        `TEST_PORT_SLOT ${JSON.stringify(slot)} leaves fewer than ${SMALLEST_SHARE} ports below ${below}`,
      );
    from += i * size;
    to = from + size;
  }
  return { from, to };
}

let range: { from: number; to: number } | undefined;
let next = -1;

function listensFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

/** A port on 127.0.0.1 that nothing listens on now and no other test process is handed, for a server a test starts itself. */
export async function freePort(): Promise<number> {
  range ??= portRange();
  const size = range.to - range.from;
  // A random start, so a file that follows another in the same share does not try the ports its
  // predecessor's servers may still hold first.
  if (next < 0) next = Math.floor(Math.random() * size);
  for (let tried = 0; tried < size; tried++) {
    const port = range.from + (next++ % size);
    if (await listensFree(port)) return port;
  }
  throw new Error(
    `no free port on 127.0.0.1 in ${range.from}–${range.to - 1} (TEST_PORT_SLOT ${JSON.stringify(process.env.TEST_PORT_SLOT ?? '')})`,
  );
}

/** Whether host:port accepts a TCP connection now (2 s at most): a server's listener, seen from outside. */
export function acceptsConnection(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const c = connect({ host, port });
    c.setTimeout(2000);
    c.once('connect', () => {
      c.destroy();
      resolve(true);
    });
    c.once('error', () => resolve(false));
    c.once('timeout', () => {
      c.destroy();
      resolve(false);
    });
  });
}
