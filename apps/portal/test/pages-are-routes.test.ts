// Decision F61: in the web app, pages/ holds the routes and components/ the pieces they share. Each
// file of src/pages/ is one route of src/routes.tsx; a page imports no other page and a component no
// page, so what two pages share is a component. Imports are read by TypeScript's pre-processor.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, normalize } from 'node:path';
import { describe, it } from 'node:test';
import ts from 'typescript';

const SRC = join(import.meta.dirname, '..', 'src');

/** The app's files under src/ (path relative to src → text), as the check reads them. */
function sources(): Map<string, string> {
  const files = new Map<string, string>();
  for (const dir of ['', 'pages', 'components'])
    for (const f of readdirSync(join(SRC, dir)))
      if (/\.tsx?$/.test(f)) files.set(dir ? `${dir}/${f}` : f, readFileSync(join(SRC, dir, f), 'utf8'));
  return files;
}

/** Where `file` imports from, as paths relative to src/ (packages left out). */
function imports(file: string, text: string): string[] {
  const dir = file.includes('/') ? file.slice(0, file.lastIndexOf('/')) : '';
  return ts
    .preProcessFile(text, true, true)
    .importedFiles.map((i) => i.fileName)
    .filter((spec) => spec.startsWith('.'))
    .map((spec) => normalize(join(dir, spec)).split('\\').join('/'));
}

/** Every way `files` break decision F61, in words. */
export function misplaced(files: ReadonlyMap<string, string>): string[] {
  const out: string[] = [];
  const routed = new Set(imports('routes.tsx', files.get('routes.tsx') ?? ''));
  for (const [file, text] of files) {
    if (file.startsWith('pages/') && !routed.has(file))
      out.push(`${file} is no route of routes.tsx: move it to components/`);
    for (const to of imports(file, text)) {
      if (file.startsWith('pages/') && to.startsWith('pages/'))
        out.push(`${file} imports the page ${to}: move what they share to components/`);
      if (file.startsWith('components/') && to.startsWith('pages/'))
        out.push(`${file} imports the page ${to}: a component imports no page`);
    }
  }
  return out;
}

describe('decision F61: pages are routes, components are shared pieces', () => {
  it('every file of src/pages/ is a route, and no page or component imports a page', () => {
    const files = sources();
    assert.ok([...files.keys()].filter((f) => f.startsWith('pages/')).length >= 10, 'the listing found too few pages');
    assert.deepEqual(misplaced(files), []);
  });

  it('the check finds a shared piece in pages/, a page importing a page and a component importing a page (it can fail)', () => {
    const files = new Map([
      ['routes.tsx', "import { HomePage } from './pages/home.tsx';\nimport { GovernPage } from './pages/govern.tsx';"],
      [
        'pages/home.tsx',
        "import { Tally } from '../components/tally.tsx';\nimport { CATEGORIES } from './govern.tsx';",
      ],
      ['pages/govern.tsx', "import { Tally } from '../components/tally.tsx';\nimport { api } from '../api.ts';"],
      ['pages/at-a-glance.tsx', "import type { Proposal } from './govern.tsx';"],
      [
        'components/tally.tsx',
        "import type { Proposal } from '../pages/govern.tsx';\nimport { categoryLabel } from '@domdao/proposal-text';",
      ],
      ['api.ts', "import type { paths } from './bridge-api.ts';"],
    ]);
    assert.deepEqual(misplaced(files), [
      'pages/home.tsx imports the page pages/govern.tsx: move what they share to components/',
      'pages/at-a-glance.tsx is no route of routes.tsx: move it to components/',
      'pages/at-a-glance.tsx imports the page pages/govern.tsx: move what they share to components/',
      'components/tally.tsx imports the page pages/govern.tsx: a component imports no page',
    ]);
  });
});
