// Decision S32: an `index.ts` is a front door only. It holds nothing but imports and re-exports (a
// package's entry point, or a folder's public surface); code lives in a file named by its role
// (`routes.ts`, `store.ts`, `queue.ts`…), so a file's name says what it holds. Statements are read by
// TypeScript's parser, so a comment or a string that looks like code is not one.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import ts from 'typescript';

const ROOT = join(import.meta.dirname, '..', '..');
const INDEX = /(^|\/)index\.tsx?$/;

/** Is this statement a front door's: an import, a re-export (`export … from`, `export *`), or a type-only `export { … }`? */
function isFrontDoor(s: ts.Statement): boolean {
  if (ts.isImportDeclaration(s) || ts.isImportEqualsDeclaration(s)) return true;
  if (ts.isExportDeclaration(s)) return s.moduleSpecifier !== undefined || s.isTypeOnly;
  return false;
}

/** The statements of `text` (an index file) that are code, as `line: first words`. */
export function codeIn(file: string, text: string): string[] {
  const source = ts.createSourceFile(
    file,
    text,
    ts.ScriptTarget.Latest,
    true,
    file.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS,
  );
  return source.statements
    .filter((s) => !isFrontDoor(s))
    .map(
      (s) =>
        `${source.getLineAndCharacterOfPosition(s.getStart()).line + 1}: ${s.getText().split('\n')[0]!.slice(0, 60)}`,
    );
}

function indexFiles(): string[] {
  return execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], {
    cwd: ROOT,
    encoding: 'utf8',
  })
    .split('\n')
    .filter((f) => INDEX.test(f) && existsSync(join(ROOT, f)));
}

describe('decision S32: an index file is a front door only', () => {
  const files = indexFiles();

  it('no index.ts or index.tsx holds code: only imports and re-exports', () => {
    assert.ok(files.length > 10, `found ${files.length} index files: the listing is wrong`);
    const offending = files
      .map((f) => [f, codeIn(f, readFileSync(join(ROOT, f), 'utf8'))] as const)
      .filter(([, code]) => code.length > 0)
      .map(([f, code]) => `${f} (${code.length} statements, first ${code[0]})`);
    assert.deepEqual(offending, [], 'move the code into a file named by its role and import it from there');
  });

  it('the check refuses code and passes a front door (it can fail)', () => {
    const door = [
      "import './register.ts';",
      "export { default } from './routes.ts';",
      "export * from './store.ts';",
      "export type { Db } from './schema.ts';",
      "import type { Opts } from './opts.ts';",
      'export type { Opts };',
      '// const looksLikeCode = 1;',
    ].join('\n');
    assert.deepEqual(codeIn('a/index.ts', door), []);
    const code = [
      "import { x } from './x.ts';",
      'export { x };',
      'export const y = 1;',
      'export default function plugin() {}',
      'type T = number;',
      'x();',
    ].join('\n');
    assert.deepEqual(
      codeIn('b/index.tsx', code).map((c) => c.split(':')[0]),
      ['2', '3', '4', '5', '6'],
    );
  });
});
