// Decision S29: each service's configuration reference (docs/reference/config-<name>.md) is generated
// from the schema its code parses the environment with, is committed current, and names every variable
// that code reads, also where it reads one outside its schema (a direct process.env read).
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { it } from 'node:test';
import { REFERENCES, referencePath, renderReference, ROOT, staleReferences } from '../docs-config.ts';

/** Source files under `path` (itself when a file), tests and test fixtures excluded: a fixture (the replica's
 * `fixture.ts`) reads only the test runner's own variables, which scripts/README.md documents (R13). */
function sources(path: string): string[] {
  const full = join(ROOT, path);
  if (statSync(full).isFile()) return [path];
  return readdirSync(full, { recursive: true, encoding: 'utf8' })
    .filter(
      (f) =>
        /\.(ts|tsx|mjs)$/.test(f) &&
        !/(^|\/)test\//.test(f) &&
        !f.endsWith('.test.ts') &&
        !/(^|[/.])fixture\.ts$/.test(f),
    )
    .map((f) => `${path}/${f}`);
}

// `process.env.X`, `process.env['X']`, `env.X`, `env['X']`, `env('X')` with X in capitals; `get('X')`
// too in a file whose `get` reads the environment (it indexes `env[name]`).
const READ =
  /\b(?:process\.env|env)(?:\?\.|\.)([A-Z][A-Z0-9_]{2,})\b|\b(?:process\.env|env)\[['"]([A-Z][A-Z0-9_]{2,})['"]\]|\benv\(['"]([A-Z][A-Z0-9_]{2,})['"]\)/g;
const GET = /\bget\(['"]([A-Z][A-Z0-9_]{2,})['"]\)/g;
/** The operating system's own variables, which no reference documents. */
const SYSTEM = new Set(['PATH', 'HOME', 'TMPDIR']);

/** Every variable `files` read directly, with the first file that reads it. */
export function directReads(files: string[]): Map<string, string> {
  const reads = new Map<string, string>();
  for (const file of files) {
    const text = readFileSync(join(ROOT, file), 'utf8');
    const found = [...text.matchAll(READ), ...(text.includes('env[name]') ? text.matchAll(GET) : [])];
    for (const m of found) {
      const name = (m[1] ?? m[2] ?? m[3])!;
      if (!SYSTEM.has(name) && !reads.has(name)) reads.set(name, file);
    }
  }
  return reads;
}

it('decision S29: every docs/reference/config-*.md is what `npm run docs:config` generates from the schemas now', () => {
  assert.deepEqual(
    staleReferences(),
    [],
    'a config schema changed: run `npm run docs:config` and commit docs/reference/',
  );
  const committed = readdirSync(join(ROOT, 'docs/reference')).filter((f) => f.startsWith('config-'));
  assert.deepEqual(
    committed.sort(),
    REFERENCES.map((r) => referencePath(r).split('/').pop()!).sort(),
    'no reference without a schema behind it',
  );
});

it('decision S29: every variable a service, the replica or a script reads is a row of its reference, with its default', () => {
  const missing: string[] = [];
  for (const ref of REFERENCES) {
    const text = readFileSync(join(ROOT, referencePath(ref)), 'utf8');
    const rows = new Set([...text.matchAll(/^\| `([A-Z][A-Z0-9_]*)` \|/gm)].map((m) => m[1]!));
    for (const t of ref.tables)
      for (const r of t.rows) if (!rows.has(r.name)) missing.push(`${referencePath(ref)}: ${r.name} (schema)`);
    for (const [name, file] of directReads(ref.readers.flatMap(sources)))
      if (!rows.has(name)) missing.push(`${referencePath(ref)}: ${name} (read by ${file})`);
  }
  assert.deepEqual(missing, [], 'each variable the code reads is documented in its reference');
});

it('decision S29: the generated table shows a default as code and escapes a `|` inside a cell', () => {
  const text = renderReference({
    name: 'x',
    title: 'X',
    intro: 'intro',
    tables: [
      {
        heading: 'H',
        parser: 'p.ts',
        rows: [
          { name: 'A_B', default: '1', accepts: 'integer', description: 'a | b' },
          { name: 'C_D', accepts: 'text', description: 'c' },
        ],
      },
    ],
    readers: [],
  });
  assert.match(text, /^\| `A_B` \| `1` \| integer \| a \\\| b \|$/m);
  assert.match(text, /^\| `C_D` \| — \| text \| c \|$/m);
});
