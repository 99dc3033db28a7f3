#!/usr/bin/env node
// One runner for the whole repo: node:test, TypeScript through tsx, one process per test file.
// Node 20 has no glob in `--test`, so the files are listed here.
//
// Each file runs in its own process group under a watchdog (decision R5): a file still running after
// TEST_FILE_TIMEOUT_MS (default 10 minutes; a task such as the type-check three times that; 0 turns the watchdog off)
// is killed and reported as failed,
// so a test that leaves a server open cannot hang CI. Each file's output is printed as one block when
// it ends, followed by a line with its result and duration; a table of all files (slowest first) and
// the summed `ℹ pass N` / `ℹ fail N` lines close the run. The exit code is 0 only when every file passed.
//
// Arguments select files by substring of their path; an argument naming an existing file runs that
// file whatever its name (the runner's own test uses this for its fixtures).
//
// Scheduling (decision R17): TEST_CONCURRENCY files at a time (default 4: on 2 CPUs many files
// spend much of their time waiting on servers, sockets, disks and timers), longest first by the table
// in scripts/test-plan.mjs, and at most one file of a lane at a time (a `// test-lane: <name>` line in
// the file: the Chromium files, the files on the built wasm). Each file's CPU seconds (user + system, with the
// processes it started and waited for) are read back from scripts/test-cpu.mjs. `--typecheck` runs the package's
// typecheck steps (`tsc -p …`) as jobs of their own, one at a time, first; a type error fails the run like a failed
// file. `--lint` runs the lint script's steps (`eslint …`, `prettier …`) the same way, in a lane of their own (decision
// R19); with both, the `tsc -p` steps and the `eslint` step are one job on one set of TypeScript programs,
// scripts/typecheck-and-lint.mjs (decision R22). `--fast` keeps only the files FAST lists (decision R18). `--list`
// prints the jobs in the order they would start, with their lanes, and runs nothing.
//
// Shared processes (decision R20): files of one part of the repository (a service, the platform, the
// canister cores, the packages, the scripts) run several to a process, one after another, through
// scripts/test-batch.mjs; the files of a lane share one process. Loading and compiling the modules a
// file imports cost more than most files' tests (a bridge file: about 4 of its 8 CPU seconds), and
// this pays it once per process. Each file still gets its own FILE line, counts and CPU seconds (those
// of its tests; the loading is the process's, in the total), and a file that changes the process or
// leaves something open fails by name. A file with a `// test-process: own` line in its head, a run of
// one file, and every file when TEST_SHARED=0, run in a process of their own as before.
import {
  accessSync,
  chmodSync,
  constants,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { spawn } from 'node:child_process';
import { FAST } from './test-plan.mjs';
import {
  batchResults,
  configure,
  fileJob,
  KEYS,
  lintJobs,
  noCounts,
  plan,
  typecheckAndLintJobs,
  TASK_TIMEOUT_FACTOR,
  typecheckJobs,
  watchdogMs,
} from './test-jobs.mjs';

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

const concurrency = Math.max(1, envNumber('TEST_CONCURRENCY', 4));
const fileTimeoutMs = envNumber('TEST_FILE_TIMEOUT_MS', 10 * 60 * 1000);
const shared = envNumber('TEST_SHARED', 1) !== 0;
const FAILURE_LINES = 80;

const args = process.argv.slice(2);
const flags = new Set(args.filter((a) => a.startsWith('--')));
for (const f of flags) {
  if (f !== '--fast' && f !== '--typecheck' && f !== '--lint' && f !== '--list') {
    console.error(
      `unknown option ${f}: --fast (the deterministic cores and units, decision R18), --typecheck (npm run typecheck beside the files, decision R17), --lint (npm run lint beside the files, decision R19), --list (the jobs in the order they would start, and their lanes; nothing runs)`,
    );
    process.exit(2);
  }
}
const words = args.filter((a) => !a.startsWith('--'));
const explicit = words
  .filter((a) => existsSync(resolve(a)) && statSync(resolve(a)).isFile())
  .map((a) => relative(root, resolve(a)));
const filters = words.filter((a) => !explicit.includes(relative(root, resolve(a))));
const inFast = (f) => FAST.some((p) => (p.endsWith('/') ? f.startsWith(p) : f === p));
const found =
  filters.length === 0 && explicit.length > 0
    ? []
    : find(root).filter(
        (f) => (filters.length === 0 || filters.some((p) => f.includes(p))) && (!flags.has('--fast') || inFast(f)),
      );
const files = [...new Set([...explicit, ...found])].sort();
if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}

// Fixtures every file of this run may share (decision R13: the bridge's template database), made
// by whichever file needs one first and removed when the run ends.
//
// The run's scratch (decision R17) is on /dev/shm when TMPDIR is not set and /dev/shm is writable
// (TEST_TMPDIR names another place), and each file's TMPDIR is a directory in it: the bridge's tests copy
// and delete a 40 MB, 1,100-file embedded database per bridge and fsync it, which on a disk shared by
// the machine's other users cost more than the tests themselves. All of it goes when the run ends.
function scratchBase() {
  if (process.env.TEST_TMPDIR) return process.env.TEST_TMPDIR;
  if (process.env.TMPDIR) return tmpdir();
  try {
    accessSync('/dev/shm', constants.W_OK);
    if (statSync('/dev/shm').isDirectory()) return '/dev/shm';
  } catch {
    // no RAM-backed directory: the system's temporary directory
  }
  return tmpdir();
}
const runCache = mkdtempSync(join(scratchBase(), 'domdao-test-run-'));
process.once('exit', () => rmSync(runCache, { recursive: true, force: true }));
// Modes as /tmp's: servers a file starts as another user (PostgreSQL's initdb, nginx's workers) must
// reach what the file made for them in its TMPDIR.
chmodSync(runCache, 0o755);
const runTmp = join(runCache, 'tmp');
mkdirSync(runTmp);
chmodSync(runTmp, 0o1777);

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
  const exited = (c) =>
    new Promise((resolve) => (c.exitCode !== null || c.signalCode !== null ? resolve() : c.once('exit', resolve)));
  await Promise.race([Promise.all(stopping.map(exited)), new Promise((resolve) => setTimeout(resolve, STOP_GRACE_MS))]);
  // The group's other processes (a file's servers, workers) may outlive its first process.
  for (const child of stopping) signalGroup(child, 'SIGKILL');
  process.exit(code);
}
for (const [signal, code] of [
  ['SIGINT', 130],
  ['SIGTERM', 143],
])
  process.on(signal, () => void stop(code));

const SUMMARY = /^ℹ (tests|suites|pass|fail|cancelled|skipped|todo|duration_ms) (\d+(?:\.\d+)?)$/;
const ANSI = /\x1b\[[0-9;]*m/g;

// Each process reports the CPU it and its children used (decision R17), as scripts/test-cpu.mjs (preloaded) writes it.
mkdirSync(join(runCache, 'cpu'));
mkdirSync(join(runCache, 'batch'));
configure({ runCache, shared, fileTimeoutMs });
let jobCount = 0;

function runJob(job, slot) {
  return new Promise((done) => {
    const started = Date.now();
    const cpuFile = join(runCache, 'cpu', String(jobCount++));
    const times = job.kind === 'BATCH' ? `${job.base}.times` : undefined;
    const child = spawn(process.execPath, job.args, {
      cwd: root,
      // NODE_TEST_CONTEXT would make a nested run (the runner's own test) skip its files.
      env: {
        ...process.env,
        NODE_ENV: 'test',
        NODE_TEST_CONTEXT: undefined,
        TEST_RUN_CACHE_DIR: runCache,
        TEST_CPU_FILE: cpuFile,
        TMPDIR: runTmp,
        // The job's share of the ports below the ephemeral range (decision R26), within this run's own share
        // when the runner's own test started it.
        TEST_PORT_SLOT: [process.env.TEST_PORT_SLOT, `${slot}/${concurrency}`].filter(Boolean).join(','),
        ...(times && { TEST_BATCH_TIMES: times, TEST_FILE_TIMEOUT_MS: String(fileTimeoutMs) }),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      // Its own process group, so the watchdog also ends the file's children (servers, workers).
      detached: true,
    });
    running.add(child);
    const chunks = [];
    child.stdout.on('data', (c) => chunks.push(c));
    child.stderr.on('data', (c) => chunks.push(c));
    let timedOut = false;
    // A shared process is killed when none of its files has started or ended for TEST_FILE_TIMEOUT_MS
    // (each file also has that long inside it, as its suite's timeout), a process of one file when it
    // has run that long.
    let progress = 0;
    const bound = watchdogMs(job.kind, fileTimeoutMs);
    const watchdog =
      bound > 0
        ? setInterval(
            () => {
              const now = times && existsSync(times) ? statSync(times).size : 0;
              if (now !== progress) {
                progress = now;
                return;
              }
              timedOut = true;
              signalGroup(child, 'SIGKILL');
            },
            times ? bound + 10_000 : bound,
          )
        : undefined;
    child.on('close', (code, signal) => {
      running.delete(child);
      clearInterval(watchdog);
      const ms = Date.now() - started;
      let cpu;
      try {
        cpu = Number(readFileSync(cpuFile, 'utf8'));
      } catch {
        // killed before it could say
      }
      const counts = noCounts();
      const kept = [];
      for (const line of Buffer.concat(chunks).toString('utf8').split('\n')) {
        const m = SUMMARY.exec(line.replace(ANSI, '').trimEnd());
        if (m) {
          if (m[1] !== 'duration_ms') counts[m[1]] = Number(m[2]);
        } else kept.push(line);
      }
      while (kept.length > 0 && kept.at(-1).trim() === '') kept.pop();
      const output = kept.join('\n');
      if (job.kind === 'BATCH') {
        done({ output, ms, cpu, results: batchResults(job, { code, signal, timedOut, output }) });
        return;
      }
      // A file that died, was killed or exited non-zero without a failing test still fails.
      let reason;
      if (timedOut)
        reason = `timed out: killed after ${bound} ms (${bound === fileTimeoutMs ? '' : `${TASK_TIMEOUT_FACTOR} × `}TEST_FILE_TIMEOUT_MS)`;
      else if (code !== 0 && counts.fail === 0) reason = signal ? `killed by ${signal}` : `exited with code ${code}`;
      if (reason) counts.fail += 1;
      done({
        output,
        ms,
        cpu,
        results: [
          {
            file: job.name,
            kind: job.kind,
            ms,
            cpu,
            counts,
            output,
            ok: !reason && code === 0 && counts.fail === 0,
            reason,
          },
        ],
      });
    });
  });
}

const cpuText = (r) => (r.cpu === undefined ? '? s CPU' : `${r.cpu.toFixed(1)} s CPU`);
function report(job, { output, results: rs, ms, cpu }) {
  if (output) console.log(output);
  for (const r of rs) {
    results.push(r);
    const mark = r.ok ? '✔' : '✖';
    const detail = r.reason ? ` ${r.reason}` : '';
    const what =
      r.kind === 'FILE' ? `: ${r.counts.pass} passed, ${r.counts.fail} failed` : r.ok ? ': passed' : ': failed';
    console.log(
      `${mark} ${r.kind} ${r.file}${what} (${(r.ms / 1000).toFixed(1)} s, ${cpuText(r)})${detail}${job.kind === 'BATCH' ? '' : '\n'}`,
    );
  }
  if (job.kind === 'BATCH')
    console.log(
      `${rs.every((r) => r.ok) ? '✔' : '✖'} BATCH ${job.name} (${(ms / 1000).toFixed(1)} s, ${cpuText({ cpu })})\n`,
    );
  processCpu.push(cpu ?? 0);
}

// Longest first, so a long file does not start last and hold the run open alone; at most one file of
// a lane at a time (decision R17).
const checks =
  flags.has('--typecheck') && flags.has('--lint')
    ? typecheckAndLintJobs()
    : [...(flags.has('--typecheck') ? typecheckJobs() : []), ...(flags.has('--lint') ? lintJobs() : [])];
const queue = [...checks, ...plan(files.map(fileJob))].sort(
  (a, b) => b.seconds - a.seconds || (a.name < b.name ? -1 : 1),
);
if (flags.has('--list')) {
  for (const job of queue) {
    console.log(`${job.kind} ${job.name}${job.lane ? ` (lane ${job.lane})` : ''}`);
    for (const file of job.files ?? []) console.log(`  FILE ${file}`);
  }
  process.exit(0);
}
const busyLanes = new Set();
const results = [];
/** Each process's CPU seconds (a shared process's include the loading that no one file is charged for). */
const processCpu = [];
const started = Date.now();
await new Promise((finished) => {
  let active = 0;
  // Which of the `concurrency` port shares (decision R26) no running job holds.
  const freeSlots = Array.from({ length: concurrency }, (_, i) => i);
  const pump = () => {
    while (!stopping && active < concurrency) {
      const at = queue.findIndex((j) => !j.lane || !busyLanes.has(j.lane));
      if (at < 0) break;
      const [job] = queue.splice(at, 1);
      active += 1;
      if (job.lane) busyLanes.add(job.lane);
      const slot = freeSlots.shift();
      void runJob(job, slot).then((r) => {
        active -= 1;
        freeSlots.push(slot);
        if (job.lane) busyLanes.delete(job.lane);
        if (stopping) return;
        report(job, r);
        pump();
      });
    }
    if (active === 0 && queue.length === 0) finished();
  };
  pump();
});
// Stopping (a signal): `stop` ends the run and its exit code says why, not the files it cut short.
if (stopping) await new Promise(() => undefined);

console.log('Per file (slowest first; wall, then CPU user+sys of the file and the processes it started):');
for (const r of [...results].sort((a, b) => b.ms - a.ms)) {
  const cpu = r.cpu === undefined ? '?'.padStart(7) : r.cpu.toFixed(1).padStart(7);
  console.log(
    `  ${r.ok ? '✔' : '✖'} ${(r.ms / 1000).toFixed(1).padStart(7)} s ${cpu} s  ${r.file}${r.reason ? `  (${r.reason})` : ''}`,
  );
}
const cpuTotal = processCpu.reduce((n, c) => n + c, 0);
console.log(
  `CPU ${cpuTotal.toFixed(1)} s in ${((Date.now() - started) / 1000).toFixed(1)} s of wall, ${results.length} job(s) in ${processCpu.length} process(es), at most ${concurrency} at a time (TEST_CONCURRENCY, TEST_SHARED)`,
);
const failed = results.filter((r) => !r.ok);
if (failed.length > 0) {
  console.log(`\n✖ ${failed.length} file(s) failed:`);
  for (const r of failed) console.log(`  ✖ ${r.file}${r.reason ? `: ${r.reason}` : ''}`);
  // The failures' own words again, last: a CI log is often read from its end, or only its end is kept.
  // Files of one shared process share its output: its failures are shown once, under the first of them.
  const shown = new Set();
  for (const r of failed) {
    if (shown.has(r.output)) {
      console.log(`\n✖ ${r.file}: what failed is shown above, with the other files of its process (${r.batch})`);
      continue;
    }
    shown.add(r.output);
    const lines = r.output.split('\n');
    const at = lines.findIndex((l) => l.replace(ANSI, '').includes('failing tests:'));
    const block = at >= 0 ? lines.slice(at + 1) : lines.slice(-40);
    console.log(`\n✖ ${r.file}, what failed:`);
    console.log(block.slice(0, FAILURE_LINES).join('\n'));
    if (block.length > FAILURE_LINES)
      console.log(`  … ${block.length - FAILURE_LINES} more lines above, in the file's own output`);
  }
}
const total = Object.fromEntries(KEYS.map((k) => [k, results.reduce((n, r) => n + r.counts[k], 0)]));
console.log('');
for (const k of KEYS) console.log(`ℹ ${k} ${total[k]}`);
console.log(`ℹ duration_ms ${Date.now() - started}`);
process.exit(failed.length > 0 ? 1 : 0);
