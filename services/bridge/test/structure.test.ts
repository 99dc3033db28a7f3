// Decision S1 (docs/architecture.md "Dependency rules of the bridge"): bridge features never
// import each other; they share through the shared folders below, the bridge's configuration and
// context, or a package. A new shared seam is one more entry in SHARED_FOLDERS (and a line in the
// architecture page); a new feature needs nothing here.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';

/** Folders of services/bridge/src every feature may import (each is a seam, not a capability). */
export const SHARED_FOLDERS = ['auth', 'identity', 'db', 'http', 'events', 'jobs', 'outbox', 'email'] as const;
/** Root modules features may import: the configuration and the context every route shares. */
export const SHARED_ROOT_FILES = ['config.ts', 'context.ts'] as const;
/** The composition root: opens and wires everything, so it may import anything; nothing imports it but main.ts. */
export const COMPOSITION_FILES = ['app.ts', 'app-background.ts', 'app-members.ts', 'app-ai.ts', 'main.ts', 'keys.ts', 'canisters.ts', 'config.ts', 'context.ts'] as const;

const SRC = resolve(new URL('../src/', import.meta.url).pathname);

function* sources(dir: string): Generator<string> {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) yield* sources(p);
    else if (/\.(ts|mts|js|mjs)$/.test(e.name)) yield p;
  }
}

type Unit = { kind: 'root'; file: string } | { kind: 'shared' | 'feature'; folder: string };

/** What a path under src/ (relative, with `/`) belongs to. */
function unitOf(path: string): Unit {
  const [first, ...rest] = path.split('/');
  if (rest.length === 0) return { kind: 'root', file: first! };
  return { kind: (SHARED_FOLDERS as readonly string[]).includes(first!) ? 'shared' : 'feature', folder: first! };
}

const describeUnit = (u: Unit) => (u.kind === 'root' ? u.file : `${u.kind} ${u.folder}/`);

/** Every import (static, type-only, re-export or dynamic) that breaks the bridge's rules, as `file: specifier (why)`. */
export function violations(files: Map<string, string>): string[] {
  const out: string[] = [];
  for (const [file, text] of files) {
    const from = unitOf(file);
    if (from.kind === 'root' && (COMPOSITION_FILES as readonly string[]).includes(from.file)) continue;
    for (const m of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)['"]([^'"]+)['"]/g)) {
      const spec = m[1]!;
      if (!spec.startsWith('.')) continue; // packages: always allowed
      const target = relative(SRC, resolve(SRC, dirname(file), spec)).split('\\').join('/');
      if (target.startsWith('..')) {
        out.push(`${file}: ${spec} (leaves services/bridge/src: use the package's name)`);
        continue;
      }
      const to = unitOf(target);
      if (to.kind === 'root') {
        if (!(SHARED_ROOT_FILES as readonly string[]).includes(to.file)) out.push(`${file}: ${spec} (${to.file} is the composition root; take what it builds through your options)`);
        continue;
      }
      if (from.kind !== 'root' && to.folder === from.folder) continue;
      if (to.kind === 'feature') out.push(`${file}: ${spec} (${describeUnit(from)} imports ${describeUnit(to)}: features share through ${SHARED_FOLDERS.join(', ')}, the options app.ts passes, or a package)`);
    }
  }
  return out;
}

function bridgeSources(): Map<string, string> {
  const files = new Map<string, string>();
  for (const f of sources(SRC)) files.set(relative(SRC, f).split('\\').join('/'), readFileSync(f, 'utf8'));
  return files;
}

describe('dependency rules of the bridge (decision S1)', () => {
  it('no bridge feature imports another feature, the composition root, or a file outside the bridge by path', () => {
    const files = bridgeSources();
    assert.ok(files.size > 40, 'the scan sees the bridge sources');
    assert.deepEqual(violations(files), []);
  });

  it('decision S5: no handler casts a request body; route schemas type it (TypeBox type provider, http/typed.ts)', () => {
    const casts = [...bridgeSources()].flatMap(([file, text]) => [...text.matchAll(/\breq\.body as\b/g)].map(() => file));
    assert.deepEqual(casts, [], 'declare the body with TypeBox in the route schema and take the app as BridgeApp instead of casting req.body');
  });

  it('every shared folder named here exists, so the list stays the one place that names them', () => {
    const folders = new Set([...bridgeSources().keys()].map((f) => f.split('/')).filter((p) => p.length > 1).map((p) => p[0]));
    // `jobs` and `outbox` are seams being built beside this one: listed ahead so they need no edit here.
    for (const s of SHARED_FOLDERS.filter((s) => s !== 'jobs' && s !== 'outbox')) assert.ok(folders.has(s), `${s}/ is listed as shared but does not exist`);
  });

  it('the scan finds each kind of violation, type-only and dynamic imports included (it can fail)', () => {
    const bad = new Map([
      ['roles/index.ts', "import { currentSession } from '../auth/guards.ts';\nimport type { X } from '../payments/index.ts';"],
      ['auth/login-page.ts', "import { firstOrigin } from '../registration/index.ts';"],
      ['payments/webhook.ts', "const m = await import('../verification/index.ts');"],
      ['governance/index.ts', "export { y } from '../oracle/index.ts';"],
      ['oracle/index.ts', "import { buildApp } from '../app.ts';"],
      ['home/index.ts', "import { x } from '../../../notification/src/app.ts';"],
      ['verification/index.ts', "import { firstOrigin } from '../config.ts';\nimport { page } from '../http/page.ts';\nimport { emailBlindIndex } from '../identity/email.ts';\nimport { sendError } from '../http/errors.ts';\nimport { Type } from '@sinclair/typebox';\nimport { SUITE } from './hpke.ts';"],
      ['app.ts', "import roles from './roles/index.ts';"],
    ]);
    assert.deepEqual(
      violations(bad).map((v) => v.split(' (')[0]),
      ['roles/index.ts: ../payments/index.ts', 'auth/login-page.ts: ../registration/index.ts', 'payments/webhook.ts: ../verification/index.ts', 'governance/index.ts: ../oracle/index.ts', 'oracle/index.ts: ../app.ts', 'home/index.ts: ../../../notification/src/app.ts'],
    );
  });
});
