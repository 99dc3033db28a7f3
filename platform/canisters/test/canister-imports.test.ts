// Each canister has a front door (docs/architecture.md "Dependency rules"): outside a
// canister's folder, code imports it only by package name through its front door
// (`@domdao/canister-<name>` = canisters/<name>/index.ts), never a file behind it; and no canister
// reaches into another by relative path (shared rules live in @domdao/canister-kit).
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';

const ROOT = resolve(new URL('../../../', import.meta.url).pathname);
const CANISTERS = readdirSync(join(ROOT, 'canisters'));

function* sources(dir: string): Generator<string> {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.name === 'node_modules' || e.name.startsWith('.')) continue;
    const p = join(dir, e.name);
    if (e.isDirectory()) yield* sources(p);
    else if (/\.(ts|mts|js|mjs)$/.test(e.name)) yield p;
  }
}

/** The canister whose folder holds `file` (repo-relative), if any. */
const canisterOf = (file: string) => /^canisters\/([^/]+)\//.exec(file)?.[1];

/** Every import that breaks the rules, as `file: specifier (why)`. Files are repo-relative paths. */
export function violations(files: Map<string, string>): string[] {
  const out: string[] = [];
  for (const [file, text] of files) {
    const home = canisterOf(file);
    for (const m of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)['"]([^'"]+)['"]/g)) {
      const spec = m[1]!;
      const sub = /^@domdao\/canister-([a-z]+)\/(.+)$/.exec(spec);
      if (sub && CANISTERS.includes(sub[1]!)) out.push(`${file}: ${spec} (past the front door of ${sub[1]})`);
      if (!spec.startsWith('.')) continue;
      const target = relative(ROOT, resolve(ROOT, dirname(file), spec));
      const into = canisterOf(target);
      if (into !== undefined && into !== home)
        out.push(`${file}: ${spec} (relative path into canister ${into}; import @domdao/canister-${into})`);
    }
  }
  return out;
}

describe('dependency rules of the canisters (decisions S4, S14)', () => {
  it('no package, service, script or canister reaches past a canister front door or into a sibling canister by relative path', () => {
    const files = new Map<string, string>();
    for (const top of ['canisters', 'packages', 'platform', 'services', 'scripts', 'bench']) {
      for (const f of sources(join(ROOT, top))) files.set(relative(ROOT, f), readFileSync(f, 'utf8'));
    }
    files.delete(relative(ROOT, new URL(import.meta.url).pathname)); // its examples below break the rules on purpose
    assert.ok(files.size > 50, 'the scan sees the repository');
    assert.deepEqual(violations(files), []);
  });

  it('every canister has a front door and its package exports only it', () => {
    for (const c of CANISTERS) {
      const pkg = JSON.parse(readFileSync(join(ROOT, 'canisters', c, 'package.json'), 'utf8')) as {
        name: string;
        exports: unknown;
      };
      assert.equal(pkg.name, `@domdao/canister-${c}`);
      assert.deepEqual(pkg.exports, { '.': './index.ts' });
    }
  });

  it('the scan finds each kind of violation (it can fail)', () => {
    const bad = new Map([
      [
        'platform/canisters/src/x.ts',
        "import { governanceCore } from '@domdao/canister-governance/core/governance.ts';",
      ],
      ['canisters/treasury/core/treasury.ts', "import { usdToDomE8s } from '../../campaign/core/progress.ts';"],
      ['services/bridge/src/y.ts', "const m = await import('../../../canisters/user/core/user.ts');"],
      [
        'canisters/campaign/core/ok.ts',
        "import { campaignProgress } from './progress.ts';\nimport { isStale } from '@domdao/canister-kit/rules';\nimport { governanceMethods } from '@domdao/canister-governance';",
      ],
    ]);
    assert.deepEqual(
      violations(bad).map((v) => v.split(':')[0]),
      ['platform/canisters/src/x.ts', 'canisters/treasury/core/treasury.ts', 'services/bridge/src/y.ts'],
    );
  });
});

describe('the proposal categories have one source (decision S17)', () => {
  /** A list literal naming every category: spec 1's six names between one pair of brackets. */
  const spellsTheList = (text: string) =>
    [...text.matchAll(/\[[^[\]]*\]/g)].some((m) =>
      [
        'General',
        'TreasuryPayout',
        'SetDomPrice',
        'MembershipPolicy',
        'ConstitutionalAmendment',
        'EmergencyAction',
      ].every((c) => m[0].includes(`'${c}'`)),
    );

  it('only @domdao/canister-kit/rules spells the list; the canister, the bridge and the web app import it', () => {
    const spelled: string[] = [];
    const walk = function* (dir: string): Generator<string> {
      for (const e of readdirSync(dir, { withFileTypes: true })) {
        if (e.name === 'node_modules' || e.name === 'dist' || e.name === 'test' || e.name.startsWith('.')) continue;
        const p = join(dir, e.name);
        if (e.isDirectory()) yield* walk(p);
        else if (/\.(ts|tsx|mts|js|mjs)$/.test(e.name)) yield p;
      }
    };
    for (const top of ['canisters', 'packages', 'platform', 'services', 'apps', 'scripts']) {
      for (const f of walk(join(ROOT, top)))
        if (spellsTheList(readFileSync(f, 'utf8'))) spelled.push(relative(ROOT, f));
    }
    assert.deepEqual(spelled, ['packages/canister-kit/src/rules.ts']);
  });

  it('the check sees a list in another order (it can fail)', () => {
    assert.ok(
      spellsTheList(
        "export const CATEGORIES = ['General', 'SetDomPrice', 'TreasuryPayout', 'MembershipPolicy', 'ConstitutionalAmendment', 'EmergencyAction'] as const;",
      ),
    );
    assert.ok(!spellsTheList("import { PROPOSAL_CATEGORIES } from '@domdao/canister-kit/rules';"));
  });
});
