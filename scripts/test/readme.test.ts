// The README and the docs stay true to the repository (decision R15): the status table, the layout,
// counts of canisters, links between documents and the decision ids that code and docs cite. The
// README stays a newcomer's page (decisions S31, R53): under 15 KB, no decision ids in its prose, and
// every relative link of it and of the guides resolves, file and #anchor.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { it } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const read = (path: string): string => readFileSync(join(root, path), 'utf8');
const readme = read('README.md');
const canisters = readdirSync(join(root, 'canisters'), { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name);
/** Ignored names of .gitignore (`dist/`, `.build/`): built, never committed, so the docs may name them. */
const ignored = read('.gitignore')
  .split('\n')
  .map((l) => l.trim().replace(/\/$/, ''))
  .filter((l) => l !== '' && !l.startsWith('#'));

function exists(path: string): boolean {
  return ['', '.ts', '.tsx', '.mjs'].some((ext) => existsSync(join(root, path.replace(/\/$/, '') + ext)));
}

/** The lines of the README's table whose header row is `header`. */
function table(header: string): string[][] {
  const lines = readme.split('\n');
  const start = lines.indexOf(header);
  assert.ok(start >= 0, `README has a table headed ${header}`);
  const rows: string[][] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(
      line
        .slice(1, -1)
        .split(/(?<!\\)\|/)
        .map((c) => c.trim()),
    );
  }
  return rows;
}

it('decision R15: every row of the README status table names code that exists, and a piece whose code exists is not "next"', () => {
  const rows = table('| Piece | Spec | State | Code |');
  assert.ok(rows.length > 0);
  for (const [piece, , state, code] of rows) {
    const paths = [...(code ?? '').matchAll(/\]\(([^)]+)\)/g)].map((m) => m[1]!);
    assert.ok(paths.length > 0, `${piece}: its Code cell links the code`);
    for (const path of paths) assert.ok(exists(path), `${piece}: ${path} exists`);
    assert.doesNotMatch(
      state ?? '',
      /\b(next|planned|later|to do|todo)\b/i,
      `${piece}: its code is in the repository, so its state is not "${state}"`,
    );
  }
});

it('decision R15: the README and the architecture count the canisters there are', () => {
  const words = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten'];
  const text = `${readme}\n${read('docs/architecture.md')}`;
  const counts = [
    ...text.matchAll(
      /\b(zero|one|two|three|four|five|six|seven|eight|nine|ten)\s+(canisters|front doors|cores)\b|Canisters \((\w+)\)/gi,
    ),
  ];
  assert.ok(counts.length > 0);
  for (const m of counts) {
    const word = (m[1] ?? m[3] ?? '').toLowerCase();
    assert.equal(
      words.indexOf(word),
      canisters.length,
      `"${m[0]}": canisters/ holds ${canisters.length} (${canisters.join(', ')})`,
    );
  }
});

for (const doc of ['README.md', 'CONTRIBUTING.md'])
  it(`decision R15: every path the ${doc} layout names exists (a built, gitignored one excepted)`, () => {
    const block = /## Layout\n[\s\S]*?\n```\n([\s\S]*?)```/.exec(read(doc));
    assert.ok(block, `${doc} has a Layout block`);
    // An entry: a path at the start of a line (or indented two spaces: inside the entry above), its
    // description after two spaces or more, continued on lines indented further.
    const entries: { path: string; description: string }[] = [];
    let parent = '';
    for (const line of block[1]!.split('\n')) {
      if (line.trim() === '') continue;
      const m = /^( {0,2})(\S+)(?: {2,}(.*))?$/.exec(line);
      if (m && !line.startsWith('   ')) {
        const path = m[1] === '' ? m[2]! : `${parent}${m[2]}`;
        if (m[1] === '') parent = m[2]!.endsWith('/') ? m[2]! : '';
        entries.push({ path, description: m[3] ?? '' });
      } else {
        assert.ok(entries.length > 0, `layout line ${line} continues an entry`);
        entries[entries.length - 1]!.description += ` ${line.trim()}`;
      }
    }
    assert.ok(entries.length > 10);
    const expand = (path: string): string[] =>
      path.includes('<name>') ? canisters.map((c) => path.replaceAll('<name>', c)) : [path];
    const missing: string[] = [];
    for (const { path, description } of entries) {
      for (const p of expand(path)) if (!exists(p)) missing.push(p);
      const base = path.endsWith('/') ? path : dirname(path) === '.' ? '' : `${dirname(path)}/`;
      // Paths in the description, relative to the entry: `a/b`, `a/` and `a/{b,c (comment),d/}`.
      const prose = description.replace(/`[^`]*`/g, '');
      for (const m of prose.matchAll(/(?<![\w@/.<>-])((?:[a-z0-9_.-]+\/)+)(\{[^}]*\}|[a-z0-9_.-]+)?/g)) {
        const items = m[2]?.startsWith('{')
          ? m[2]
              .slice(1, -1)
              .replace(/\([^)]*\)/g, '')
              .split(',')
              .map((s) => s.trim())
          : [m[2] ?? ''];
        for (const item of items) {
          const mention = `${m[1]}${item}`;
          if (ignored.includes(mention.replace(/\/$/, '').split('/').pop()!)) continue;
          if (!expand(`${base}${mention}`).some(exists)) missing.push(`${base}${mention} (named by ${path})`);
        }
      }
    }
    assert.deepEqual(missing, [], `the ${doc} layout names only paths that exist`);
  });

/** The Markdown files a reader opens: the README, the guides and docs/, decisions included. */
function documents(): string[] {
  const docs = readdirSync(join(root, 'docs'), { recursive: true, encoding: 'utf8' }).filter(
    (f) => f.endsWith('.md') && !f.startsWith('spec'),
  );
  return ['README.md', 'CONTRIBUTING.md', 'scripts/README.md', ...docs.map((f) => `docs/${f}`)];
}

it('decision R15: every relative link and every Markdown file the docs name is in the repository', () => {
  const broken: string[] = [];
  for (const doc of documents()) {
    const text = read(doc);
    const targets = [...text.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)]
      .map((m) => m[1]!)
      .filter((t) => !/^[a-z]+:/.test(t));
    const named = [...text.matchAll(/`([\w./-]+\.md)`/g)].map((m) => m[1]!);
    for (const target of [...targets, ...named]) {
      const fromDoc = relative(root, join(root, dirname(doc), target));
      if (!existsSync(join(root, fromDoc)) && !(named.includes(target) && existsSync(join(root, target))))
        broken.push(`${doc}: ${target}`);
    }
  }
  assert.deepEqual(broken, [], 'links and file names in the docs resolve inside the repository');
});

it('decision R15: every decision id that code, tests and docs cite is a row of docs/decisions/', () => {
  const decided = new Set<string>();
  const decisionFiles = readdirSync(join(root, 'docs/decisions')).map((f) => `docs/decisions/${f}`);
  // Rows not yet folded in from a branch (docs/decisions-new-<branch>.md) count as decided.
  const pending = readdirSync(join(root, 'docs'))
    .filter((f) => /^decisions-new-.*\.md$/.test(f))
    .map((f) => `docs/${f}`);
  for (const file of [...decisionFiles, ...pending]) {
    // A decision is a heading `### <a id="b51"></a>B51 — point` (docs/decisions/README.md); a pending file may still
    // hold rows.
    for (const m of read(file).matchAll(/^(?:\| |### )(?:<a id="[a-z0-9]+"><\/a>)?([A-Z]\d+)(?: \|| — )/gm))
      decided.add(m[1]!);
  }
  assert.ok(decided.size > 300);
  const sources: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      if (entry.name === 'node_modules' || entry.name.startsWith('.') || entry.name === 'dist') continue;
      const path = dir === '' ? entry.name : `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(path);
      else if (/\.(ts|tsx|mjs|md)$/.test(entry.name) && !path.startsWith('docs/spec/')) sources.push(path);
    }
  };
  walk('');
  const unknown: string[] = [];
  for (const file of sources) {
    // "decision B51", "decisions L11–L14, G16 and M8": each id, and both ends of a range.
    for (const m of read(file).matchAll(/\bdecisions? ((?:[A-Z]\d+(?:[–-][A-Z]?\d+)?(?:, | and |, and )?)+)/g)) {
      for (const id of m[1]!.matchAll(/([A-Z])(\d+)(?:[–-]([A-Z])?(\d+))?/g)) {
        const ids = [`${id[1]}${id[2]}`, ...(id[4] ? [`${id[3] ?? id[1]}${id[4]}`] : [])];
        for (const cited of ids) if (!decided.has(cited)) unknown.push(`${file}: ${cited}`);
      }
    }
  }
  assert.deepEqual(unknown, [], 'every cited decision id has its row');
});

/** The anchors a Markdown file offers: its headings as GitHub slugs them (duplicates numbered), and `<a id>`s. */
export function anchors(text: string): Set<string> {
  const found = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of text.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    if (fenced) continue;
    const h = /^#{1,6} (.*)$/.exec(line);
    if (h) {
      const slug = h[1]!
        .trim()
        .toLowerCase()
        .replace(/<[^>]+>/g, '')
        .replace(/[^\p{L}\p{N}\s_-]/gu, '')
        .replace(/ /g, '-');
      const n = seen.get(slug) ?? 0;
      seen.set(slug, n + 1);
      found.add(n === 0 ? slug : `${slug}-${n}`);
    }
    for (const m of line.matchAll(/<a id="([^"]+)"><\/a>/g)) found.add(m[1]!);
  }
  return found;
}

it('decision R53: every relative link of the README, the guides and docs/ resolves, to the file and to its #anchor', () => {
  const broken: string[] = [];
  for (const doc of documents()) {
    const text = read(doc).replace(/```[\s\S]*?```/g, '');
    for (const m of text.matchAll(/\]\(([^)\s]*)\)/g)) {
      const link = m[1]!;
      if (/^[a-z]+:/.test(link)) continue;
      const [path, anchor] = link.split('#') as [string, string | undefined];
      const target = path === '' ? doc : relative(root, join(root, dirname(doc), path));
      if (!existsSync(join(root, target))) {
        broken.push(`${doc}: ${link} (no file)`);
        continue;
      }
      if (anchor === undefined || anchor === '') continue;
      if (!target.endsWith('.md')) broken.push(`${doc}: ${link} (an anchor into a file that is not Markdown)`);
      else if (!anchors(read(target)).has(anchor))
        broken.push(`${doc}: ${link} (no heading or id "${anchor}" in ${target})`);
    }
  }
  assert.deepEqual(broken, [], 'every relative link resolves, anchor included');
});

it('decision R53: the README is under 15 KB and its prose cites no decision id', () => {
  const bytes = Buffer.byteLength(readme);
  assert.ok(
    bytes < 15 * 1024,
    `README.md is ${bytes} bytes: keep it under 15 KB (${15 * 1024} bytes); move the detail to a guide and link it`,
  );
  const prose = readme.replace(/```[\s\S]*?```/g, '').replace(/`[^`]*`/g, '');
  const ids = [...prose.matchAll(/\b[A-Z]\d{1,3}\b/g)].map((m) => m[0]);
  assert.deepEqual(ids, [], 'the README names no decision: its guides and docs/decisions/ do');
});

it("decision R53: the anchors of a heading are GitHub's: lower case, punctuation dropped, spaces as hyphens, repeats numbered", () => {
  const a = anchors(
    '# Moving a DAO off `npm start`: the command\n## Tests\n## Tests\n```\n# not a heading\n```\n<a id="s29"></a>S29',
  );
  assert.deepEqual([...a].sort(), ['moving-a-dao-off-npm-start-the-command', 's29', 'tests', 'tests-1']);
});
