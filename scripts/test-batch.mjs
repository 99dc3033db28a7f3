// One process for several test files (decision R20): scripts/test.mjs starts this with the files as its
// arguments, and each file runs inside a suite named by its path, one after another, as its own process
// would run it. What the files share is what costs most to set up and is never changed by a test: the
// modules loaded and compiled (the bridge, Fastify, Kysely, PGlite, the test helpers), the JIT's work
// and the run's fixtures; each file still makes its own servers, databases and canisters.
//
// Sharing a process must not let one file change what the next one sees, so after each file this
// checks what a file could leave behind and fails that file, naming it: the environment, the standard
// functions a test might replace (timers, Date, fetch, Math.random, console, …), the error listeners,
// the working directory, and anything but a timer left keeping the event loop alive (a server, a
// socket, a child process), which in a process of its own would have kept the process from exiting.
// Each file is imported when its suite is built (on Node 20, when its turn comes), and the files run
// one by one. A file that needs a process of its own says `// test-process: own` in its head.
//
// For the runner, each file's start and end (wall time, and the CPU this process and the children it
// reaped had used) go as JSON lines to TEST_BATCH_TIMES; the pass/fail counts come from the reporter
// scripts/test-batch-reporter.mjs.
import { appendFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe } from 'node:test';
import { cpuSeconds } from './test-cpu.mjs';

const files = process.argv.slice(2);
const times = process.env.TEST_BATCH_TIMES;
const timeout = Number(process.env.TEST_FILE_TIMEOUT_MS) || undefined;
/** How long a file's servers, sockets and timers may take to go after its last hook. */
const SETTLE_MS = Number(process.env.TEST_BATCH_SETTLE_MS) || 5_000;

/** A file's start or end; an end may carry what the file left behind, for the runner to print as its reason. */
function mark(event, file, problem) {
  if (times)
    appendFileSync(
      times,
      `${JSON.stringify({ event, file, ms: Date.now(), cpu: cpuSeconds(), ...(problem && { problem }) })}\n`,
    );
}

/** What keeps the event loop alive, counted by kind ("TCPServerWrap": 1, "Timeout": 2, …). */
function resources() {
  const counts = new Map();
  for (const kind of process.getActiveResourcesInfo()) counts.set(kind, (counts.get(kind) ?? 0) + 1);
  return counts;
}

// What decides how the process treats an error. Not 'exit' and the signals: libraries add their own
// once, at first use, for the life of the process (Playwright, pino), and they change nothing a test sees.
const LISTENED = ['uncaughtException', 'unhandledRejection'];

// What a test might replace to control time, randomness, the network or output. Globals that appear
// are not checked: libraries add theirs at first use (undici's dispatcher, an SDK's hub) for good.
const STANDARD = {
  fetch: () => globalThis.fetch,
  setTimeout: () => globalThis.setTimeout,
  clearTimeout: () => globalThis.clearTimeout,
  setInterval: () => globalThis.setInterval,
  clearInterval: () => globalThis.clearInterval,
  setImmediate: () => globalThis.setImmediate,
  queueMicrotask: () => globalThis.queueMicrotask,
  Date: () => globalThis.Date,
  'Date.now': () => Date.now,
  'Math.random': () => Math.random,
  'performance.now': () => performance.now,
  'crypto.randomUUID': () => crypto.randomUUID,
  'crypto.getRandomValues': () => crypto.getRandomValues,
  'console.log': () => console.log,
  'console.error': () => console.error,
  'console.warn': () => console.warn,
  'process.exit': () => process.exit,
  'process.hrtime': () => process.hrtime,
  'process.stdout.write': () => process.stdout.write,
  'process.stderr.write': () => process.stderr.write,
};

function snapshot() {
  return {
    env: { ...process.env },
    standard: Object.fromEntries(Object.entries(STANDARD).map(([name, get]) => [name, get()])),
    listeners: Object.fromEntries(LISTENED.map((e) => [e, process.listenerCount(e)])),
    cwd: process.cwd(),
  };
}

/** What `file` changed in the process and did not put back, in words; empty when nothing. */
function changes(was, now) {
  const out = [];
  for (const key of new Set([...Object.keys(was.env), ...Object.keys(now.env)]))
    if (was.env[key] !== now.env[key])
      out.push(`process.env.${key} ${key in now.env ? (key in was.env ? 'changed' : 'added') : 'deleted'}`);
  for (const name of Object.keys(STANDARD)) if (now.standard[name] !== was.standard[name]) out.push(`${name} replaced`);
  for (const e of LISTENED)
    if (now.listeners[e] !== was.listeners[e])
      out.push(`process '${e}' listeners ${was.listeners[e]} → ${now.listeners[e]}`);
  if (now.cwd !== was.cwd) out.push(`working directory changed to ${now.cwd}`);
  return out;
}

// A timer ends by itself: in a process of its own it would only have delayed the exit.
const ENDS_BY_ITSELF = new Set(['Timeout', 'Immediate']);

/** Resources of a kind that there are more of than before the file, timers aside. */
function leftOpen(was) {
  const out = [];
  for (const [kind, n] of resources())
    if (!ENDS_BY_ITSELF.has(kind) && n > (was.get(kind) ?? 0)) out.push(`${n - (was.get(kind) ?? 0)} × ${kind}`);
  return out;
}

for (const file of files) {
  describe(file, { timeout }, async () => {
    let state;
    let open;
    before(() => {
      state = snapshot();
      open = resources();
      mark('start', file);
    });
    await import(pathToFileURL(resolve(file)).href);
    // Registered after the file's own hooks, so it runs after them: the file has cleaned up by now.
    after(async () => {
      let problem;
      try {
        const changed = changes(state, snapshot());
        if (changed.length > 0)
          throw new Error(
            `${file} changed the test process and did not put it back (${changed.join('; ')}): restore it in an after hook, or give the file a process of its own with a \`// test-process: own\` line in its head (decision R20)`,
          );
        // Sockets and servers close a little after their last callback; wait for them, not for ever.
        const until = Date.now() + SETTLE_MS;
        let left = leftOpen(open);
        while (left.length > 0 && Date.now() < until) {
          await new Promise((r) => setTimeout(r, 20));
          left = leftOpen(open);
        }
        if (left.length > 0)
          throw new Error(
            `${file} left ${left.join(', ')} keeping the event loop alive ${SETTLE_MS} ms after its last hook: in a process of its own it would never exit; close it in an after hook (decision R20)`,
          );
      } catch (e) {
        // Also to the runner: Node 22 and later print a suite's hook error only in the summary at the
        // end, which a process that has to be ended (below) never writes.
        problem = e instanceof Error ? e.message : String(e);
        throw e;
      } finally {
        mark('end', file, problem);
      }
    });
  });
}

// After the last file: a process that would not end is ended. Only timers left: they would have
// ended by themselves (the exit code stands); anything else was reported above as the file's failure.
after(() => {
  setTimeout(() => {
    const open = process.getActiveResourcesInfo();
    if (open.every((kind) => ENDS_BY_ITSELF.has(kind))) process.exit(process.exitCode);
    console.error(`the shared test process did not exit: still open: ${open.join(', ')}`);
    process.exit(process.exitCode || 1);
  }, SETTLE_MS).unref();
});
