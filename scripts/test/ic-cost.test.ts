// docs/ic-cost.md stays true to the canisters (decision W21): its tables name every method of the
// committed .did files, once, with the kind the .did gives it, and price updates with the cited fees.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { cyclesOf } from '../../bench/ic-cost-model.ts';
import { mergeInto } from '../../bench/ic-cost.ts';
import { importCycles } from '../../bench/ic-cost-transfer.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const doc = readFileSync(join(root, 'docs/ic-cost.md'), 'utf8');

/** Each canister's methods and kinds, from its committed .did's service. */
function didMethods(canister: string): Map<string, 'query' | 'update'> {
  const did = readFileSync(join(root, 'canisters', canister, `${canister}.did`), 'utf8');
  const service = did.slice(did.indexOf('service'));
  const methods = new Map<string, 'query' | 'update'>();
  for (const m of service.matchAll(/^\s+"?([a-z0-9_]+)"?\s*:\s*\(.*\)\s*->\s*\(.*\)(\s*query)?\s*;\s*$/gm))
    methods.set(m[1]!, m[2] ? 'query' : 'update');
  return methods;
}

/** The rows of the doc's table under `### <canister>`: method → kind. */
function docRows(canister: string): Map<string, string> {
  const lines = doc.split('\n');
  const start = lines.indexOf(`### ${canister}`);
  assert.ok(start >= 0, `docs/ic-cost.md has a table for ${canister}`);
  const rows = new Map<string, string>();
  for (const line of lines.slice(start + 4)) {
    if (!line.startsWith('|')) break;
    const [method, kind] = line
      .split('|')
      .map((c) => c.trim())
      .slice(1, 3);
    assert.ok(!rows.has(method!), `${canister}.${method} is listed once`);
    rows.set(method!, kind!);
  }
  return rows;
}

const canisters = readdirSync(join(root, 'canisters'), { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name);

it('W21: docs/ic-cost.md lists every method of every committed .did, with its kind, and nothing else', () => {
  assert.ok(canisters.length >= 6);
  for (const canister of canisters) {
    const did = didMethods(canister);
    assert.ok(did.size > 0, `${canister}.did has methods`);
    const rows = docRows(canister);
    assert.deepEqual([...rows.keys()].sort(), [...did.keys()].sort(), `the ${canister} table's methods are the .did's`);
    for (const [method, kind] of did) assert.equal(rows.get(method), kind, `${canister}.${method} is a ${kind}`);
  }
});

it("W21: an update's cycles are the 13-node fees: 1.2 M ingress + 2,000 a byte + 5 M a message + 1 an instruction + 260,000 a call; a query's none unless another canister calls it", () => {
  const update = { kind: 'update', how: 'real', argBytes: 100, messages: 3, interCanisterCalls: 1 } as const;
  assert.equal(cyclesOf(update, 50_000_000), 1_200_000 + 200_000 + 15_000_000 + 50_000_000 + 260_000);
  assert.equal(cyclesOf({ ...update, kind: 'query' }, 50_000_000), 0);
  // Called by another canister, a query runs replicated: its execution and the call are charged.
  assert.equal(cyclesOf({ ...update, kind: 'query', how: 'callee' }, 10_000_000), 260_000 + 5_000_000 + 10_000_000);
});

it('W32: every row of docs/ic-cost.md is measured: none says "not surveyed", each gives its instructions', () => {
  for (const row of doc.split('\n').filter((l) => l.startsWith('|')))
    assert.doesNotMatch(row, /not surveyed/i, 'a row still says it was not surveyed');
  const lines = doc.split('\n');
  for (const canister of canisters) {
    const start = lines.indexOf(`### ${canister}`);
    for (const line of lines.slice(start + 4)) {
      if (!line.startsWith('|')) break;
      const cells = line.split('|').map((c) => c.trim());
      assert.match(cells[4]!, /^\d+\.\d\d$/, `${canister}.${cells[1]} gives its instructions in millions`);
    }
  }
});

it('W32: the whole-state table moves all six canisters and says of each page and chunk whether it passes the IC limit (5 B a query, 40 B an update)', () => {
  const block = doc.slice(doc.indexOf('<!-- state transfer -->'), doc.indexOf('<!-- /state transfer -->'));
  assert.ok(block.length > 0, 'docs/ic-cost.md has the whole-state table');
  const rows = block.split('\n').filter((l) => /^\| [a-z]+ \| [\d,]+ \|/.test(l));
  assert.deepEqual(rows.map((l) => l.split('|')[1]!.trim()).sort(), [...canisters].sort());
  for (const row of rows) {
    const cells = row.split('|').map((c) => c.trim());
    const page = Number(/^([\d.]+) in /.exec(cells[4]!)![1]) * 1e6;
    const chunk = Number(/^([\d.]+) in /.exec(cells[7]!)![1]) * 1e6;
    assert.ok(page > 0 && chunk > 0, `${cells[1]}: a page and a chunk measured`);
    assert.equal(
      /over the query limit/.test(cells[4]!),
      page > 5e9,
      `${cells[1]}: the page (${page}) is said to pass the query limit exactly when it does`,
    );
    assert.ok(
      chunk <= 40e9 || /over/.test(cells[7]!),
      `${cells[1]}: a chunk (${chunk}) over the update limit is said to be`,
    );
  }
});

it("W32: an import's cycles are its messages received and executed, its bytes and its instructions", () => {
  assert.equal(importCycles(3, 1_000, 7_000_000), 3 * (1_200_000 + 5_000_000) + 2_000 * 1_000 + 7_000_000);
});

it('W32: a run of a few methods replaces only their rows and the whole-state table, and refuses a row the doc lacks', () => {
  const before = [
    '## x',
    '',
    '### campaign',
    '',
    '| method | kind |',
    '| --- | --- |',
    '| a | query | old |',
    '| b | update | old |',
    '',
    '<!-- state transfer -->',
    'old',
    '<!-- /state transfer -->',
    '',
  ].join('\n');
  const generated = [
    '| campaign.b | update |',
    '### campaign',
    '| b | update | new |',
    '<!-- state transfer -->',
    'new',
    '<!-- /state transfer -->',
  ].join('\n');
  const after = mergeInto(before, generated);
  assert.match(after, /\| a \| query \| old \|/);
  assert.match(after, /\| b \| update \| new \|/);
  assert.doesNotMatch(after, /\| b \| update \| old \|/);
  assert.match(after, /<!-- state transfer -->\nnew\n<!-- \/state transfer -->/);
  assert.throws(() => mergeInto(before, '### campaign\n| c | query | new |'), /no row for c/);
  assert.throws(() => mergeInto(before, '### ledger\n| a | query | new |'), /no table for ledger/);
});
