#!/usr/bin/env node
// One runner for the whole repo: node:test, TypeScript through tsx, one process per test file.
// Node 20 has no glob in `--test`, so the files are listed here.
//
// Each file runs in its own process group under a watchdog (decision R5): a file still running after
// TEST_FILE_TIMEOUT_MS (default 5 minutes; 0 turns the watchdog off) is killed and reported as failed,
// so a test that leaves a server open cannot hang CI. Each file's output is printed as one block when
// it ends, followed by a line with its result and duration; a table of all files (slowest first) and
// the summed `ℹ pass N` / `ℹ fail N` lines close the run. The exit code is 0 only when every file passed.
//
// Arguments select files by substring of their path; an argument naming an existing file runs that
// file whatever its name (the runner's own test uses this for its fixtures).
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { spawn } from 'node:child_process';

const root = new URL('..', import.meta.url).pathname;
const skip = new Set(['node_modules', '.git', '.data', 'preview', 'dist']);

function find(dir, out = []) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (skip.has(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) find(path, out);
    else if (entry.name.endsWith('.test.ts')) out.push(relative(root, path));
  }
  return out;
}

function envNumber(name, fallback) {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) {
    console.error(`${name} must be a non-negative integer (got ${JSON.stringify(raw)})`);
    process.exit(2);
  }
  return n;
}

const concurrency = Math.max(1, envNumber('TEST_CONCURRENCY', 2));
const fileTimeoutMs = envNumber('TEST_FILE_TIMEOUT_MS', 5 * 60 * 1000);
const FAILURE_LINES = 80;

const args = process.argv.slice(2);
const explicit = args.filter((a) => existsSync(resolve(a)) && statSync(resolve(a)).isFile()).map((a) => relative(root, resolve(a)));
const filters = args.filter((a) => !explicit.includes(relative(root, resolve(a))));
const found = filters.length === 0 && explicit.length > 0 ? [] : find(root).filter((f) => filters.length === 0 || filters.some((p) => f.includes(p)));
const files = [...new Set([...explicit, ...found])].sort();
if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}

// Fixtures every file of this run may share (decision R13: the bridge's template database), made
// by whichever file needs one first and removed when the run ends.
const runCache = mkdtempSync(join(tmpdir(), 'domdao-test-run-'));
process.once('exit', () => rmSync(runCache, { recursive: true, force: true }));

// Files still running, each in a process group of its own (see runFile): a Ctrl-C reaches only the
// runner's group, so on SIGINT or SIGTERM the runner starts no more files and ends theirs (SIGTERM,
// then SIGKILL after STOP_GRACE_MS, or at once on a second signal) before it exits, instead of
// leaving them running without it.
const running = new Set();
const STOP_GRACE_MS = 2000;
/** The files running when the first signal came; set once the runner is stopping. */
let stopping;
function signalGroup(child, signal) {
  try {
    process.kill(-child.pid, signal);
  } catch {
    child.kill(signal);
  }
}
async function stop(code) {
  if (stopping) {
    for (const child of stopping) signalGroup(child, 'SIGKILL');
    process.exit(code);
  }
  stopping = [...running];
  for (const child of stopping) signalGroup(child, 'SIGTERM');
  const exited = (c) => new Promise((resolve) => (c.exitCode !== null || c.signalCode !== null ? resolve() : c.once('exit', resolve)));
  await Promise.race([Promise.all(stopping.map(exited)), new Promise((resolve) => setTimeout(resolve, STOP_GRACE_MS))]);
  // The group's other processes (a file's servers, workers) may outlive its first process.
  for (const child of stopping) signalGroup(child, 'SIGKILL');
  process.exit(code);
}
for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143]]) process.on(signal, () => void stop(code));

const KEYS = ['tests', 'suites', 'pass', 'fail', 'cancelled', 'skipped', 'todo'];
const SUMMARY = /^ℹ (tests|suites|pass|fail|cancelled|skipped|todo|duration_ms) (\d+(?:\.\d+)?)$/;
const ANSI = /\x1b\[[0-9;]*m/g;

function runFile(file) {
  return new Promise((done) => {
    const started = Date.now();
    const child = spawn(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=spec', file], {
      cwd: root,
      // NODE_TEST_CONTEXT would make a nested run (the runner's own test) skip its files.
      env: { ...process.env, NODE_ENV: 'test', NODE_TEST_CONTEXT: undefined, TEST_RUN_CACHE_DIR: runCache },
      stdio: ['ignore', 'pipe', 'pipe'],
      // Its own process group, so the watchdog also ends the file's children (servers, workers).
      detached: true,
    });
    running.add(child);
    const chunks = [];
    child.stdout.on('data', (c) => chunks.push(c));
    child.stderr.on('data', (c) => chunks.push(c));
    let timedOut = false;
    const watchdog =
      fileTimeoutMs > 0
        ? setTimeout(() => {
            timedOut = true;
            signalGroup(child, 'SIGKILL');
          }, fileTimeoutMs)
        : undefined;
    child.on('close', (code, signal) => {
      running.delete(child);
      clearTimeout(watchdog);
      const ms = Date.now() - started;
      const counts = Object.fromEntries(KEYS.map((k) => [k, 0]));
      const kept = [];
      for (const line of Buffer.concat(chunks).toString('utf8').split('\n')) {
        const m = SUMMARY.exec(line.replace(ANSI, '').trimEnd());
        if (m) {
          if (m[1] !== 'duration_ms') counts[m[1]] = Number(m[2]);
        } else kept.push(line);
      }
      while (kept.length > 0 && kept.at(-1).trim() === '') kept.pop();
      // A file that died, was killed or exited non-zero without a failing test still fails.
      let reason;
      if (timedOut) reason = `timed out: killed after ${fileTimeoutMs} ms (TEST_FILE_TIMEOUT_MS)`;
      else if (code !== 0 && counts.fail === 0) reason = signal ? `killed by ${signal}` : `exited with code ${code}`;
      if (reason) counts.fail += 1;
      done({ file, ms, counts, output: kept.join('\n'), ok: !reason && code === 0 && counts.fail === 0, reason });
    });
  });
}

const results = [];
const started = Date.now();
let next = 0;
async function worker() {
  while (!stopping && next < files.length) {
    const r = await runFile(files[next++]);
    results.push(r);
    if (r.output) console.log(r.output);
    const mark = r.ok ? '✔' : '✖';
    const detail = r.reason ? ` ${r.reason}` : '';
    console.log(`${mark} FILE ${r.file}: ${r.counts.pass} passed, ${r.counts.fail} failed (${(r.ms / 1000).toFixed(1)} s)${detail}\n`);
  }
}
await Promise.all(Array.from({ length: Math.min(concurrency, files.length) }, worker));
// Stopping (a signal): `stop` ends the run and its exit code says why, not the files it cut short.
if (stopping) await new Promise(() => undefined);

console.log('Per file (slowest first):');
for (const r of [...results].sort((a, b) => b.ms - a.ms)) {
  console.log(`  ${r.ok ? '✔' : '✖'} ${(r.ms / 1000).toFixed(1).padStart(7)} s  ${r.file}${r.reason ? `  (${r.reason})` : ''}`);
}
const failed = results.filter((r) => !r.ok);
if (failed.length > 0) {
  console.log(`\n✖ ${failed.length} file(s) failed:`);
  for (const r of failed) console.log(`  ✖ ${r.file}${r.reason ? `: ${r.reason}` : ''}`);
  // The failures' own words again, last: a CI log is often read from its end, or only its end is kept.
  for (const r of failed) {
    const lines = r.output.split('\n');
    const at = lines.findIndex((l) => l.replace(ANSI, '').includes('failing tests:'));
    const block = at >= 0 ? lines.slice(at + 1) : lines.slice(-40);
    console.log(`\n✖ ${r.file}, what failed:`);
    console.log(block.slice(0, FAILURE_LINES).join('\n'));
    if (block.length > FAILURE_LINES) console.log(`  … ${block.length - FAILURE_LINES} more lines above, in the file's own output`);
  }
}
const total = Object.fromEntries(KEYS.map((k) => [k, results.reduce((n, r) => n + r.counts[k], 0)]));
console.log('');
for (const k of KEYS) console.log(`ℹ ${k} ${total[k]}`);
console.log(`ℹ duration_ms ${Date.now() - started}`);
process.exit(failed.length > 0 ? 1 : 0);
