// Shared pieces of the benchmarks: child processes on free loopback ports, autocannon runs, memory.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';
// Ports below the kernel's ephemeral range, as the tests' servers get them (decision R26).
import { freePort } from '@domdao/test-helpers/free-port';

export { freePort };

export const root = new URL('..', import.meta.url).pathname;

export interface Child {
  proc: ChildProcess;
  url: string;
  stop(): Promise<void>;
}

/** Starts a TypeScript entry point in its own process (so load generator and server do not share a core) and waits until healthy. */
/**
 * On Linux with taskset (util-linux) and at least two CPUs, servers run on the last CPU and the load
 * generator on the others, so the two never compete for a core and the figures measure the server.
 */
export const pinning = (() => {
  const cpus = availableParallelism();
  if (process.platform !== 'linux' || cpus < 2 || spawnSync('taskset', ['-V']).status !== 0) return undefined;
  // `all`: read before this process is pinned, after which availableParallelism() counts only the client's CPUs.
  return { server: String(cpus - 1), client: cpus === 2 ? '0' : `0-${cpus - 2}`, all: `0-${cpus - 1}`, cpus };
})();
if (pinning) spawnSync('taskset', ['-pc', pinning.client, String(process.pid)]);

export async function startChild(
  entry: string,
  env: Record<string, string>,
  healthPath: string,
  readyWithinMs = 20_000,
  nodeFlags: readonly string[] = [],
): Promise<Child> {
  const port = await freePort();
  // BENCH_NODE_ARGS: extra Node flags for the measured processes (e.g. --cpu-prof --cpu-prof-dir=prof).
  const node = [
    process.execPath,
    ...nodeFlags,
    ...(process.env.BENCH_NODE_ARGS?.split(/\s+/).filter(Boolean) ?? []),
    '--import',
    'tsx',
    entry,
  ];
  const [cmd, ...args] = pinning ? ['taskset', '-c', pinning.server, ...node] : node;
  const proc = spawn(cmd!, args, {
    cwd: root,
    env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + readyWithinMs;
  for (;;) {
    try {
      if ((await fetch(`${url}${healthPath}`)).ok) break;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline || proc.exitCode !== null) {
      // Stop it before the caller removes its data directory under it.
      if (proc.exitCode === null) {
        proc.kill('SIGKILL');
        await new Promise((r) => proc.once('exit', r));
      }
      throw new Error(`${entry} did not become healthy within ${readyWithinMs} ms`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    proc,
    url,
    stop: () =>
      new Promise((resolve) => {
        proc.once('exit', () => resolve());
        proc.kill('SIGTERM');
      }),
  };
}

export interface LoadResult {
  name: string;
  rps: number;
  minRps?: number;
  maxRps?: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

export async function load(
  name: string,
  opts: {
    url: string;
    method?: 'GET' | 'POST';
    headers?: Record<string, string>;
    body?: string;
    connections?: number;
    seconds?: number;
  },
): Promise<LoadResult> {
  const result = await autocannon({
    url: opts.url,
    method: opts.method ?? 'GET',
    headers: opts.headers ?? {},
    ...(opts.body !== undefined && { body: opts.body }),
    connections: opts.connections ?? 50,
    duration: opts.seconds ?? 10,
  });
  return {
    name,
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

/** Median of several rounds of one scenario (latencies too), with the req/s range. */
export function medianOf(name: string, runs: LoadResult[]): LoadResult {
  const mid = <T>(xs: T[], key: (x: T) => number) => [...xs].map(key).sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  return {
    name,
    rps: mid(runs, (r) => r.rps),
    minRps: Math.min(...runs.map((r) => r.rps)),
    maxRps: Math.max(...runs.map((r) => r.rps)),
    p50: mid(runs, (r) => r.p50),
    p99: mid(runs, (r) => r.p99),
    non2xx: runs.reduce((n, r) => n + r.non2xx, 0),
    errors: runs.reduce((n, r) => n + r.errors, 0),
  };
}

/** Peak and current resident set of a process, in MiB (Linux /proc). */
export function memoryOf(pid: number): { peakMiB: number; rssMiB: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { peakMiB: Math.round(kb('VmHWM') / 1024), rssMiB: Math.round(kb('VmRSS') / 1024) };
}

/** The columns every load scenario reports; each bench adds its own comparison. */
export function loadColumns(r: LoadResult): Record<string, string | number> {
  return {
    scenario: r.name,
    'req/s (median)': r.rps,
    'req/s range': `${r.minRps}–${r.maxRps}`,
    'p50 ms': r.p50,
    'p99 ms': r.p99,
  };
}

export function table(rows: Array<Record<string, string | number>>): string {
  const cols = Object.keys(rows[0] ?? {});
  const line = (cells: Array<string | number>) => `| ${cells.join(' | ')} |`;
  return [line(cols), line(cols.map(() => '---')), ...rows.map((r) => line(cols.map((c) => r[c] ?? '')))].join('\n');
}
