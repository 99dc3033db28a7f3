// The decision files keep the shape docs/decisions/README.md describes (decision R15: the docs stay
// true to the repository): one heading per decision, ids unique and anchored, no table rows left,
// prose wrapped at 120 columns, the index's area table counting what the files hold, and every link
// into a decision file landing on an anchor it has.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { it } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const read = (path: string): string => readFileSync(join(root, path), 'utf8');
const areaFiles = readdirSync(join(root, 'docs/decisions'))
  .filter((f) => f.endsWith('.md') && f !== 'README.md')
  .sort();
const HEADING = /^### <a id="([a-z0-9]+)"><\/a>([A-Z])(\d+) — \S/;

/** Each area file's decisions, in file order: id, anchor and line number. */
const decisions = new Map(
  areaFiles.map((file) => [
    file,
    read(`docs/decisions/${file}`)
      .split('\n')
      .flatMap((line, i, lines) => {
        const m = HEADING.exec(line);
        return m
          ? [
              {
                anchor: m[1]!,
                id: `${m[2]}${m[3]}`,
                prefix: m[2]!,
                n: Number(m[3]),
                line: i + 1,
                status: lines[i + 2] ?? '',
              },
            ]
          : [];
      }),
  ]),
);

it('decision R15: every decision id is one heading, anchored by its own id in lower case, unique, with its status', () => {
  const seen = new Map<string, string>();
  const wrong: string[] = [];
  for (const [file, list] of decisions) {
    assert.ok(list.length > 0, `${file} holds decisions`);
    for (const d of list) {
      if (d.anchor !== d.id.toLowerCase()) wrong.push(`${file}:${d.line}: ${d.id} anchored as ${d.anchor}`);
      if (!/^Status: (in force|(amended|replaced) by \S.*|retired)$/.test(d.status))
        wrong.push(`${file}:${d.line + 2}: ${d.id} has no status line`);
      if (seen.has(d.id)) wrong.push(`${file}:${d.line}: ${d.id} already in ${seen.get(d.id)}`);
      seen.set(d.id, file);
    }
  }
  assert.deepEqual(wrong, []);
  assert.ok(seen.size > 500);
});

it('decision R15: no decision is a table row any more, and no line of a decision file passes 120 columns', () => {
  const found: string[] = [];
  for (const file of areaFiles) {
    let fenced = false;
    read(`docs/decisions/${file}`)
      .split('\n')
      .forEach((line, i) => {
        if (/^\s*```/.test(line)) fenced = !fenced;
        const where = `${file}:${i + 1}`;
        if (/^\s*\|/.test(line)) found.push(`${where}: a table row`);
        // A wrapped line starting with `<` or `>` would open an HTML block (`<details>`) or a quote.
        else if (!fenced && /^[<>]/.test(line)) found.push(`${where}: starts with ${line[0]}`);
        // A heading is the decision's point and cannot wrap; everything else is prose.
        else if (!fenced && !line.startsWith('#') && [...line].length > 120)
          found.push(`${where}: ${[...line].length} columns`);
      });
  }
  assert.deepEqual(found, [], 'run the converter the README names over rows added as a table');
});

/** "12: K1–K8, K20–K23" for the ids of a prefix. */
function ranges(ids: { prefix: string; n: number }[]): string {
  const ns = ids.map((d) => d.n).sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < ns.length;) {
    let j = i;
    while (j + 1 < ns.length && ns[j + 1] === ns[j]! + 1) j++;
    const p = ids[0]!.prefix;
    parts.push(i === j ? `${p}${ns[i]}` : `${p}${ns[i]}–${p}${ns[j]}`);
    i = j + 1;
  }
  return `${ns.length}: ${parts.join(', ')}`;
}

it("decision R15: the index's area table counts and ranges the decisions each file holds", () => {
  const index = read('docs/decisions/README.md');
  const rows = [...index.matchAll(/^\| `([A-Z])` \|[^|]*\| \[([a-z-]+\.md)\]\(\2\) \| ([^|]+) \|$/gm)];
  assert.deepEqual(rows.map((r) => r[2]).sort(), areaFiles, 'one row per area file');
  const wrong: string[] = [];
  for (const [, prefix, file, cell] of rows) {
    const list = decisions.get(file!)!;
    const others = list.filter((d) => d.prefix !== prefix).map((d) => d.id);
    if (others.length > 0) wrong.push(`${file}: ${others.join(', ')} not of prefix ${prefix}`);
    const expected = ranges(list.filter((d) => d.prefix === prefix));
    if (cell!.trim() !== expected)
      wrong.push(`${file}: the index says "${cell!.trim()}", the file holds "${expected}"`);
  }
  assert.deepEqual(wrong, []);
});

it('decision R15: every link into a decision file lands on an anchor or heading the file has', () => {
  const slug = (heading: string): string =>
    heading
      .toLowerCase()
      .replace(/<[^>]+>/g, '')
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
  const anchors = new Map(
    areaFiles.map((file) => {
      const text = read(`docs/decisions/${file}`);
      const ids = [...text.matchAll(/<a id="([^"]+)"><\/a>/g)].map((m) => m[1]!);
      const slugs = [...text.matchAll(/^#{1,6} (.*)$/gm)].map((m) => slug(m[1]!));
      return [file, new Set([...ids, ...slugs])];
    }),
  );
  const docs = [
    'README.md',
    ...readdirSync(join(root, 'docs'), { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.md') && !f.startsWith('spec'))
      .map((f) => `docs/${f}`),
  ];
  const broken: string[] = [];
  for (const doc of docs) {
    const text = read(doc);
    const inDecisions = doc.startsWith('docs/decisions/');
    for (const m of text.matchAll(/\]\(((?:[\w./-]*\/)?([a-z-]+\.md))?#([^)\s]+)\)/g)) {
      const file = m[2] ?? (inDecisions ? doc.slice('docs/decisions/'.length) : undefined);
      if (file === undefined || !anchors.has(file)) continue;
      if (m[1] !== undefined && !inDecisions && !m[1].includes('decisions/')) continue;
      if (!anchors.get(file)!.has(m[3]!)) broken.push(`${doc}: ${m[0]}`);
    }
  }
  assert.deepEqual(broken, []);
});

it('decision R15: the index lists every decision that is not simply in force, with the status its section gives', () => {
  const index = read('docs/decisions/README.md');
  const listed = new Map(
    [...index.matchAll(/^\| \[([A-Z]\d+)\]\(([a-z-]+\.md)#[a-z0-9]+\) \| ([^|]+) \|/gm)].map((m) => [
      m[1]!,
      `${m[2]}: ${m[3]!.trim()}`,
    ]),
  );
  const notInForce = new Map(
    [...decisions].flatMap(([file, list]) =>
      list
        .filter((d) => d.status !== 'Status: in force')
        .map(
          (d) =>
            [d.id, `${file}: ${d.status.replace(/^Status: /, '').replace(/\[([A-Z]\d+)\]\([^)]*\)/g, '$1')}`] as const,
        ),
    ),
  );
  assert.deepEqual(Object.fromEntries([...listed].sort()), Object.fromEntries([...notInForce].sort()));
});
