// Decisions P3, P13 and P14: `npm start`'s resident memory once idle, on its first start (a new data directory)
// and when it starts again on that data (what a running DAO sees after any restart), against
// yardsticks measured in the same run: a bare node:http process with and without tsx loading
// TypeScript, and PGlite alone opened as the bridge opens it. `npm start` is measured as it runs: the
// built run path (decision P14) with its Node flags, which the yardsticks share. Then its slope: the
// restarted platform left idle for BENCH_IDLE_MINUTES (default 15) with its periodic work made
// frequent (price polls and outbox passes every 2 s, the price-proposal job every minute, beside the
// job scheduler's and the followers' own polls), the resident set sampled every 10 s and, through
// bench/memory-probe.mjs, the V8 heap beside it (decision P19).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildRunPath, RUN_FLAGS } from '../scripts/build-run-path.mjs';
import { freePort, memoryOf, root, startChild, table } from './lib.ts';

const IDLE_MS = Number(process.env.BENCH_IDLE_MS ?? 5_000);
const SLOPE_MINUTES = Number(process.env.BENCH_IDLE_MINUTES ?? 15);
const SAMPLE_MS = 10_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `npm start` builds the run path (decision P14) and runs it with these flags. */
const START_FLAGS = RUN_FLAGS;

/** Waits until every URL answers 2xx (the process must not exit meanwhile), then idles and reads its memory. */
async function idleOnceUp(
  proc: ReturnType<typeof spawn>,
  urls: string[],
  what: string,
  tries: number,
  everyMs: number,
): Promise<{ rssMiB: number; peakMiB: number }> {
  for (let i = 0; ; i++) {
    try {
      let up = true;
      for (const u of urls) up &&= (await fetch(u)).ok;
      if (up) break;
    } catch {
      // not up yet
    }
    if (i > tries || proc.exitCode !== null)
      throw new Error(`${what} did not come up within ${(tries * everyMs) / 1000} s`);
    await sleep(everyMs);
  }
  await sleep(IDLE_MS);
  return memoryOf(proc.pid!);
}

async function npmStart(entry: string, dataDir: string): Promise<{ rssMiB: number; peakMiB: number }> {
  const [gateway, bridge, notification] = [await freePort(), await freePort(), await freePort()];
  const proc = spawn(process.execPath, [...START_FLAGS, entry], {
    cwd: root,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      NODE_ENV: 'development',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      GATEWAY_PORT: String(gateway),
      BRIDGE_PORT: String(bridge),
      NOTIFICATION_PORT: String(notification),
      METRICS_PORT: String(await freePort()),
    },
    stdio: ['ignore', 'ignore', 'ignore'],
  });
  try {
    return await idleOnceUp(
      proc,
      [`http://127.0.0.1:${gateway}/health`, `http://127.0.0.1:${bridge}/health`],
      'npm start',
      1200,
      100,
    );
  } finally {
    proc.kill('SIGTERM');
    await new Promise((r) => proc.once('exit', r));
  }
}

/** Least-squares slope of (minutes, MiB) points, in MiB per hour. */
function slopePerHour(points: Array<[number, number]>): number {
  const n = points.length;
  if (n < 2) return NaN;
  const mx = points.reduce((a, [x]) => a + x, 0) / n;
  const my = points.reduce((a, [, y]) => a + y, 0) / n;
  const sxx = points.reduce((a, [x]) => a + (x - mx) ** 2, 0);
  const sxy = points.reduce((a, [x, y]) => a + (x - mx) * (y - my), 0);
  return Math.round((sxy / sxx) * 60 * 10) / 10;
}

interface Slope {
  minutes: number;
  rows: Array<Record<string, string | number>>;
}

/** The restarted platform idle for SLOPE_MINUTES: its resident set and V8 heap over time. */
async function idleSlope(entry: string, dataDir: string, probeFile: string): Promise<Slope> {
  const [gateway, bridge, notification] = [await freePort(), await freePort(), await freePort()];
  const proc = spawn(process.execPath, [...START_FLAGS, '--import', join(root, 'bench/memory-probe.mjs'), entry], {
    cwd: root,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      NODE_ENV: 'development',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      GATEWAY_PORT: String(gateway),
      BRIDGE_PORT: String(bridge),
      NOTIFICATION_PORT: String(notification),
      METRICS_PORT: String(await freePort()),
      PRICE_POLL_SECONDS: '2',
      OUTBOX_RECONCILE_SECONDS: '2',
      PRICE_PROPOSAL_INTERVAL_SECONDS: '60',
      MEMORY_PROBE_FILE: probeFile,
      MEMORY_PROBE_MS: String(SAMPLE_MS),
    },
    stdio: ['ignore', 'ignore', 'ignore'],
  });
  const rss: Array<[number, number]> = [];
  try {
    await idleOnceUp(
      proc,
      [`http://127.0.0.1:${gateway}/health`, `http://127.0.0.1:${bridge}/health`],
      'npm start (idle slope)',
      1200,
      100,
    );
    const t0 = Date.now();
    for (;;) {
      const minutes = (Date.now() - t0) / 60_000;
      rss.push([minutes, memoryOf(proc.pid!).rssMiB]);
      if (minutes >= SLOPE_MINUTES || proc.exitCode !== null) break;
      await sleep(SAMPLE_MS);
    }
  } finally {
    proc.kill('SIGTERM');
    await new Promise((r) => proc.once('exit', r));
  }
  const mib = (b: number) => b / 1048576;
  const probes = readFileSync(probeFile, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { t: number; heapUsed: number; heapTotal: number; external: number });
  const p0 = probes[0]!.t;
  const series = (f: (p: (typeof probes)[number]) => number): Array<[number, number]> =>
    probes.map((p) => [(p.t - p0) / 60_000, mib(f(p))]);
  const half = (pts: Array<[number, number]>) => pts.filter(([m]) => m >= SLOPE_MINUTES / 2);
  const row = (what: string, pts: Array<[number, number]>) => ({
    what,
    'first MiB': Math.round(pts[0]![1]),
    'last MiB': Math.round(pts.at(-1)![1]),
    'max MiB': Math.round(Math.max(...pts.map(([, y]) => y))),
    'slope MiB/h (whole)': slopePerHour(pts),
    'slope MiB/h (second half)': slopePerHour(half(pts)),
  });
  return {
    minutes: SLOPE_MINUTES,
    rows: [
      row('resident set (RSS)', rss),
      row(
        'V8 heap reserved (heapTotal)',
        series((p) => p.heapTotal),
      ),
      row(
        'V8 heap in use (heapUsed, sampled between collections)',
        series((p) => p.heapUsed),
      ),
      row(
        "outside the V8 heap (external: PGlite's wasm memory, buffers)",
        series((p) => p.external),
      ),
    ],
  };
}

async function idle(
  entry: string,
  flags: readonly string[],
  health = '/',
): Promise<{ rssMiB: number; peakMiB: number; body: string }> {
  const child = await startChild(entry, {}, health, 60_000, flags);
  try {
    await sleep(IDLE_MS);
    const body = await (await fetch(`${child.url}${health}`)).text();
    return { ...memoryOf(child.proc.pid!), body };
  } finally {
    await child.stop();
  }
}

/** The bare server without any loader: what tsx itself costs. */
async function idlePlain(): Promise<{ rssMiB: number; peakMiB: number }> {
  const port = await freePort();
  const code = "require('node:http').createServer((q, s) => s.end('ok')).listen(Number(process.env.PORT), '127.0.0.1')";
  const proc = spawn(process.execPath, [...START_FLAGS, '-e', code], {
    env: { PATH: process.env.PATH, PORT: String(port) },
    stdio: 'ignore',
  });
  try {
    return await idleOnceUp(proc, [`http://127.0.0.1:${port}/`], 'the plain node:http server', 200, 50);
  } finally {
    proc.kill('SIGTERM');
    await new Promise((r) => proc.once('exit', r));
  }
}

export async function benchMemory(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-memory-'));
  let first, again, slope;
  try {
    const entry = await buildRunPath(join(dir, 'run'));
    first = await npmStart(entry, join(dir, 'data'));
    again = await npmStart(entry, join(dir, 'data'));
    slope = SLOPE_MINUTES > 0 ? await idleSlope(entry, join(dir, 'data'), join(dir, 'probe.jsonl')) : undefined;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const plain = await idlePlain();
  const bare = await idle('bench/bare-server.ts', START_FLAGS);
  const pglite = await idle('bench/pglite-idle.ts', START_FLAGS);
  const flags = START_FLAGS.length > 0 ? ` (\`${START_FLAGS.join(' ')}\`)` : '';
  const rows = [
    {
      process: `\`npm start\`${flags} on a new data directory, idle`,
      'RSS MiB': first.rssMiB,
      'peak MiB': first.peakMiB,
      target: '≤ 250',
    },
    {
      process: '`npm start` again on that data (a restart), idle',
      'RSS MiB': again.rssMiB,
      'peak MiB': again.peakMiB,
      target: '≤ 250',
    },
    {
      process: 'bare node:http server, plain node (yardstick)',
      'RSS MiB': plain.rssMiB,
      'peak MiB': plain.peakMiB,
      target: '',
    },
    {
      process: 'bare node:http server through tsx (yardstick)',
      'RSS MiB': bare.rssMiB,
      'peak MiB': bare.peakMiB,
      target: '',
    },
    {
      process: `PGlite alone, opened as the bridge opens it, through tsx (its settings: ${pglite.body})`,
      'RSS MiB': pglite.rssMiB,
      'peak MiB': pglite.peakMiB,
      target: '',
    },
  ];
  return [
    `## Memory: resident set once idle (${IDLE_MS / 1000} s after start)`,
    '',
    table(rows),
    '',
    `tsx costs ${bare.rssMiB - plain.rssMiB} MiB over plain node, which is why \`npm start\` runs a build without it (decision P14); PGlite alone is ${pglite.rssMiB - bare.rssMiB} MiB above the bare process through tsx; \`npm start\` is ${first.rssMiB - plain.rssMiB} MiB above plain node on its first start and ${again.rssMiB - plain.rssMiB} MiB on a restart (decisions P3, P13, P14).`,
    '',
    ...(slope
      ? [
          `## Memory: \`npm start\` restarted on its data and left idle for ${slope.minutes} min, periodic work every 2 s (BENCH_IDLE_MINUTES; 0 skips it)`,
          '',
          table(slope.rows),
          '',
          'A leak shows as heapUsed (or external) rising through the run; RSS following heapTotal while heapUsed stays level is V8 reserving more heap than it uses (decision P19).',
          '',
        ]
      : []),
  ].join('\n');
}
