// Decisions S1 and S18 (docs/architecture.md "Dependency rules of the bridge"): the folder tree
// is the layering. services/bridge/src/core/ holds the shared seams (auth, identity, db, http, events,
// jobs, outbox, email, the context and the keys), src/features/<name>/ one feature plugin each, and the
// files at src/ the composition root. A feature imports its own folder, core/ and packages, never
// another feature; core/ imports core/ and packages, never a feature; neither imports the composition
// root except config.ts, the configuration every part reads. A new seam or feature is a new folder:
// nothing here changes.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';

/** The one root module core and features may import: the configuration (it validates every part's settings, so it sits at the root). */
export const SHARED_ROOT_FILES = ['config.ts'] as const;

const SRC = resolve(new URL('../src/', import.meta.url).pathname);

function* sources(dir: string): Generator<string> {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) yield* sources(p);
    else if (/\.(ts|mts|js|mjs)$/.test(e.name)) yield p;
  }
}

type Unit = { kind: 'root'; file: string } | { kind: 'core' } | { kind: 'feature'; folder: string } | { kind: 'stray'; path: string };

/** What a path under src/ (relative, with `/`) belongs to, read from the folder tree. */
function unitOf(path: string): Unit {
  const [first, second, ...rest] = path.split('/');
  if (second === undefined) return { kind: 'root', file: first! };
  if (first === 'core') return { kind: 'core' };
  if (first === 'features' && rest.length > 0) return { kind: 'feature', folder: second };
  return { kind: 'stray', path };
}

const describeUnit = (u: Unit) => (u.kind === 'root' ? u.file : u.kind === 'core' ? 'core/' : u.kind === 'feature' ? `features/${u.folder}/` : u.path);

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
    assert.deepEqual(casts, [], 'declare the body, querystring or params with TypeBox in the route schema and take the app as BridgeApp instead of casting');
  });

  it('decision S18: src/ holds core/, features/ and the composition root’s files, nothing else', () => {
    const dirs = readdirSync(SRC, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
      .sort();
    assert.deepEqual(dirs, ['core', 'features']);
    const loose = readdirSync(join(SRC, 'features'), { withFileTypes: true })
      .filter((e) => !e.isDirectory())
      .map((e) => e.name);
    assert.deepEqual(loose, [], 'a feature is a folder under features/');
  });

  it('decisions S18, S19: every feature takes narrow options; a feature names the shared parts it uses as Pick<BridgeContext, …>, never the whole context', () => {
    const whole = [...bridgeSources()]
      .filter(([file]) => file.startsWith('features/'))
      .filter(([, text]) =>
        /\bBridgeContext\b/.test(text.replace(/import type \{ BridgeContext \} from [^\n]+\n/g, '').replace(/Pick<\s*BridgeContext\s*,/g, '')),
      )
      .map(([file]) => file);
    assert.deepEqual(whole, []);
  });

  it('the scan finds each kind of violation, type-only and dynamic imports included (it can fail)', () => {
    const bad = new Map([
      ['features/roles/index.ts', "import { currentSession } from '../../core/auth/guards.ts';\nimport type { X } from '../payments/index.ts';"],
      ['core/auth/login-page.ts', "import { firstOrigin } from '../../features/registration/index.ts';"],
      ['core/keys.ts', "import { generateRegistrationKey } from '../features/registration/hpke.ts';"],
      ['features/payments/webhook.ts', "const m = await import('../verification/index.ts');"],
      ['features/governance/index.ts', "export { y } from '../oracle/index.ts';"],
      ['features/oracle/index.ts', "import { buildApp } from '../../app.ts';"],
      ['core/context.ts', "import type { BridgeParts } from '../app.ts';"],
      ['features/home/index.ts', "import { x } from '../../../../notification/src/app.ts';"],
      ['helpers/x.ts', 'export const x = 1;'],
      [
        'features/verification/index.ts',
        "import { firstOrigin } from '../../config.ts';\nimport { page } from '../../core/http/page.ts';\nimport { emailBlindIndex } from '../../core/identity/email.ts';\nimport { sendError } from '../../core/http/errors.ts';\nimport { Type } from '@sinclair/typebox';\nimport { SUITE } from './hpke.ts';",
      ],
      ['core/outbox/index.ts', "import type { BridgeConfig } from '../../config.ts';\nimport type { Db } from '../db/index.ts';"],
      ['app.ts', "import roles from './features/roles/index.ts';"],
      [
        'config.ts',
        "import { parsePriceSources } from './features/oracle/sources.ts';\nimport { canonicalEmail } from './core/identity/email.ts';\nimport { Type } from '@sinclair/typebox';\nimport type { Db } from './app-database.ts';",
      ],
    ]);
    assert.deepEqual(
      violations(bad).map((v) => v.split(' (')[0]),
      [
        'features/roles/index.ts: ../payments/index.ts',
        'core/auth/login-page.ts: ../../features/registration/index.ts',
        'core/keys.ts: ../features/registration/hpke.ts',
        'features/payments/webhook.ts: ../verification/index.ts',
        'features/governance/index.ts: ../oracle/index.ts',
        'features/oracle/index.ts: ../../app.ts',
        'core/context.ts: ../app.ts',
        'features/home/index.ts: ../../../../notification/src/app.ts',
        'helpers/x.ts:',
        'config.ts: ./features/oracle/sources.ts',
        'config.ts: ./app-database.ts',
      ],
    );
  });
});
