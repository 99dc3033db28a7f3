// The embedded host tests' shared set-up: temporary data directories, removed after the file's
// tests, and crash images of a running host's directory.
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';

/** Directories named after `prefix`, all removed when the calling test file ends. */
export function scratchDirs(prefix: string) {
  const dirs: string[] = [];
  after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
  const tempDir = (): string => {
    const d = mkdtempSync(join(tmpdir(), `${prefix}-`));
    dirs.push(d);
    return d;
  };
  return {
    tempDir,
    /** A copy of a running host's directory, as a crash would leave it (the lock's holder is gone with the process). */
    crashImage(dir: string): string {
      const copy = tempDir();
      cpSync(dir, copy, { recursive: true });
      rmSync(join(copy, '.lock'), { force: true });
      return copy;
    },
  };
}
