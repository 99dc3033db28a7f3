// Decision S24: each workspace is entered through its front door. A file of one workspace never
// imports another workspace's file by path (it names the package: `@domdao/registration`, never
// `../../../packages/registration/src/seal.ts`), and no workspace's source imports a wing (a service
// or an app, the deployables at the top), so what two wings share lives in a package both import.
// Tests may start another wing through its package name (a devDependency). The root's own tooling
// (scripts/, bench/) drives every workspace and is not one. Imports are read by TypeScript's
// pre-processor, so an import spelled inside a string (a test's fixture) is not one.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, it } from 'node:test';
import ts from 'typescript';

const ROOT = join(import.meta.dirname, '..', '..');
const GROUPS = ['packages', 'platform', 'canisters', 'services', 'apps'];
/** Wings: deployables nothing else's source may import (their tests may start them). */
const WINGS = ['services', 'apps'];
const SOURCE = /\.(ts|tsx|mts|mjs|js)$/;
const TEST = /(^|\/)(test|tests|fixtures)\/|\.test\.ts$/;

/**
 * Known crossings, each with why it stays; the list only shrinks, and is empty: the web app's tests
 * reach the bridge's harness by its package name, `@domdao/bridge-service/testing` (decision F62), and
 * the gateway's the bridge's seeded embedded database, `@domdao/bridge-service/testing/embedded-template`.
 */
export const KNOWN_CROSSINGS: ReadonlyMap<string, string> = new Map<string, string>([]);

export interface Workspace {
  dir: string;
  name: string;
}

export function workspaces(root = ROOT): Workspace[] {
  const listed = execFileSync(
    'git',
    ['ls-files', '--cached', '--others', '--exclude-standard', '--', ...GROUPS.map((g) => `${g}/*/package.json`)],
    {
      cwd: root,
      encoding: 'utf8',
    },
  );
  return listed
    .split('\n')
    .filter((f) => /^[^/]+\/[^/]+\/package\.json$/.test(f))
    .map((f) => ({
      dir: dirname(f),
      name: (JSON.parse(readFileSync(join(root, f), 'utf8')) as { name: string }).name,
    }));
}

const isWing = (dir: string) => WINGS.includes(dir.split('/')[0]!);

/** Every import of `files` (path → text) that breaks decision S24, as `from -> to (why)`. */
export function crossings(files: Map<string, string>, spaces: Workspace[]): string[] {
  const home = (path: string) => spaces.find((w) => path.startsWith(`${w.dir}/`));
  const byName = new Map(spaces.map((w) => [w.name, w]));
  const out: string[] = [];
  for (const [file, text] of files) {
    const from = home(file);
    if (!from) continue; // the root's tooling
    for (const { fileName: spec } of ts.preProcessFile(text, true, true).importedFiles) {
      if (spec.startsWith('.')) {
        const target = normalize(join(dirname(file), spec))
          .split('\\')
          .join('/');
        const to = home(target);
        if (to && to !== from && !KNOWN_CROSSINGS.has(`${file} -> ${target}`))
          out.push(`${file} -> ${target} (${from.dir} reaches into ${to.dir} by path: import its package, ${to.name})`);
        continue;
      }
      const name = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!;
      const to = byName.get(name);
      if (to && to !== from && isWing(to.dir) && !TEST.test(file))
        out.push(`${file} -> ${spec} (${to.dir} is a wing: move what is shared into a package both import)`);
    }
  }
  return out;
}

function repositoryFiles(): Map<string, string> {
  const listed = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '--', ...GROUPS], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  const files = new Map<string, string>();
  for (const f of listed.split('\n'))
    if (SOURCE.test(f) && !f.endsWith('.d.ts') && existsSync(join(ROOT, f)))
      files.set(f, readFileSync(join(ROOT, f), 'utf8'));
  return files;
}

describe('decision S24: each workspace through its front door', () => {
  it('no workspace imports another’s file by path, and no workspace’s source imports a wing', () => {
    const spaces = workspaces();
    assert.ok(spaces.length >= 15, `found ${spaces.length} workspaces: the listing is wrong`);
    const files = repositoryFiles();
    assert.ok(files.size > 300, `found ${files.size} files: the listing is wrong`);
    assert.deepEqual(crossings(files, spaces), []);
  });

  it('every known crossing still exists (the list only shrinks)', () => {
    const files = repositoryFiles();
    const present = [...KNOWN_CROSSINGS.keys()].filter((k) => {
      const [from, to] = k.split(' -> ') as [string, string];
      return ts
        .preProcessFile(files.get(from) ?? '', true, true)
        .importedFiles.some((i) => normalize(join(dirname(from), i.fileName)) === to);
    });
    assert.deepEqual(present, [...KNOWN_CROSSINGS.keys()], 'remove a crossing that is gone from KNOWN_CROSSINGS');
  });

  it('the check finds a path into another workspace, a wing imported by a package, and ignores fixtures and tests starting a wing (it can fail)', () => {
    const spaces: Workspace[] = [
      { dir: 'apps/portal', name: '@domdao/portal' },
      { dir: 'services/bridge', name: '@domdao/bridge-service' },
      { dir: 'services/notification', name: '@domdao/notification-service' },
      { dir: 'packages/notification-client', name: '@domdao/notification-client' },
      { dir: 'packages/registration', name: '@domdao/registration' },
    ];
    const files = new Map([
      [
        'apps/portal/src/pages/join.tsx',
        "import { encryptRegistration } from '../../../../services/bridge/src/features/registration/client-crypto.ts';",
      ],
      [
        'apps/portal/src/pages/ok.tsx',
        "import { passwordProblem } from '@domdao/registration';\nimport { api } from '../api.ts';",
      ],
      [
        'packages/notification-client/src/index.ts',
        "import type { TemplateData } from '@domdao/notification-service/templates';",
      ],
      ['packages/notification-client/test/client.test.ts', "import { buildApp } from '@domdao/notification-service';"],
      ['services/bridge/src/features/x/index.ts', "const m = await import('../../../../notification/src/app.ts');"],
      ['services/bridge/test/fixture.test.ts', 'const bad = "import { x } from \'../../notification/src/app.ts\';";'],
      ['scripts/start.ts', "import { startBridge } from '../services/bridge/src/main.ts';"],
    ]);
    assert.deepEqual(
      crossings(files, spaces).map((c) => c.split(' (')[0]),
      [
        'apps/portal/src/pages/join.tsx -> services/bridge/src/features/registration/client-crypto.ts',
        'packages/notification-client/src/index.ts -> @domdao/notification-service/templates',
        'services/bridge/src/features/x/index.ts -> services/notification/src/app.ts',
      ],
    );
  });
});
