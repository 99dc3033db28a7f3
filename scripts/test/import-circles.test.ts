// Decision S35: no two source files import each other, directly or around a loop, anywhere in the
// repository (issue 49: "no arrow climbing back and no circle"). A circle means neither file can be
// read, tested or moved without the other; type-only imports count, because they tie the files'
// meaning together just the same. Tests and fixtures are exempt (a test may import what it checks
// and a helper beside it). Imports are read by TypeScript's pre-processor, so an import spelled
// inside a string is not one.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, it } from 'node:test';
import ts from 'typescript';

const ROOT = join(import.meta.dirname, '..', '..');
const SOURCE = /\.(ts|tsx|mts|mjs|js)$/;
const EXEMPT = /(^|\/)(test|tests|fixtures)\/|\.test\.ts$|\.d\.ts$/;

/** The file a relative specifier names, among `known`, trying the extensions TypeScript would. */
function resolveIn(known: Set<string>, from: string, spec: string): string | undefined {
  const base = normalize(join(dirname(from), spec))
    .split('\\')
    .join('/');
  const stem = base.replace(/\.(js|mjs|ts|tsx)$/, '');
  const tries = [
    base,
    `${stem}.ts`,
    `${stem}.tsx`,
    `${stem}.mts`,
    `${stem}.mjs`,
    `${stem}.js`,
    `${base}/index.ts`,
    `${base}/index.tsx`,
  ];
  return tries.find((t) => known.has(t));
}

/** Every import circle among `files` (path → text), each as `a → b → … → a`, from its smallest path. */
export function importCircles(files: Map<string, string>): string[] {
  const known = new Set(files.keys());
  const edges = new Map<string, string[]>();
  for (const [file, text] of files) {
    const to = new Set<string>();
    for (const { fileName: spec } of ts.preProcessFile(text, true, true).importedFiles) {
      if (!spec.startsWith('.')) continue;
      const target = resolveIn(known, file, spec);
      if (target && target !== file) to.add(target);
    }
    edges.set(file, [...to].sort());
  }
  // Tarjan's strongly connected components: every component of two or more files is a circle.
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) components.push(component.sort());
    }
  };
  for (const v of [...edges.keys()].sort()) if (!index.has(v)) visit(v);
  return components.map((c) => `${c.join(' ⇄ ')}`).sort();
}

function sourceFiles(): Map<string, string> {
  const listed = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  const files = new Map<string, string>();
  for (const f of listed.split('\n')) {
    if (!SOURCE.test(f) || EXEMPT.test(f) || f.startsWith('node_modules/') || !existsSync(join(ROOT, f))) continue;
    files.set(f, readFileSync(join(ROOT, f), 'utf8'));
  }
  return files;
}

describe('decision S35: no import circle among the source files', () => {
  it('no source file imports itself back through another', () => {
    const files = sourceFiles();
    assert.ok(files.size > 300, `found ${files.size} source files: the listing is wrong`);
    assert.deepEqual(importCircles(files), [], 'move what both sides need into a file both import');
  });

  it('the check finds a circle, type-only imports and a three-file loop included (it can fail)', () => {
    const bad = new Map([
      ['a/x.ts', "import type { Y } from './y.ts';\nexport const x = 1;"],
      ['a/y.ts', "import { z } from './z.js';\nexport type Y = number;"],
      ['a/z.ts', "import { x } from './x';\nexport const z = x;"],
      ['a/w.ts', "import { x } from './x.ts';"],
    ]);
    assert.deepEqual(importCircles(bad), ['a/x.ts ⇄ a/y.ts ⇄ a/z.ts']);
    assert.deepEqual(
      importCircles(
        new Map([
          ['a/w.ts', "import { x } from './x.ts';"],
          ['a/x.ts', 'export const x = 1;'],
        ]),
      ),
      [],
    );
  });
});
