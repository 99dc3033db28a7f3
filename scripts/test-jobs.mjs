// The jobs scripts/test.mjs runs (decisions R17, R19, R20): a test file in a process of its own,
// several files in one shared process, and the type-check and lint steps beside them; and, when a shared
// process ends, each of its files' results. The runner calls `configure` first with what it decided.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DEFAULT_SECONDS, OPTIMIZED_WASM_LANES, SECONDS } from './test-plan.mjs';

const root = new URL('..', import.meta.url).pathname;
const cpuPreload = pathToFileURL(join(root, 'scripts', 'test-cpu.mjs')).href;
export const KEYS = ['tests', 'suites', 'pass', 'fail', 'cancelled', 'skipped', 'todo'];
/** A file's counts before any test has reported. */
export const noCounts = () => Object.fromEntries(KEYS.map((k) => [k, 0]));
/** A shared process is given files until their SECONDS add up to about this (decision R20). */
const BATCH_SECONDS = 90;

let runCache = '';
let shared = true;
let fileTimeoutMs = 0;
/** The run's scratch directory, whether files share processes (TEST_SHARED) and the watchdog's limit. */
export function configure(options) {
  ({ runCache, shared, fileTimeoutMs } = options);
}

/**
 * The watchdog's bound for a job (decision R5). A test file or a shared process gets TEST_FILE_TIMEOUT_MS. A task
 * (the type-check, ESLint, Prettier) gets three times that: a compiler has no socket or timer to hang on, and it is
 * the longest job of a run, so on a loaded machine it legitimately takes about twice its idle time (typecheck and lint:
 * 288 s idle, 557 s with another process using one CPU, against the 600 s a file gets). 0 turns the watchdog off.
 */
export const TASK_TIMEOUT_FACTOR = 3;
export const watchdogMs = (kind, timeoutMs) => (kind === 'TASK' ? TASK_TIMEOUT_FACTOR * timeoutMs : timeoutMs);

/** V8's options for a test process of `lane` (decision R21). */
const engine = (lane) => (OPTIMIZED_WASM_LANES.includes(lane) ? [] : ['--liftoff-only']);

/** A test file in a process of its own (`plan` may give it a shared one instead). */
export function fileJob(file) {
  const text = readFileSync(join(root, file), 'utf8');
  const lane = /^\/\/ test-lane: ([\w-]+)/m.exec(text)?.[1];
  return {
    name: file,
    kind: 'FILE',
    lane,
    own: /^\/\/ test-process: own\b/m.test(text),
    seconds: SECONDS[file] ?? DEFAULT_SECONDS,
    args: [...engine(lane), '--import', 'tsx', '--import', cpuPreload, '--test', '--test-reporter=spec', file],
  };
}

/** The part of the repository a file belongs to: files of one part load the same modules. */
function partOf(file) {
  const [top, second] = file.split('/');
  return top === 'services' || top === 'platform' || top === 'apps' ? `${top}/${second}` : top;
}

const batchEntry = join(root, 'scripts', 'test-batch.mjs');
const batchReporter = pathToFileURL(join(root, 'scripts', 'test-batch-reporter.mjs')).href;
let batchCount = 0;
/** Several files in one process, one after another (decision R20). */
function batchJob(part, members) {
  // In the order `plan` dealt them: longest first.
  const files = members.map((j) => j.name);
  const base = join(runCache, 'batch', String(batchCount++));
  return {
    name: `${part}: ${files.length} files in one process`,
    kind: 'BATCH',
    lane: members[0].lane,
    files,
    base,
    seconds: members.reduce((n, j) => n + j.seconds, 0),
    args: [
      ...engine(members[0].lane),
      '--import',
      'tsx',
      '--import',
      cpuPreload,
      '--test-reporter=spec',
      '--test-reporter-destination=stdout',
      `--test-reporter=${batchReporter}`,
      `--test-reporter-destination=${base}.results`,
      batchEntry,
      ...files,
    ],
  };
}

/**
 * The jobs for these files (decision R20): a lane's files in one process, the other files of each part
 * of the repository in processes of about BATCH_SECONDS each (longest file first into the least
 * loaded), and a file alone in its part, or marked `// test-process: own`, in a process of its own.
 */
export function plan(jobs) {
  if (!shared) return jobs;
  const out = [];
  const parts = new Map();
  for (const job of jobs) {
    if (job.own) out.push(job);
    else {
      const key = job.lane ? `lane ${job.lane}` : partOf(job.name);
      const list = parts.get(key) ?? [];
      list.push(job);
      parts.set(key, list);
    }
  }
  for (const [part, members] of parts) {
    const total = members.reduce((n, j) => n + j.seconds, 0);
    const bins = Array.from({ length: members[0].lane ? 1 : Math.max(1, Math.round(total / BATCH_SECONDS)) }, () => ({
      seconds: 0,
      members: [],
    }));
    for (const job of [...members].sort((a, b) => b.seconds - a.seconds || (a.name < b.name ? -1 : 1))) {
      const bin = bins.reduce((a, b) => (b.seconds < a.seconds ? b : a));
      bin.seconds += job.seconds;
      bin.members.push(job);
    }
    for (const bin of bins)
      if (bin.members.length > 0) out.push(bin.members.length === 1 ? bin.members[0] : batchJob(part, bin.members));
  }
  return out;
}

/** The steps of a package.json script joined by &&, or of the variable that replaces it (the runner's own test). */
function scriptSteps(script, override) {
  return (process.env[override] || JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).scripts[script])
    .split('&&')
    .map((step) => step.trim());
}

function refuse(flag, form, step) {
  console.error(
    `${flag} runs the package's ${flag.slice(2)} script as ${form} steps joined by &&; cannot run ${JSON.stringify(step)}`,
  );
  process.exit(2);
}

/**
 * `npm run typecheck`'s `tsc -p <project>` steps, each a job of its own so they run beside the files
 * (decision R17): a type error fails the run as a failed file does. One tsc at a time (each is a busy
 * process), started first: the longest jobs of a run.
 */
export function typecheckJobs() {
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  return typecheckSteps().map(({ step, project }, i) => ({
    name: `typecheck: ${step}`,
    kind: 'TASK',
    lane: 'typecheck',
    seconds: Number.MAX_SAFE_INTEGER - i,
    args: ['--import', cpuPreload, tsc, '-p', project],
  }));
}

function typecheckSteps() {
  return scriptSteps('typecheck', 'TEST_TYPECHECK').map((step) => {
    const m = /^tsc -p (\S+)$/.exec(step);
    if (!m) refuse('--typecheck', '`tsc -p <project>`', step);
    return { step, project: m[1] };
  });
}

/**
 * `npm run lint`'s steps (`eslint …`, `prettier …`), each a job in the lane `lint`, started with the
 * type-checks, beside the files (decision R19): a finding fails the run as a failed file does.
 */
export function lintJobs(steps = lintSteps()) {
  return steps.map(({ step, bin, rest }, i) => ({
    name: `lint: ${step}`,
    kind: 'TASK',
    lane: 'lint',
    seconds: Number.MAX_SAFE_INTEGER - 10 - i,
    args: ['--import', cpuPreload, LINT_BINS[bin], ...rest],
  }));
}

const LINT_BINS = {
  eslint: join(root, 'node_modules', 'eslint', 'bin', 'eslint.js'),
  prettier: join(root, 'node_modules', 'prettier', 'bin', 'prettier.cjs'),
};

function lintSteps() {
  return scriptSteps('lint', 'TEST_LINT').map((step) => {
    const [bin, ...rest] = step.split(/\s+/);
    if (!(bin in LINT_BINS) || rest.some((a) => /["'$`\\|;<>*]/.test(a)))
      refuse('--lint', '`eslint …` and `prettier …`', step);
    return { step, bin, rest };
  });
}

/**
 * `--typecheck` and `--lint` together (decision R22): the `tsc -p` steps and the `eslint` step are one
 * job, scripts/typecheck-and-lint.mjs, which builds each TypeScript program once for both; the other
 * lint steps (`prettier …`) stay jobs of their own. The job is in the lane `typecheck`, started first.
 */
export function typecheckAndLintJobs() {
  const types = typecheckSteps();
  const lint = lintSteps();
  const eslint = lint.filter((s) => s.bin === 'eslint');
  if (eslint.length !== 1) return [...typecheckJobs(), ...lintJobs()];
  const steps = [...types.map((t) => t.step), eslint[0].step];
  const combined = {
    name: `typecheck and lint: ${steps.join(', ')}`,
    kind: 'TASK',
    lane: 'typecheck',
    seconds: Number.MAX_SAFE_INTEGER,
    args: [
      '--import',
      cpuPreload,
      join(root, 'scripts', 'typecheck-and-lint.mjs'),
      ...types.flatMap((t) => ['-p', t.project]),
      'eslint',
      ...eslint[0].rest,
    ],
  };
  return [combined, ...lintJobs(lint.filter((s) => s.bin !== 'eslint'))];
}

function jsonLines(path) {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l));
}

/**
 * Each file's result in a shared process (decision R20): its counts from the reporter, its wall and CPU
 * from its start and end marks. A file without a result was running when the process ended (it fails
 * with the process's reason) or had not started (it fails as not run). A file that failed without a
 * failing test gives what it left behind (its end mark's `problem`) or its hook's error as its reason.
 */
export function batchResults(job, run) {
  const reported = new Map(jsonLines(`${job.base}.results`).map((r) => [r.file, r]));
  const marks = jsonLines(`${job.base}.times`);
  const at = (event, file) => marks.find((m) => m.event === event && m.file === file);
  const ended = run.timedOut
    ? `timed out: the shared process was killed after ${fileTimeoutMs} ms without progress (TEST_FILE_TIMEOUT_MS)`
    : run.signal
      ? `the shared process was killed by ${run.signal}`
      : `the shared process exited with code ${run.code}`;
  return job.files.map((file, i) => {
    const r = reported.get(file);
    const start = at('start', file);
    // A file's end is its own mark, else the next file's start (a failing hook skips the mark).
    const next = job.files
      .slice(i + 1)
      .map((f) => at('start', f))
      .find(Boolean);
    const own = at('end', file);
    const end = own ?? next;
    const ms = start && end ? end.ms - start.ms : 0;
    const cpu = start && end ? end.cpu - start.cpu : undefined;
    const counts = r ? { ...r.counts } : noCounts();
    let reason;
    if (!r) reason = start ? ended : `not run: ${ended} before it started`;
    else if (!r.ok && own?.problem) reason = own.problem;
    else if (!r.ok && counts.fail === 0)
      reason = r.problem ? `a hook failed: ${r.problem}` : 'a hook failed (decision R20)';
    if (reason) counts.fail += 1;
    return {
      file,
      kind: 'FILE',
      ms,
      cpu,
      counts,
      output: run.output,
      ok: r?.ok === true && counts.fail === 0,
      reason,
      batch: job.name,
    };
  });
}
