// Decision R54: a test replica (`@domdao/replica`) started from a copy of a REPLICA_DIR made once per
// `npm test` run, for files whose subject is not the making: installing the six canisters took about
// 20 CPU s of their `canister_init`, a deploy onto an empty replica about 25 with its own process; a copy
// restarts in under a second (W14's restore). Each kind is made by the production path, stopped cleanly,
// in the run's scratch directory (`TEST_RUN_CACHE_DIR`; a file run alone keeps one for its process), and
// each file gets its own copy: its own directory, port and journal, the same keys, identity and canister
// ids, the state as the making left it. What a new directory and a deploy do is tested where it is the
// subject (replica-http, management, ic-deploy, ic-replica-history).
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { runScript } from '@domdao/test-helpers';
import { startReplica, type RunningReplica } from './server.ts';

/** `installed`: `npm run replica` on a new directory (the six canisters installed, W16). `deployed`: `npm run replica -- --empty`, then `npm run deploy -- --out` onto it (W18, W19). */
export type ReplicaFixtureKind = 'installed' | 'deployed';

let ownCache: string | undefined;
function cacheDir(): string {
  const shared = process.env.TEST_RUN_CACHE_DIR;
  if (shared) {
    mkdirSync(shared, { recursive: true });
    return shared;
  }
  if (!ownCache) {
    const own = mkdtempSync(join(tmpdir(), 'domdao-replica-cache-'));
    process.once('exit', () => rmSync(own, { recursive: true, force: true }));
    ownCache = own;
  }
  return ownCache;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
};

async function make(kind: ReplicaFixtureKind, out: string): Promise<void> {
  const r = await startReplica({ dir: join(out, 'replica'), empty: kind === 'deployed' });
  try {
    if (kind === 'deployed') {
      const deployed = await runScript('scripts/deploy.ts', ['--out', join(out, 'deployed.env')], r.env);
      if (deployed.code !== 0)
        throw new Error(
          `npm run deploy onto the fixture replica exited ${deployed.code}: ${deployed.err}${deployed.out}`,
        );
    }
  } finally {
    await r.stop();
  }
}

/**
 * The fixture's directory in the run's cache, made by whichever process asks first; another process
 * asking meanwhile waits for it (the maker's PID is in `<name>.making`; a maker that died is taken over).
 */
async function fixture(kind: ReplicaFixtureKind): Promise<string> {
  const root = cacheDir();
  const path = join(root, `replica-${kind}`);
  const making = `${path}.making`;
  for (;;) {
    if (existsSync(path)) return path;
    try {
      mkdirSync(making);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      let pid = 0;
      try {
        pid = Number(readFileSync(join(making, 'pid'), 'utf8'));
      } catch {
        /* not written yet, or the maker is done */
      }
      if (pid > 0 && !alive(pid)) rmSync(making, { recursive: true, force: true });
      else await sleep(500);
      continue;
    }
    try {
      writeFileSync(join(making, 'pid'), String(process.pid));
      const scratch = join(making, 'out');
      await make(kind, scratch);
      renameSync(scratch, path);
      return path;
    } finally {
      rmSync(making, { recursive: true, force: true });
    }
  }
}

const made = new Map<ReplicaFixtureKind, Promise<string>>();
const fixtureOnce = (kind: ReplicaFixtureKind) => {
  let p = made.get(kind);
  if (!p) {
    p = fixture(kind);
    made.set(kind, p);
    p.catch(() => made.delete(kind));
  }
  return p;
};

/** A replica with the six canisters installed at start (as `startReplica({ dir })` on a new `dir` makes it), in `dir` (which must not exist). */
export async function startInstalledReplica(dir: string): Promise<RunningReplica> {
  if (existsSync(dir)) throw new Error(`${dir} exists: the fixture replica is copied into a new directory`);
  cpSync(join(await fixtureOnce('installed'), 'replica'), dir, { recursive: true });
  return startReplica({ dir });
}

/**
 * An `--empty` replica the six canisters were deployed onto, in `dir` (which must not exist), and
 * `npm run deploy -- --out`'s settings file for it written to `out` (its IC_HOST and identity this copy's).
 */
export async function startDeployedReplica(dir: string, out: string): Promise<RunningReplica> {
  if (existsSync(dir)) throw new Error(`${dir} exists: the fixture replica is copied into a new directory`);
  const from = await fixtureOnce('deployed');
  cpSync(join(from, 'replica'), dir, { recursive: true });
  const r = await startReplica({ dir });
  const settings = readFileSync(join(from, 'deployed.env'), 'utf8')
    .replace(/^IC_HOST=.*$/m, `IC_HOST=${r.env.IC_HOST}`)
    .replace(/^IC_IDENTITY_PEM_FILE=.*$/m, `IC_IDENTITY_PEM_FILE=${r.env.IC_IDENTITY_PEM_FILE}`);
  writeFileSync(out, settings, { mode: 0o600 });
  return r;
}
