// An exclusive lock on a state directory (decision K20): the embedded canisters and PGlite are
// single-process, so a second process on the same directory would write a second history into the
// same files. The lock is a file holding the owner's PID, created atomically (O_EXCL); a lock whose
// process is gone (crash, kill -9) is taken over, so a crash never leaves the directory stuck.
import { linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export class DirectoryLockedError extends Error {
  override name = 'DirectoryLockedError';
  constructor(
    readonly dir: string,
    readonly pid: number,
  ) {
    super(`${dir} is in use by another process (PID ${pid}); stop it first, or give this one a DATA_DIR of its own`);
  }
}

export interface DirectoryLock {
  readonly path: string;
  release(): void;
}

const LOCK_FILE = '.lock';
/** Locks held by this process (a second open in the same process is refused too). */
const held = new Set<string>();

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Takes the lock of `dir` (created 0700 when missing) or throws DirectoryLockedError. */
export function lockDirectory(dir: string): DirectoryLock {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const path = join(dir, LOCK_FILE);
  if (held.has(path)) throw new DirectoryLockedError(dir, process.pid);
  for (let attempt = 0; attempt < 3; attempt++) {
    // Written in full under a private name, then linked into place (atomic, fails if taken): a lock
    // file is never seen half-written.
    const tmp = `${path}.${process.pid}`;
    writeFileSync(tmp, `${process.pid}\n`, { mode: 0o600 });
    try {
      linkSync(tmp, path);
      held.add(path);
      let released = false;
      return {
        path,
        release() {
          if (released) return;
          released = true;
          held.delete(path);
          try {
            if (Number(readFileSync(path, 'utf8').trim()) === process.pid) unlinkSync(path);
          } catch {
            /* already gone */
          }
        },
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    } finally {
      unlinkSync(tmp);
    }
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch {
      continue; // removed meanwhile: try again
    }
    const pid = Number(text.trim());
    if (Number.isInteger(pid) && pid > 0 && (pid === process.pid || alive(pid)))
      throw new DirectoryLockedError(dir, pid);
    try {
      // Stale: removed only if unchanged, so a lock another process took over meanwhile is kept.
      if (readFileSync(path, 'utf8') === text) unlinkSync(path);
    } catch {
      /* gone already */
    }
  }
  throw new Error(`could not take the lock ${path}`);
}
