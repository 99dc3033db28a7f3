// Decision S20: no source file over 400 lines (issue 32, "split the outliers"), so a file stays
// something a newcomer reads in one sitting. Tests, benches, fixtures and generated files are
// exempt: a generated file is regenerated, never read as a unit.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';

const ROOT = join(import.meta.dirname, '..', '..');
const MAX_LINES = 400;
/** Written by a script (npm run types:portal), never by hand. */
const GENERATED = new Set(['apps/portal/src/bridge-api.ts']);
const SOURCE = /\.(ts|tsx|mjs|js)$/;
const EXEMPT = /(^|\/)(test|tests|fixtures|bench)\/|\.test\.ts$|\.d\.ts$/;

const lineCount = (file: string) => readFileSync(join(ROOT, file), 'utf8').split('\n').length - 1;

describe('decision S20: source files of at most 400 lines', () => {
  const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], {
    cwd: ROOT,
    encoding: 'utf8',
  })
    .split('\n')
    .filter((f) => SOURCE.test(f) && !EXEMPT.test(f) && !GENERATED.has(f));

  it('every source file the repository holds is at most 400 lines', () => {
    assert.ok(files.length > 100, `found ${files.length} source files: the listing is wrong`);
    const over = files.map((f) => [f, lineCount(f)] as const).filter(([, n]) => n > MAX_LINES);
    assert.deepEqual(over, [], 'split these along their concerns (decision S10)');
  });
});
