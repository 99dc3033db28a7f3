// Decisions S1 and S18 (docs/architecture.md "Dependency rules of the bridge"): the folder tree
// is the layering. services/bridge/src/core/ holds the shared seams (auth, identity, db, http, events,
// jobs, outbox, email, the context and the keys), src/features/<name>/ one feature plugin each, and
// src/compose/ the composition root (decision S23), beside the process entry main.ts and config.ts at
// src/. A feature imports its own folder, core/ and packages, never another feature; core/ imports
// core/ and packages, never a feature; neither imports the composition root except config.ts, the
// configuration every part reads; the composition root's files import each other without a circle.
// A new seam or feature is a new folder: nothing here changes.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';

/** The root modules core and features may import: the configuration and its schema (it validates every part's settings, so it sits at the root). */
export const SHARED_ROOT_FILES = ['config.ts', 'config-schema.ts'] as const;

const SRC = resolve(new URL('../src/', import.meta.url).pathname);

function* sources(dir: string): Generator<string> {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) yield* sources(p);
    else if (/\.(ts|mts|js|mjs)$/.test(e.name)) yield p;
  }
}

type Unit =
  | { kind: 'root'; file: string }
  | { kind: 'core' }
  | { kind: 'feature'; folder: string }
  | { kind: 'stray'; path: string };

/** What a path under src/ (relative, with `/`) belongs to, read from the folder tree. */
function unitOf(path: string): Unit {
  const [first, second, ...rest] = path.split('/');
  if (second === undefined) return { kind: 'root', file: first! };
  if (first === 'compose' && rest.length === 0) return { kind: 'root', file: `compose/${second}` };
  if (first === 'core') return { kind: 'core' };
  if (first === 'features' && rest.length > 0) return { kind: 'feature', folder: second };
  return { kind: 'stray', path };
}

const describeUnit = (u: Unit) =>
  u.kind === 'root' ? u.file : u.kind === 'core' ? 'core/' : u.kind === 'feature' ? `features/${u.folder}/` : u.path;

/** Every import (static, type-only, re-export or dynamic) that breaks the bridge's rules, as `file: specifier (why)`. */
export function violations(files: Map<string, string>): string[] {
  const out: string[] = [];
  for (const [file, text] of files) {
    const from = unitOf(file);
    if (from.kind === 'stray') {
      out.push(`${file}: (outside core/ and features/<name>/: a seam goes in core/, a feature in features/<name>/)`);
      continue;
    }
    // The composition root opens and wires everything; config.ts, which every part reads, is held to
    // core's rule (decision S27): it imports core/ and packages, never a feature or the rest of the root.
    if (from.kind === 'root' && !(SHARED_ROOT_FILES as readonly string[]).includes(from.file)) continue;
    for (const m of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)['"]([^'"]+)['"]/g)) {
      const spec = m[1]!;
      if (!spec.startsWith('.')) continue; // packages: always allowed
      const target = relative(SRC, resolve(SRC, dirname(file), spec))
        .split('\\')
        .join('/');
      if (target.startsWith('..')) {
        out.push(`${file}: ${spec} (leaves services/bridge/src: use the package's name)`);
        continue;
      }
      const to = unitOf(target);
      if (to.kind === 'root') {
        if (!(SHARED_ROOT_FILES as readonly string[]).includes(to.file))
          out.push(`${file}: ${spec} (${to.file} is the composition root; take what it builds through your options)`);
        continue;
      }
      if (to.kind === 'core') continue;
      if (to.kind === 'feature' && from.kind === 'feature' && to.folder === from.folder) continue;
      const why =
        from.kind === 'core'
          ? 'core/ never imports a feature; the feature passes it in'
          : from.kind === 'root'
            ? 'every part reads the configuration, so it imports no feature: what it checks goes in core/ or a package (decision S27)'
            : 'features share through core/, the options app.ts passes, or a package';
      out.push(`${file}: ${spec} (${describeUnit(from)} imports ${describeUnit(to)}: ${why})`);
    }
  }
  return out;
}

/** The import circles among the composition root's files (decision S23), each as `a → b → a`. */
export function rootCircles(files: Map<string, string>): string[] {
  const edges = new Map<string, string[]>();
  for (const [file, text] of files) {
    if (unitOf(file).kind !== 'root') continue;
    const to: string[] = [];
    for (const m of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)['"]([^'"]+)['"]/g)) {
      if (!m[1]!.startsWith('.')) continue;
      const target = relative(SRC, resolve(SRC, dirname(file), m[1]!))
        .split('\\')
        .join('/');
      if (files.has(target) && unitOf(target).kind === 'root') to.push(target);
    }
    edges.set(file, to);
  }
  const circles = new Set<string>();
  const walk = (path: string[]) => {
    for (const next of edges.get(path.at(-1)!) ?? []) {
      const at = path.indexOf(next);
      if (at >= 0) {
        const loop = path.slice(at);
        const start = loop.indexOf([...loop].sort()[0]!);
        const turned = [...loop.slice(start), ...loop.slice(0, start)];
        circles.add([...turned, turned[0]].join(' → '));
      } else walk([...path, next]);
    }
  };
  for (const file of edges.keys()) walk([file]);
  return [...circles].sort();
}

/**
 * Decision R42: what a migration (core/db/migrations/*.ts) may import: its own folder, the driver
 * (kysely), Node's built-ins, the pinned confusables data (unhomoglyph, migration 065), and the
 * database's types (`import type` of core/db/schema.ts). Anything else is live code, which would let a
 * later change alter what an old migration does.
 */
const MIGRATION_PACKAGES = ['kysely', 'unhomoglyph'];
export function migrationImportProblems(files: Map<string, string>): string[] {
  const out: string[] = [];
  for (const [file, text] of files) {
    if (!/^core\/db\/migrations\/[^/]+$/.test(file)) continue;
    for (const m of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)['"]([^'"]+)['"]/g)) {
      const spec = m[1]!;
      const typeOnly = /^import\s+type\b/.test(text.slice(text.lastIndexOf('\n', m.index) + 1, m.index + m[0].length));
      if (!spec.startsWith('.')) {
        if (spec.startsWith('node:') || MIGRATION_PACKAGES.includes(spec)) continue;
        out.push(`${file}: ${spec} (a package a migration may not use: copy what it needs into the migration)`);
        continue;
      }
      const target = relative(SRC, resolve(SRC, dirname(file), spec))
        .split('\\')
        .join('/');
      if (target.startsWith('core/db/migrations/')) continue;
      if (typeOnly && target === 'core/db/schema.ts') continue;
      out.push(`${file}: ${spec} (live code: copy what the migration needs into it, frozen, decision R42)`);
    }
  }
  return out;
}

function bridgeSources(): Map<string, string> {
  const files = new Map<string, string>();
  for (const f of sources(SRC)) files.set(relative(SRC, f).split('\\').join('/'), readFileSync(f, 'utf8'));
  return files;
}

describe('dependency rules of the bridge (decisions S1, S18)', () => {
  it('no feature imports another feature or the composition root, core/ and config.ts import no feature (decision S27), nothing leaves the bridge by path', () => {
    const files = bridgeSources();
    assert.ok(files.size > 40, 'the scan sees the bridge sources');
    assert.deepEqual(violations(files), []);
  });

  it('decisions S5, S28: no handler casts a request body, query or params; route schemas type them (TypeBox type provider, core/http/typed.ts)', () => {
    const casts = [...bridgeSources()].flatMap(([file, text]) =>
      [...text.matchAll(/\b(?:req|request)\.(body|query|params)\)? as\b/g)].map((m) => `${file}: ${m[1]}`),
    );
    assert.deepEqual(
      casts,
      [],
      'declare the body, querystring or params with TypeBox in the route schema and take the app as BridgeApp instead of casting',
    );
  });

  it('decisions S18, S23, S32: src/ holds compose/ (the composition root), core/, features/, the entry main.ts and config.ts with its schema, nothing else', () => {
    const entries = readdirSync(SRC, { withFileTypes: true });
    const dirs = entries
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
      .sort();
    assert.deepEqual(dirs, ['compose', 'core', 'features']);
    const rootFiles = entries
      .filter((e) => !e.isDirectory())
      .map((e) => e.name)
      .sort();
    assert.deepEqual(
      rootFiles,
      ['config-schema.ts', 'config.ts', 'main.ts'],
      'the composition root’s files live in compose/',
    );
    const loose = readdirSync(join(SRC, 'features'), { withFileTypes: true })
      .filter((e) => !e.isDirectory())
      .map((e) => e.name);
    assert.deepEqual(loose, [], 'a feature is a folder under features/');
  });

  it('decisions S18, S19: every feature takes narrow options; a feature names the shared parts it uses as Pick<BridgeContext, …>, never the whole context', () => {
    const whole = [...bridgeSources()]
      .filter(([file]) => file.startsWith('features/'))
      .filter(([, text]) =>
        /\bBridgeContext\b/.test(
          text.replace(/import type \{ BridgeContext \} from [^\n]+\n/g, '').replace(/Pick<\s*BridgeContext\s*,/g, ''),
        ),
      )
      .map(([file]) => file);
    assert.deepEqual(whole, []);
  });

  it('decision S23: the composition root’s files import each other without a circle', () => {
    const files = bridgeSources();
    assert.ok(
      [...files.keys()].filter((f) => f.startsWith('compose/')).length >= 5,
      'the scan sees the composition root',
    );
    assert.deepEqual(rootCircles(files), []);
  });

  it('decision S23: the circle check finds a circle in the composition root, type-only imports included (it can fail)', () => {
    const bad = new Map([
      ['compose/app.ts', "import { registerAi } from './ai.ts';\nimport { BRIDGE_VERSION } from './parts.ts';"],
      ['compose/ai.ts', "import type { BridgeParts } from './app.ts';"],
      ['compose/parts.ts', "import type { Db } from '../core/db/schema.ts';"],
      ['main.ts', "import { openBridge } from './compose/open-bridge.ts';"],
      ['compose/open-bridge.ts', "import { buildApp } from './app.ts';"],
    ]);
    assert.deepEqual(rootCircles(bad), ['compose/ai.ts → compose/app.ts → compose/ai.ts']);
    assert.deepEqual(
      violations(new Map([['features/oracle/routes.ts', "import type { BridgeParts } from '../../compose/parts.ts';"]]))
        .length,
      1,
    );
  });

  it('decision R42: migrations are frozen; a migration imports only its own folder, the driver, Node built-ins, pinned data and the database types', () => {
    const files = bridgeSources();
    assert.ok(
      [...files.keys()].filter((f) => f.startsWith('core/db/migrations/')).length >= 20,
      'the scan sees the migrations',
    );
    assert.deepEqual(migrationImportProblems(files), []);
  });

  it('decision R42: the migration check refuses live code and other packages (it can fail)', () => {
    const bad = new Map([
      [
        'core/db/migrations/061-display-names.ts',
        "import { sql } from 'kysely';\nimport { defaultDisplayName } from '../../identity/display-names.ts';",
      ],
      [
        'core/db/migrations/065-display-name-keys.ts',
        "import unhomoglyph from 'unhomoglyph';\nimport { lookalikeKey } from '../../identity/display-name-rules.ts';",
      ],
      [
        'core/db/migrations/080-x.ts',
        "import { createHash } from 'node:crypto';\nimport type { Database } from '../schema.ts';\nimport { helper } from './frozen-helper.ts';",
      ],
      [
        'core/db/migrations/081-y.ts',
        "import { Database } from '../schema.ts';\nimport { Type } from '@sinclair/typebox';\nconst m = await import('../../../config.ts');",
      ],
      ['core/db/migrate.ts', "import { x } from '../identity/display-names.ts';"],
    ]);
    assert.deepEqual(
      migrationImportProblems(bad).map((v) => v.split(' (')[0]),
      [
        'core/db/migrations/061-display-names.ts: ../../identity/display-names.ts',
        'core/db/migrations/065-display-name-keys.ts: ../../identity/display-name-rules.ts',
        'core/db/migrations/081-y.ts: ../schema.ts',
        'core/db/migrations/081-y.ts: @sinclair/typebox',
        'core/db/migrations/081-y.ts: ../../../config.ts',
      ],
    );
  });

  it('the scan finds each kind of violation, type-only and dynamic imports included (it can fail)', () => {
    const bad = new Map([
      [
        'features/roles/routes.ts',
        "import { currentSession } from '../../core/auth/guards.ts';\nimport type { X } from '../payments/routes.ts';",
      ],
      ['core/auth/login-page.ts', "import { firstOrigin } from '../../features/registration/routes.ts';"],
      ['core/keys.ts', "import { generateRegistrationKey } from '../features/registration/hpke.ts';"],
      ['features/payments/webhook.ts', "const m = await import('../verification/routes.ts');"],
      ['features/governance/routes.ts', "export { y } from '../oracle/routes.ts';"],
      ['features/oracle/routes.ts', "import { buildApp } from '../../app.ts';"],
      ['core/context.ts', "import type { BridgeParts } from '../app.ts';"],
      ['features/home/routes.ts', "import { x } from '../../../../notification/src/app.ts';"],
      ['helpers/x.ts', 'export const x = 1;'],
      [
        'features/verification/routes.ts',
        "import { firstOrigin } from '../../config.ts';\nimport { page } from '../../core/http/page.ts';\nimport { emailBlindIndex } from '../../core/identity/email.ts';\nimport { sendError } from '../../core/http/errors.ts';\nimport { Type } from '@sinclair/typebox';\nimport { SUITE } from './hpke.ts';",
      ],
      [
        'core/outbox/queue.ts',
        "import type { BridgeConfig } from '../../config.ts';\nimport type { Db } from '../db/schema.ts';",
      ],
      ['app.ts', "import roles from './features/roles/routes.ts';"],
      [
        'config.ts',
        "import { parsePriceSources } from './features/oracle/sources.ts';\nimport { canonicalEmail } from './core/identity/email.ts';\nimport { Type } from '@sinclair/typebox';\nimport type { Db } from './app-database.ts';",
      ],
    ]);
    assert.deepEqual(
      violations(bad).map((v) => v.split(' (')[0]),
      [
        'features/roles/routes.ts: ../payments/routes.ts',
        'core/auth/login-page.ts: ../../features/registration/routes.ts',
        'core/keys.ts: ../features/registration/hpke.ts',
        'features/payments/webhook.ts: ../verification/routes.ts',
        'features/governance/routes.ts: ../oracle/routes.ts',
        'features/oracle/routes.ts: ../../app.ts',
        'core/context.ts: ../app.ts',
        'features/home/routes.ts: ../../../../notification/src/app.ts',
        'helpers/x.ts:',
        'config.ts: ./features/oracle/sources.ts',
        'config.ts: ./app-database.ts',
      ],
    );
  });
});
