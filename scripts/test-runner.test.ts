// scripts/test.mjs: per-file results, the failures repeated at the end, the per-file watchdog (decision R5),
// the run's shared cache directory (decision R13), what a Ctrl-C to the runner ends, and files sharing a
// process (decision R20).
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { after, describe, it } from 'node:test';
import { portRange } from '@domdao/test-helpers';
import { watchdogMs } from './test-jobs.mjs';

const root = new URL('..', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'runner-test-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function run(files: string[], env: Record<string, string> = {}) {
  const started = Date.now();
  const r = spawnSync(
    process.execPath,
    ['scripts/test.mjs', ...files.map((f) => (f.startsWith('--') ? f : `scripts/fixtures/${f}.fixture.ts`))],
    {
      cwd: root,
      // Files share processes unless a test says otherwise (decision R20), whatever this run was told.
      env: { ...process.env, TEST_SHARED: '1', ...env },
      encoding: 'utf8',
      timeout: 60_000,
    },
  );
  // A CI host may ask tools for colour (FORCE_COLOR, CI): the assertions read the text.
  return { status: r.status, out: stripVTControlCharacters(r.stdout + r.stderr), ms: Date.now() - started };
}

function summary(out: string) {
  const lines = out.trimEnd().split('\n');
  return lines.slice(-8).map((l) => l.replace(/ \d+$/, (m) => (l.startsWith('ℹ duration_ms') ? '' : m)));
}

/** Running, not a zombie (a killed orphan stays a zombie until PID 1 reaps it, which a container's may not). */
function alive(pid: number) {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0] !== 'Z';
  } catch {
    return false;
  }
}

describe('scripts/test.mjs', () => {
  it('decision R5 (issue 45): a task such as the type-check gets three times a file’s watchdog bound, a file and a shared process one, 0 stays off', () => {
    // The type-check and lint took 557 s with another process using one CPU: 93 % of a file's 600 s.
    assert.equal(watchdogMs('TASK', 600_000), 1_800_000);
    assert.equal(watchdogMs('FILE', 600_000), 600_000);
    assert.equal(watchdogMs('BATCH', 600_000), 600_000);
    assert.equal(watchdogMs('TASK', 0), 0, 'TEST_FILE_TIMEOUT_MS=0 turns every watchdog off');
  });

  it('decision R5: a file that never exits is killed after TEST_FILE_TIMEOUT_MS and fails loudly; the others still report', () => {
    const pidFile = join(dir, 'pid');
    // 15 s: on a loaded machine (load 25 on 2 CPUs) the passing file alone took more than 3 s to start.
    const r = run(['hangs', 'passes'], { TEST_FILE_TIMEOUT_MS: '15000', FIXTURE_PID_FILE: pidFile, TEST_SHARED: '0' });
    assert.equal(r.status, 1, r.out);
    assert.ok(r.ms < 60_000, `took ${r.ms} ms: the hung file was not killed`);
    assert.match(
      r.out,
      /✖ FILE scripts\/fixtures\/hangs\.fixture\.ts: 0 passed, 1 failed \([\d.]+ s, \? s CPU\) timed out: killed after 15000 ms \(TEST_FILE_TIMEOUT_MS\)/,
    );
    assert.match(r.out, /✔ FILE scripts\/fixtures\/passes\.fixture\.ts: 3 passed, 0 failed/);
    assert.match(r.out, /✖ 1 file\(s\) failed:\n {2}✖ scripts\/fixtures\/hangs\.fixture\.ts: timed out/);
    assert.deepEqual(summary(r.out), [
      'ℹ tests 3',
      'ℹ suites 0',
      'ℹ pass 3',
      'ℹ fail 1',
      'ℹ cancelled 0',
      'ℹ skipped 0',
      'ℹ todo 0',
      'ℹ duration_ms',
    ]);
    // The whole process group went: the fixture's process holding the server is gone.
    // SIGKILL is delivered at once but the kernel tears the process down asynchronously: allow it 2 s.
    const pid = Number(readFileSync(pidFile, 'utf8'));
    const until = Date.now() + 2_000;
    while (alive(pid) && Date.now() < until) spawnSync('sleep', ['0.05']);
    assert.equal(alive(pid), false, `fixture process ${pid} still running 2 s after the watchdog`);
  });

  it('decision R5: per-file results, a slowest-first table and one summed ℹ pass / ℹ fail summary; exit code 1 on a failure', () => {
    const r = run(['mixed', 'passes']);
    assert.equal(r.status, 1, r.out);
    assert.match(
      r.out,
      /✖ FILE scripts\/fixtures\/mixed\.fixture\.ts: 2 passed, 1 failed \([\d.]+ s, [\d.]+ s CPU\)\n/,
    );
    assert.match(
      r.out,
      /✔ FILE scripts\/fixtures\/passes\.fixture\.ts: 3 passed, 0 failed \([\d.]+ s, [\d.]+ s CPU\)\n/,
    );
    assert.match(
      r.out,
      /Per file \(slowest first; wall, then CPU user\+sys of the file and the processes it started\):\n( {2}[✔✖] +[\d.]+ s +[\d.]+ s {2}scripts\/fixtures\/(mixed|passes)\.fixture\.ts\n){2}/,
    );
    assert.deepEqual(summary(r.out), [
      'ℹ tests 6',
      'ℹ suites 0',
      'ℹ pass 5',
      'ℹ fail 1',
      'ℹ cancelled 0',
      'ℹ skipped 0',
      'ℹ todo 0',
      'ℹ duration_ms',
    ]);
    // Exactly one summary: the files' own summary lines are folded into their FILE line.
    assert.equal(r.out.match(/^ℹ pass /gm)?.length, 1);
    // The failure's own words are repeated after the list of failed files, before the summary.
    const tail = r.out.slice(r.out.indexOf('file(s) failed:'));
    assert.match(
      tail,
      /✖ scripts\/fixtures\/mixed\.fixture\.ts, what failed:\n[\s\S]*✖ three fails[\s\S]*1 !== 2[\s\S]*\nℹ tests 6\n/,
    );
  });

  it('exit code 0 when every file passes', () => {
    const r = run(['passes']);
    assert.equal(r.status, 0, r.out);
    assert.match(r.out, /ℹ pass 3\nℹ fail 0\n/);
  });

  it('decision R13: every file of a run gets the same TEST_RUN_CACHE_DIR, which is removed when the run ends', () => {
    const log = join(dir, 'cache-log');
    // Two processes (run-cache-too imports run-cache, which one process would load once).
    const r = run(['run-cache', 'run-cache-too'], { FIXTURE_CACHE_LOG: log, TEST_RUN_CACHE_DIR: '', TEST_SHARED: '0' });
    assert.equal(r.status, 0, r.out);
    const seen = readFileSync(log, 'utf8').trim().split('\n');
    assert.equal(seen.length, 2);
    const [first, second] = seen.map((l) => l.split(' '));
    assert.match(first![0]!, /domdao-test-run-/);
    assert.equal(first![1], 'true', 'the directory exists while the files run');
    assert.equal(second![0], first![0], 'one directory for the whole run');
    assert.equal(existsSync(first![0]!), false, 'removed with what the files left in it');
  });

  it("decision R17: without TMPDIR the run works in RAM (/dev/shm), TEST_TMPDIR names another place, and each file's TMPDIR (open to every user, as /tmp) goes with the run", () => {
    const log = join(dir, 'tmp-log');
    const r = run(['tmpdir'], { FIXTURE_TMP_LOG: log, TMPDIR: '' });
    assert.equal(r.status, 0, r.out);
    const elsewhere = mkdtempSync(join(dir, 'scratch-'));
    const r2 = run(['tmpdir'], { FIXTURE_TMP_LOG: log, TEST_TMPDIR: elsewhere });
    assert.equal(r2.status, 0, r2.out);
    const [shm, named] = readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((l) => l.split(' '));
    assert.match(shm![0]!, /^\/dev\/shm\/domdao-test-run-[^/]+\/tmp$/);
    assert.equal(shm![0], `${shm![1]}/tmp`, 'inside the run cache');
    assert.equal(existsSync(shm![1]!), false, 'removed with the run');
    assert.ok(named![0]!.startsWith(`${elsewhere}/domdao-test-run-`), named![0]);
    assert.deepEqual(readdirSync(elsewhere), []);
    // As /tmp: a server a file starts as another user (initdb as postgres, nginx's workers) reaches its files.
    assert.deepEqual(shm!.slice(2), ['1777', '755']);
  });

  /**
   * Starts the runner on the stubborn fixture (and `more`), with its own temporary directory, and waits
   * until the fixture's process and its child run. Whatever is left is killed when the test ends.
   */
  async function stubbornRun(name: string, more: string[] = [], env: Record<string, string> = {}) {
    const tmp = mkdtempSync(join(dir, `${name}-`));
    const pidFile = join(tmp, 'pids');
    const runner = spawn(
      process.execPath,
      [
        'scripts/test.mjs',
        'scripts/fixtures/stubborn.fixture.ts',
        ...more.map((f) => `scripts/fixtures/${f}.fixture.ts`),
      ],
      {
        cwd: root,
        // Each file in a process of its own, so the test can tell the fixture's process from the one behind it.
        env: { ...process.env, FIXTURE_PID_FILE: pidFile, TMPDIR: tmp, TEST_SHARED: '0', ...env },
        stdio: 'ignore',
      },
    );
    const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
      runner.once('exit', (code, signal) => resolve({ code, signal })),
    );
    const pids: number[] = [];
    /** Processes of this run's fixtures still there (by command line and environment, not by pid alone). */
    const leftovers = () =>
      readdirSync('/proc')
        .filter((n) => /^\d+$/.test(n))
        .filter((n) => {
          try {
            return (
              alive(Number(n)) &&
              /fixture\.ts|SIGTERM/.test(readFileSync(`/proc/${n}/cmdline`, 'utf8')) &&
              readFileSync(`/proc/${n}/environ`, 'utf8').includes(`FIXTURE_PID_FILE=${pidFile}`)
            );
          } catch {
            return false;
          }
        })
        .map(Number);
    // Should the runner fail to end them, the test does, so a regression leaves nothing running.
    after(() => {
      if (runner.exitCode === null && runner.signalCode === null) runner.kill('SIGKILL');
      for (const pid of leftovers()) process.kill(pid, 'SIGKILL');
    });
    const until = Date.now() + 30_000;
    while (!(existsSync(pidFile) && readFileSync(pidFile, 'utf8').split('\n').length === 3) && Date.now() < until)
      await new Promise((r) => setTimeout(r, 50));
    assert.ok(existsSync(pidFile), 'the fixture started within 30 s');
    pids.push(...readFileSync(pidFile, 'utf8').trim().split('\n').map(Number));
    assert.ok(pids.every(alive), 'the fixture and its child run');
    const gone = async () => {
      const by = Date.now() + 2_000;
      while (pids.some(alive) && Date.now() < by) await new Promise((r) => setTimeout(r, 50));
      for (const pid of pids) assert.equal(alive(pid), false, `process ${pid} of the fixture still running`);
    };
    // The run's cache directory (decision R13) is made in the runner's temporary directory.
    const caches = () => readdirSync(tmp).filter((n) => n.startsWith('domdao-test-run-'));
    return { runner, exited, pids, gone, caches, leftovers };
  }

  it('decision R5: a Ctrl-C (SIGINT) to the runner ends the process group of every running file, also a process in it that ignores SIGTERM, starts no other file, and removes the cache of the run', async () => {
    const tail = join(dir, 'tail-started');
    const run = await stubbornRun('ctrl-c', ['tail'], { TEST_CONCURRENCY: '1', FIXTURE_TAIL_FILE: tail });
    assert.equal(run.caches().length, 1, 'the run has its cache directory');
    run.runner.kill('SIGINT');
    const started = Date.now();
    assert.deepEqual(await run.exited, { code: 130, signal: null });
    // Two seconds of grace for SIGTERM at most, then SIGKILL, which the kernel carries out asynchronously.
    assert.ok(Date.now() - started < 6_000, `the runner took ${Date.now() - started} ms to stop`);
    await run.gone();
    // The file queued behind the stopped one was not started: no process of this run is left (a file
    // started as the runner exits would be, in its own process group).
    assert.deepEqual(run.leftovers(), []);
    assert.equal(existsSync(tail), false);
    assert.deepEqual(run.caches(), []);
  });

  it('decision R5: a second Ctrl-C during the grace ends the files at once (SIGKILL), also a group that cannot act on SIGTERM', async () => {
    const run = await stubbornRun('twice');
    // A stopped group keeps SIGTERM pending, so the first Ctrl-C waits out its grace.
    const pgid = Number(readFileSync(`/proc/${run.pids[0]}/stat`, 'utf8').split(') ')[1]!.split(' ')[2]);
    process.kill(-pgid, 'SIGSTOP');
    run.runner.kill('SIGINT');
    await new Promise((r) => setTimeout(r, 300));
    const second = Date.now();
    run.runner.kill('SIGINT');
    assert.deepEqual(await run.exited, { code: 130, signal: null });
    assert.ok(Date.now() - second < 1_500, `the runner took ${Date.now() - second} ms after the second Ctrl-C`);
    await run.gone();
    assert.deepEqual(run.leftovers(), []);
    assert.deepEqual(run.caches(), []);
  });

  it('decision R17: each file reports the CPU it and the processes it started used, in its FILE line, the table and the total', () => {
    const r = run(['burns-cpu'], { FIXTURE_CPU_SECONDS: '1' });
    assert.equal(r.status, 0, r.out);
    const line =
      /✔ FILE scripts\/fixtures\/burns-cpu\.fixture\.ts: 1 passed, 0 failed \([\d.]+ s, ([\d.]+) s CPU\)/.exec(r.out);
    assert.ok(line, r.out);
    const cpu = line[1]!;
    assert.ok(Number(cpu) >= 1, `reported ${cpu} s of CPU for a child that used 1 s`);
    const row = / {2}✔ +[\d.]+ s +([\d.]+) s {2}scripts\/fixtures\/burns-cpu\.fixture\.ts\n/.exec(r.out);
    assert.equal(row?.[1], cpu);
    assert.match(
      r.out,
      new RegExp(
        `\nCPU ${cpu.replace('.', '\\.')} s in [\\d.]+ s of wall, 1 job\\(s\\) in 1 process\\(es\\), at most \\d+ at a time \\(TEST_CONCURRENCY, TEST_SHARED\\)\n`,
      ),
    );
  });

  it('decision R17: two files of one lane never run at the same time, even with room for both', () => {
    const log = join(dir, 'lane-log');
    const r = run(['lane-one', 'lane-two', 'passes'], { FIXTURE_LANE_LOG: log, TEST_CONCURRENCY: '3' });
    assert.equal(r.status, 0, r.out);
    const seen = readFileSync(log, 'utf8').trim().split('\n');
    assert.equal(seen.length, 4);
    assert.match(seen[0]!, /^start (one|two)$/);
    assert.equal(
      seen[1],
      seen[0]!.replace('start', 'end'),
      `the other file of the lane started while the first ran: ${seen.join(', ')}`,
    );
    assert.deepEqual(summary(r.out).slice(2, 4), ['ℹ pass 5', 'ℹ fail 0']);
  });

  it('decision R17: --typecheck runs the typecheck steps beside the files, and a type error fails the run', () => {
    const r = run(['passes', '--typecheck'], { TEST_TYPECHECK: 'tsc -p scripts/fixtures/type-error/tsconfig.json' });
    assert.equal(r.status, 1, r.out);
    assert.match(r.out, /bad\.ts\(2,14\): error TS2322/);
    assert.match(
      r.out,
      /✖ TASK typecheck: tsc -p scripts\/fixtures\/type-error\/tsconfig\.json: failed \([\d.]+ s, [\d.]+ s CPU\) exited with code 2\n/,
    );
    assert.match(r.out, /✔ FILE scripts\/fixtures\/passes\.fixture\.ts: 3 passed, 0 failed/);
    assert.match(
      r.out,
      /✖ 1 file\(s\) failed:\n {2}✖ typecheck: tsc -p scripts\/fixtures\/type-error\/tsconfig\.json: exited with code 2/,
    );
    assert.deepEqual(summary(r.out).slice(2, 4), ['ℹ pass 3', 'ℹ fail 1']);
    const other = run(['passes', '--typecheck'], { TEST_TYPECHECK: 'tsc --build' });
    assert.equal(other.status, 2, 'a step that is not `tsc -p <project>` is refused');
    assert.match(other.out, /cannot run "tsc --build"/);
  });

  it('decision R22: --typecheck with --lint is one job on one set of programs: both findings fail the run, prettier stays its own job; without exactly one eslint step, each step is a job', () => {
    const bad = join(dir, 'badly-formatted-too.ts');
    writeFileSync(bad, 'const  y = {b:2}\n');
    const project = 'scripts/fixtures/type-error';
    const r = run(['passes', '--typecheck', '--lint'], {
      TEST_TYPECHECK: `tsc -p ${project}/tsconfig.json`,
      TEST_LINT: `eslint -c ${project}/eslint.config.js ${project} && prettier --check ${bad}`,
    });
    assert.equal(r.status, 1, r.out);
    assert.match(r.out, /bad\.ts\(2,14\): error TS2322/, 'the type error, as tsc prints it');
    assert.match(
      r.out,
      /floating\.ts\n\s+8:3\s+error\s+Promises must be awaited.*@typescript-eslint\/no-floating-promises/,
      'the type-aware lint finding',
    );
    assert.match(
      r.out,
      /typecheck: 1 project\(s\), 1 error\(s\); eslint: \d+ file\(s\), 1 error\(s\); 1 program\(s\) built once for both/,
    );
    const name = `typecheck and lint: tsc -p ${project}/tsconfig.json, eslint -c ${project}/eslint.config.js ${project}`;
    assert.ok(r.out.includes(`✖ TASK ${name}: failed (`), r.out);
    assert.match(r.out, /✖ TASK lint: prettier --check \S+badly-formatted-too\.ts: failed/);
    assert.match(r.out, /✔ FILE scripts\/fixtures\/passes\.fixture\.ts: 3 passed, 0 failed/);
    assert.deepEqual(summary(r.out).slice(2, 4), ['ℹ pass 3', 'ℹ fail 2']);
    const listed = run(['--list', '--typecheck', '--lint']);
    assert.match(
      listed.out,
      /^TASK typecheck and lint: tsc -p tsconfig\.json, tsc -p tsconfig\.azle\.json, tsc -p apps\/portal\/tsconfig\.json, eslint \. \(lane typecheck\)\nTASK lint: prettier --check \. \(lane lint\)\n/m,
    );
    const wrong = run(['passes', '--typecheck', '--lint'], {
      TEST_TYPECHECK: `tsc -p ${project}/tsconfig.json`,
      TEST_LINT: `eslint --max-warnings 0 ${project}`,
    });
    assert.equal(wrong.status, 1, 'an eslint option the job does not take fails the job');
    assert.match(wrong.out, /usage: typecheck-and-lint\.mjs/);
    // Without exactly one eslint step there is nothing to share: the steps are jobs of their own again.
    for (const lint of ['prettier --check .', 'eslint a && eslint b && prettier --check .']) {
      const apart = run(['--list', '--typecheck', '--lint'], {
        TEST_TYPECHECK: 'tsc -p tsconfig.json',
        TEST_LINT: lint,
      });
      assert.equal(apart.status, 0, apart.out);
      assert.doesNotMatch(apart.out, /typecheck and lint/, lint);
      assert.match(apart.out, /^TASK typecheck: tsc -p tsconfig\.json \(lane typecheck\)$/m, lint);
      for (const step of lint.split(' && '))
        assert.ok(apart.out.includes(`TASK lint: ${step} (lane lint)\n`), `${lint}: ${apart.out}`);
    }
  });

  it('decision R19: --lint runs the lint steps beside the files, and a finding fails the run', () => {
    const bad = join(dir, 'badly-formatted.ts');
    writeFileSync(bad, 'const  x = {a:1}\n');
    const r = run(['passes', '--lint'], { TEST_LINT: `prettier --check ${bad}` });
    assert.equal(r.status, 1, r.out);
    assert.match(r.out, /\[warn\] .*badly-formatted\.ts/);
    assert.match(
      r.out,
      /✖ TASK lint: prettier --check \S+badly-formatted\.ts: failed \([\d.]+ s, [\d.]+ s CPU\) exited with code 1\n/,
    );
    assert.match(r.out, /✔ FILE scripts\/fixtures\/passes\.fixture\.ts: 3 passed, 0 failed/);
    assert.deepEqual(summary(r.out).slice(2, 4), ['ℹ pass 3', 'ℹ fail 1']);
    const other = run(['passes', '--lint'], { TEST_LINT: 'rm -rf node_modules' });
    assert.equal(other.status, 2, 'a step that is not eslint or prettier is refused');
    assert.match(other.out, /cannot run "rm -rf node_modules"/);
  });

  /** `--list`: the jobs the runner would start, in order, without running them. */
  function list(...args: string[]) {
    const r = spawnSync(process.execPath, ['scripts/test.mjs', '--list', ...args], {
      cwd: root,
      encoding: 'utf8',
      env: { ...process.env, TEST_SHARED: '1' },
    });
    assert.equal(r.status, 0, r.stderr);
    return r.stdout.trim().split('\n');
  }

  it('decision R18: --fast runs every canister core test and only files without a lane, a server, a browser, wasm or a database', () => {
    const fast = list('--fast');
    const all = list();
    const filesOf = (lines: string[]) => lines.filter((l) => /^ *FILE /.test(l)).map((l) => l.trim());
    const cores = filesOf(all).filter((l) => /^FILE canisters\/[^/]+\/test\//.test(l));
    assert.ok(cores.length >= 13, `${cores.length} canister core files`);
    for (const line of cores) assert.ok(filesOf(fast).includes(line), `${line} is not in --fast`);
    assert.ok(
      fast.every((l) => !l.includes('(lane ')),
      'no lane',
    );
    for (const line of filesOf(fast)) {
      assert.ok(filesOf(all).includes(line), `${line} is not in the full run`);
      assert.match(line, /^FILE [^ ]+\.test\.ts$/);
      const text = readFileSync(join(root, line.slice('FILE '.length)), 'utf8');
      assert.doesNotMatch(
        text,
        /playwright|chromium|wasm-host|@domdao\/replica|\.listen\(|buildApp|freshPostgres|requireRedis|PGlite|openTemplateDatabase|spawn\(|\.wasm\b/,
        `${line} needs more than a core or a unit`,
      );
    }
  });

  it('decision R17: --list shows every test file once, the lanes, the typecheck steps first and the longest files before the rest', () => {
    const all = list('--typecheck');
    const files = all.filter((l) => /^ *FILE /.test(l)).map((l) => l.trim().replace(/ \(lane \w+\)$/, ''));
    assert.equal(new Set(files).size, files.length);
    assert.ok(files.length > 140, `${files.length} files listed`);
    assert.ok(
      all.slice(0, 3).every((l) => /^TASK typecheck: tsc -p \S+ \(lane typecheck\)$/.test(l)),
      all.slice(0, 3).join('\n'),
    );
    // Decision R20: a lane's files share one process, listed under it.
    const wasm = all.findIndex((l) => /^BATCH lane wasm: \d+ files in one process \(lane wasm\)$/.test(l));
    assert.ok(wasm > 0, all.join('\n'));
    assert.ok(
      all.slice(wasm + 1).findIndex((l) => !l.startsWith('  FILE ')) >
        all.slice(wasm + 1).indexOf('  FILE platform/canisters/test/wasm-journey.test.ts'),
    );
    assert.ok(
      all.some((l) => /^BATCH lane browser: /.test(l)) &&
        all.includes('  FILE apps/portal/test/portal-browser.test.ts'),
    );
    assert.ok(
      all.indexOf('  FILE platform/canisters/test/wasm-journey.test.ts') <
        all.indexOf('  FILE canisters/campaign/test/progress.test.ts'),
    );
  });

  it('decision R20: the files of one part share a process, one after another, each with its own FILE line and counts; TEST_SHARED=0 and `// test-process: own` give a file its own', () => {
    const log = join(dir, 'pid-log');
    const pids = () => {
      const seen = Object.fromEntries(
        readFileSync(log, 'utf8')
          .trim()
          .split('\n')
          .map((l) => l.split(' ')),
      );
      rmSync(log);
      return seen;
    };
    const r = run(['pid-one', 'pid-two', 'own', 'passes'], { FIXTURE_PID_LOG: log });
    assert.equal(r.status, 0, r.out);
    const shared = pids();
    assert.equal(shared.one, shared.two, 'pid-one and pid-two in one process');
    assert.notEqual(shared.own, shared.one, 'the file marked own in another');
    assert.match(
      r.out,
      /✔ FILE scripts\/fixtures\/pid-one\.fixture\.ts: 1 passed, 0 failed \([\d.]+ s, [\d.]+ s CPU\)\n/,
    );
    assert.match(r.out, /✔ FILE scripts\/fixtures\/passes\.fixture\.ts: 3 passed, 0 failed/);
    assert.match(r.out, /✔ BATCH scripts: 3 files in one process \([\d.]+ s, [\d.]+ s CPU\)\n/);
    assert.match(r.out, /, 4 job\(s\) in 2 process\(es\), /);
    // The files' own counts: the suite each file runs in is not counted.
    assert.deepEqual(summary(r.out), [
      'ℹ tests 6',
      'ℹ suites 0',
      'ℹ pass 6',
      'ℹ fail 0',
      'ℹ cancelled 0',
      'ℹ skipped 0',
      'ℹ todo 0',
      'ℹ duration_ms',
    ]);
    const alone = run(['pid-one', 'pid-two'], { FIXTURE_PID_LOG: log, TEST_SHARED: '0' });
    assert.equal(alone.status, 0, alone.out);
    const own = pids();
    assert.notEqual(own.one, own.two);
    assert.doesNotMatch(alone.out, /BATCH/);
  });

  it('decision R26: files running at once get different shares of the ports below the ephemeral range, within the share the run itself was given', () => {
    const log = join(dir, 'slot-log');
    // pid-one and own in processes of their own, both started at once.
    // Inside this file's own share (its runner's), narrowed once more so the shares' prefix is known.
    const outer = [process.env.TEST_PORT_SLOT, '1/3'].filter(Boolean).join(',');
    const r = run(['pid-one', 'own'], { FIXTURE_PID_LOG: log, TEST_CONCURRENCY: '2', TEST_PORT_SLOT: outer });
    assert.equal(r.status, 0, r.out);
    const lines = readFileSync(log, 'utf8').trim().split('\n');
    rmSync(log);
    const seen = lines.map((l) => ({ slot: l.split(' ')[2]!, port: Number(l.split(' ')[3]) }));
    assert.deepEqual(seen.map((s) => s.slot).sort(), [`${outer},0/2`, `${outer},1/2`]);
    const mine = portRange(outer);
    for (const { slot, port } of seen) {
      const { from, to } = portRange(slot);
      assert.ok(port >= from && port < to, `${port} in ${from}–${to - 1} (${slot})`);
      assert.ok(from >= mine.from && to <= mine.to, `${slot} within ${outer}`);
    }
    const [a, b] = seen.map((s) => portRange(s.slot));
    assert.ok(a!.to <= b!.from || b!.to <= a!.from, 'the two shares do not overlap');
  });

  it('decision R20: a file that leaves the process changed, or a server open, or whose own hook fails, fails by name at once, with the reason in its FILE line; the files after it still run', () => {
    const r = run(['changes-process', 'hangs', 'hook-fails', 'passes'], {
      FIXTURE_PID_FILE: join(dir, 'hangs-pid'),
      TEST_BATCH_SETTLE_MS: '1000',
    });
    assert.equal(r.status, 1, r.out);
    assert.ok(r.ms < 45_000, `took ${r.ms} ms`);
    // The reason is in each file's own FILE line, whatever the reporter prints: Node 22 and later print a
    // suite's hook error only in the summary at the end, which a process that has to be ended never writes.
    assert.match(
      r.out,
      /✖ FILE scripts\/fixtures\/changes-process\.fixture\.ts: 1 passed, 1 failed \([^)]*\) scripts\/fixtures\/changes-process\.fixture\.ts changed the test process and did not put it back \(process\.env\.FIXTURE_LEFT_BEHIND added; Math\.random replaced\)/,
    );
    assert.match(
      r.out,
      /✖ FILE scripts\/fixtures\/hangs\.fixture\.ts: 1 passed, 1 failed \([^)]*\) scripts\/fixtures\/hangs\.fixture\.ts left 1 × TCPServerWrap keeping the event loop alive/,
    );
    assert.match(
      r.out,
      /✖ FILE scripts\/fixtures\/hook-fails\.fixture\.ts: 1 passed, 1 failed \([^)]*\) a hook failed: a suite whose after hook fails: the fixture’s own after hook failed\n/,
    );
    assert.match(r.out, /✔ FILE scripts\/fixtures\/passes\.fixture\.ts: 3 passed, 0 failed/);
    assert.deepEqual(summary(r.out).slice(2, 4), ['ℹ pass 6', 'ℹ fail 3']);
  });

  it('decision R20: a shared process that dies fails the file it was running with its exit code, and the files after it as not run', () => {
    const r = run(['exits', 'passes']);
    assert.equal(r.status, 1, r.out);
    assert.match(
      r.out,
      /✖ FILE scripts\/fixtures\/exits\.fixture\.ts: 0 passed, 1 failed .* the shared process exited with code 3\n/,
    );
    assert.match(
      r.out,
      /✖ FILE scripts\/fixtures\/passes\.fixture\.ts: 0 passed, 1 failed .* not run: the shared process exited with code 3 before it started\n/,
    );
    assert.match(r.out, /✖ 2 file\(s\) failed:/);
  });

  it('decision R21: test processes run WebAssembly with Liftoff only, as npm start does, except those of the wasm lane', () => {
    const log = join(dir, 'engine-log');
    for (const shared of ['1', '0']) {
      const r = run(['engine', 'engine-wasm', 'passes'], { FIXTURE_ENGINE_LOG: log, TEST_SHARED: shared });
      assert.equal(r.status, 0, r.out);
      assert.deepEqual(
        readFileSync(log, 'utf8').trim().split('\n').sort(),
        ['plain true', 'wasm false'],
        `TEST_SHARED=${shared}`,
      );
      rmSync(log);
    }
  });

  it('a malformed TEST_FILE_TIMEOUT_MS is refused', () => {
    const r = run(['passes'], { TEST_FILE_TIMEOUT_MS: '5min' });
    assert.equal(r.status, 2);
    assert.match(r.out, /TEST_FILE_TIMEOUT_MS must be a non-negative integer/);
  });
});
