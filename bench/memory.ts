// Decisions P3, P13 and P14: `npm start`'s resident memory once idle, on its first start (a new data directory)
// and when it starts again on that data (what a running DAO sees after any restart), against
// yardsticks measured in the same run: a bare node:http process with and without tsx loading
// TypeScript, and PGlite alone opened as the bridge opens it. `npm start` is measured as it runs: the
// built run path (decision P14) with its Node flags, which the yardsticks share.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildRunPath, RUN_FLAGS } from '../scripts/build-run-path.mjs';
import { freePort, memoryOf, root, startChild, table } from './lib.ts';

const IDLE_MS = Number(process.env.BENCH_IDLE_MS ?? 5_000);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `npm start` builds the run path (decision P14) and runs it with these flags. */
const START_FLAGS = RUN_FLAGS;

/** Waits until every URL answers 2xx (the process must not exit meanwhile), then idles and reads its memory. */
async function idleOnceUp(proc: ReturnType<typeof spawn>, urls: string[], what: string, tries: number, everyMs: number): Promise<{ rssMiB: number; peakMiB: number }> {
  for (let i = 0; ; i++) {
    try {
      let up = true;
      for (const u of urls) up &&= (await fetch(u)).ok;
      if (up) break;
    } catch {
      // not up yet
    }
    if (i > tries || proc.exitCode !== null) throw new Error(`${what} did not come up within ${(tries * everyMs) / 1000} s`);
    await sleep(everyMs);
  }
  await sleep(IDLE_MS);
  return memoryOf(proc.pid!);
}

async function npmStart(entry: string, dataDir: string): Promise<{ rssMiB: number; peakMiB: number }> {
  const [gateway, bridge, notification] = [await freePort(), await freePort(), await freePort()];
  const proc = spawn(process.execPath, [...START_FLAGS, entry], {
    cwd: root,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, NODE_ENV: 'development', DATA_DIR: dataDir, LOG_LEVEL: 'warn', GATEWAY_PORT: String(gateway), BRIDGE_PORT: String(bridge), NOTIFICATION_PORT: String(notification) },
    stdio: ['ignore', 'ignore', 'ignore'],
  });
  try {
    return await idleOnceUp(proc, [`http://127.0.0.1:${gateway}/health`, `http://127.0.0.1:${bridge}/health`], 'npm start', 1200, 100);
  } finally {
    proc.kill('SIGTERM');
    await new Promise((r) => proc.once('exit', r));
  }
}

async function idle(entry: string, flags: readonly string[], health = '/'): Promise<{ rssMiB: number; peakMiB: number; body: string }> {
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
  const proc = spawn(process.execPath, [...START_FLAGS, '-e', code], { env: { PATH: process.env.PATH, PORT: String(port) }, stdio: 'ignore' });
  try {
    return await idleOnceUp(proc, [`http://127.0.0.1:${port}/`], 'the plain node:http server', 200, 50);
  } finally {
    proc.kill('SIGTERM');
    await new Promise((r) => proc.once('exit', r));
  }
}

export async function benchMemory(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-memory-'));
  let first, again;
  try {
    const entry = await buildRunPath(join(dir, 'run'));
    first = await npmStart(entry, join(dir, 'data'));
    again = await npmStart(entry, join(dir, 'data'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const plain = await idlePlain();
  const bare = await idle('bench/bare-server.ts', START_FLAGS);
  const pglite = await idle('bench/pglite-idle.ts', START_FLAGS);
  const flags = START_FLAGS.length > 0 ? ` (\`${START_FLAGS.join(' ')}\`)` : '';
  const rows = [
    { process: `\`npm start\`${flags} on a new data directory, idle`, 'RSS MiB': first.rssMiB, 'peak MiB': first.peakMiB, target: '≤ 250' },
    { process: '`npm start` again on that data (a restart), idle', 'RSS MiB': again.rssMiB, 'peak MiB': again.peakMiB, target: '≤ 250' },
    { process: 'bare node:http server, plain node (yardstick)', 'RSS MiB': plain.rssMiB, 'peak MiB': plain.peakMiB, target: '' },
    { process: 'bare node:http server through tsx (yardstick)', 'RSS MiB': bare.rssMiB, 'peak MiB': bare.peakMiB, target: '' },
    { process: `PGlite alone, opened as the bridge opens it, through tsx (its settings: ${pglite.body})`, 'RSS MiB': pglite.rssMiB, 'peak MiB': pglite.peakMiB, target: '' },
  ];
  return [
    `## Memory: resident set once idle (${IDLE_MS / 1000} s after start)`,
    '',
    table(rows),
    '',
    `tsx costs ${bare.rssMiB - plain.rssMiB} MiB over plain node, which is why \`npm start\` runs a build without it (decision P14); PGlite alone is ${pglite.rssMiB - bare.rssMiB} MiB above the bare process through tsx; \`npm start\` is ${first.rssMiB - plain.rssMiB} MiB above plain node on its first start and ${again.rssMiB - plain.rssMiB} MiB on a restart (decisions P3, P13, P14).`,
  ].join('\n');
}
