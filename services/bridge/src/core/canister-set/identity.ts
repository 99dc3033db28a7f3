// What names a canister set (decision B100). Embedded canisters are one directory's state: the set is
// a random id created with it and kept beside it (DATA_DIR/canisters/canister-set.json), so a copy or
// back-up of the directory is the same set and a new directory is another. Canisters on an IC network
// are named by their ids and the network: the hash of both, so a change of any id is another set.
import { createHash, randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { CanisterIds } from '@domdao/canisters';
import { icCanisterIds, IcEnv } from '@domdao/canisters/ic';
import { loadConfig } from '@domdao/config';
import { CanisterSetRefused } from './refused.ts';

export interface CanisterSet {
  /** `embedded:<22 base64url characters>` or `ic:<22 base64url characters>`. */
  id: string;
  mode: 'embedded' | 'ic';
  ids: CanisterIds;
  /** For people: the embedded state's directory, or the IC network. */
  where: string;
}

export const SET_FILE = 'canister-set.json';

/** The embedded set of `DATA_DIR/canisters`, made (with a new id) when the directory has none yet. */
export function embeddedCanisterSet(dataDir: string, ids: CanisterIds): CanisterSet {
  const dir = resolve(dataDir, 'canisters');
  const path = join(dir, SET_FILE);
  let text: string | undefined;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  if (text === undefined) {
    // State of an earlier release (no file) is adopted under a new id, as a new directory is.
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const id = `embedded:${randomBytes(16).toString('base64url')}`;
    writeDurably(path, `${JSON.stringify({ id, created_at: new Date().toISOString() })}\n`);
    return { id, mode: 'embedded', ids, where: dir };
  }
  let id: unknown;
  try {
    id = (JSON.parse(text) as { id?: unknown }).id;
  } catch {
    /* reported below */
  }
  if (typeof id !== 'string' || !/^embedded:[A-Za-z0-9_-]{22}$/.test(id))
    throw new CanisterSetRefused(
      'unreadable',
      `${path} does not name the embedded canister set; restore it from a back-up of ${dir} (the database checks it at every start, decision B100)`,
    );
  return { id, mode: 'embedded', ids, where: dir };
}

/**
 * The set of IC canisters configured by IC_* (validated as icClientsFromEnv does). Mainnet is one
 * network whichever boundary node IC_HOST names; a local replica (IC_FETCH_ROOT_KEY=true) is named by
 * its URL, since local canister ids repeat from one replica to the next.
 */
export function icCanisterSet(env: NodeJS.ProcessEnv): CanisterSet {
  const c = loadConfig(IcEnv, env);
  const ids = icCanisterIds(c);
  const network = c.IC_FETCH_ROOT_KEY ? `local replica ${new URL(c.IC_HOST).origin}` : 'IC mainnet';
  const canonical = JSON.stringify([
    network,
    ...(['governance', 'membership', 'user', 'campaign', 'treasury', 'ledger'] as const).map((n) => ids[n]),
  ]);
  const id = `ic:${createHash('sha256').update(canonical).digest().subarray(0, 16).toString('base64url')}`;
  return { id, mode: 'ic', ids, where: network };
}

/** Written in full under a private name, synced, then renamed into place and the directory synced. */
function writeDurably(path: string, text: string): void {
  const tmp = `${path}.${process.pid}.tmp`;
  const fd = openSync(tmp, 'w', 0o600);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    renameSync(tmp, path);
  } catch (e) {
    unlinkSync(tmp);
    throw e;
  }
  const dirFd = openSync(resolve(path, '..'), 'r');
  try {
    fsyncSync(dirFd);
  } finally {
    closeSync(dirFd);
  }
}
