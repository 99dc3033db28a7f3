// docs/ic-cost.md stays true to the canisters (decision W21): its tables name every method of the
// committed .did files, once, with the kind the .did gives it, and price updates with the cited fees.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { cyclesOf } from '../../bench/ic-cost.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const doc = readFileSync(join(root, 'docs/ic-cost.md'), 'utf8');

/** Each canister's methods and kinds, from its committed .did's service. */
function didMethods(canister: string): Map<string, 'query' | 'update'> {
  const did = readFileSync(join(root, 'canisters', canister, `${canister}.did`), 'utf8');
  const service = did.slice(did.indexOf('service'));
  const methods = new Map<string, 'query' | 'update'>();
  for (const m of service.matchAll(/^\s+"?([a-z0-9_]+)"?\s*:\s*\(.*\)\s*->\s*\(.*\)(\s*query)?\s*;\s*$/gm)) methods.set(m[1]!, m[2] ? 'query' : 'update');
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
