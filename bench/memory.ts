// Issue 16 target 6: `npm start`'s resident memory once idle, against yardsticks measured in the same
// run: a bare node:http process, the same with tsx loading TypeScript, and PGlite alone opened as the
// bridge opens it. What PGlite holds cannot shrink from here (decision P3): its shared_buffers are
// fixed by PGlite's single-user build, whatever postgresql.conf or ALTER SYSTEM say.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, memoryOf, root, startChild, table } from './lib.ts';

const IDLE_MS = Number(process.env.BENCH_IDLE_MS ?? 5_000);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function npmStart(): Promise<{ rssMiB: number; peakMiB: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-memory-'));
  const [gateway, bridge, notification] = [await freePort(), await freePort(), await freePort()];
  const proc = spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts'], {
    cwd: root,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, NODE_ENV: 'development', DATA_DIR: join(dir, 'data'), LOG_LEVEL: 'warn', GATEWAY_PORT: String(gateway), BRIDGE_PORT: String(bridge), NOTIFICATION_PORT: String(notification) },
    stdio: ['ignore', 'ignore', 'ignore'],
  });
  try {
    for (let i = 0; ; i++) {
      try {
        if ((await fetch(`http://127.0.0.1:${gateway}/health`)).ok && (await fetch(`http://127.0.0.1:${bridge}/health`)).ok) break;
      } catch {
        // not up yet
      }
      if (i > 1200 || proc.exitCode !== null) throw new Error('npm start did not come up within 120 s');
      await sleep(100);
    }
    await sleep(IDLE_MS);
    return memoryOf(proc.pid!);
  } finally {
    proc.kill('SIGTERM');
    await new Promise((r) => proc.once('exit', r));
    rmSync(dir, { recursive: true, force: true });
  }
}

async function idle(entry: string, health = '/', env: Record<string, string> = {}): Promise<{ rssMiB: number; peakMiB: number; body: string }> {
  const child = await startChild(entry, env, health, 60_000);
  try {
    await sleep(IDLE_MS);
    const body = await (await fetch(`${child.url}${health}`)).text();
    return { ...memoryOf(child.proc.pid!), body };
  } finally {
    await child.stop();
  }
}

export async function benchMemory(): Promise<string> {
  const start = await npmStart();
  const bare = await idle('bench/bare-server.ts');
  const pglite = await idle('bench/pglite-idle.ts');
  const rows = [
    { process: '`npm start` (gateway, bridge, notification service, embedded canisters, PGlite), idle', 'RSS MiB': start.rssMiB, 'peak MiB': start.peakMiB, target: '≤ 250' },
    { process: 'bare node:http server through tsx (yardstick)', 'RSS MiB': bare.rssMiB, 'peak MiB': bare.peakMiB, target: '' },
    { process: `PGlite alone, opened as the bridge opens it, through tsx (its settings: ${pglite.body})`, 'RSS MiB': pglite.rssMiB, 'peak MiB': pglite.peakMiB, target: '' },
  ];
  const rest = start.rssMiB - pglite.rssMiB;
  return [
    `## Memory: resident set once idle (${IDLE_MS / 1000} s after start)`,
    '',
    table(rows),
    '',
    `PGlite alone is ${pglite.rssMiB - bare.rssMiB} MiB above the bare process; everything else of \`npm start\` is ${rest} MiB above PGlite alone (decision P3).`,
  ].join('\n');
}
