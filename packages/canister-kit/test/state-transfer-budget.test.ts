// Decision W33: where the host counts instructions (the IC), a state_export page stops once its
// message has used EXPORT_INSTRUCTION_BUDGET, always holding at least one entry and a cursor the
// client follows to the end: nothing lost, nothing twice. Where it does not (the embedded host), the
// page's entry and character limits alone bound it. As G20's test does, the core is driven with a
// counter the test controls, standing in for the IC's performance_counter; the built wasm is tested in
// platform/canisters/test/wasm-state-budget.test.ts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { encode } from '../src/codec.ts';
import { plainStore } from '../src/plain-store.ts';
import type { Store, StoreKey } from '../src/store.ts';
import { EXPORT_INSTRUCTION_BUDGET, MAX_EXPORT_ENTRIES, stateTransfer, type EntryText, type TransferRecord } from '../src/state-transfer/index.ts';

const CONTROLLER = 'controller';
const ctx = { caller: CONTROLLER, now: 0n };

/** A canister whose `items` store holds n entries, read with `counter` as the message's instruction count. */
function canister(n: number, counter?: () => bigint) {
  const items = plainStore<bigint, unknown>();
  for (let i = 0; i < n; i++) items.set(BigInt(i), { n: i });
  const t = stateTransfer({ items } as unknown as Record<string, Store<StoreKey, unknown>>, plainStore<string, TransferRecord>(), {
    isController: (c) => c === CONTROLLER,
    ...(counter && { instructions: counter }),
  });
  return t;
}

/** The client's loop (readDeployed): follow `next` until a page has none; each page is a new message. */
function readAll(t: ReturnType<typeof canister>, newMessage: () => void = () => {}) {
  const pages: EntryText[][] = [];
  let after: string | undefined;
  do {
    newMessage();
    const r = t.state_export(ctx, { store: 'items', ...(after !== undefined && { after }) });
    if ('Err' in r) assert.fail(r.Err);
    pages.push(r.Ok.entries);
    after = r.Ok.next;
    assert.ok(pages.length <= 10_000, 'the cursor moves on');
  } while (after !== undefined);
  return pages;
}

const expected = (n: number): EntryText[] => Array.from({ length: n }, (_, i) => [encode(BigInt(i)), encode({ n: i })]);

describe('an export page within the IC query limit (decision W33)', () => {
  it('a page stops once its message has used the budget, and the cursor brings every entry exactly once', () => {
    // Each reading stands for one entry read: a seventh of the budget apiece, so a page holds 7 or 8.
    let used = 0n;
    const t = canister(1_203, () => (used += EXPORT_INSTRUCTION_BUDGET / 7n));
    const pages = readAll(t, () => (used = 0n));
    assert.ok(
      pages.every((p) => p.length >= 1 && p.length <= 8),
      `page sizes ${pages.map((p) => p.length).join(',')}`,
    );
    assert.ok(pages.length >= 1_203 / 8, `${pages.length} pages`);
    assert.deepEqual(pages.flat(), expected(1_203), 'in key order, none lost, none twice');
  });

  it('a message already past the budget still returns one entry a page, and the store transfers whole', () => {
    const t = canister(5, () => EXPORT_INSTRUCTION_BUDGET + 1n);
    const pages = readAll(t);
    assert.deepEqual(
      pages.map((p) => p.length),
      [1, 1, 1, 1, 1, 0],
      'the page that took the last entry says more may follow; the next, empty, ends it',
    );
    assert.deepEqual(pages.flat(), expected(5));
  });

  it('at exactly the budget a page goes on to its full 500 entries; one instruction past, it stops after one', () => {
    const at = canister(MAX_EXPORT_ENTRIES + 1, () => EXPORT_INSTRUCTION_BUDGET);
    const first = at.state_export(ctx, { store: 'items' });
    assert.ok('Ok' in first);
    assert.equal(first.Ok.entries.length, MAX_EXPORT_ENTRIES);
    assert.equal(first.Ok.next, encode(BigInt(MAX_EXPORT_ENTRIES - 1)));
    const past = canister(MAX_EXPORT_ENTRIES + 1, () => EXPORT_INSTRUCTION_BUDGET + 1n);
    assert.deepEqual(past.state_export(ctx, { store: 'items' }), { Ok: { entries: expected(1), next: encode(0n) } });
  });

  it('without a counter (the embedded host) a page holds up to MAX_EXPORT_ENTRIES, whatever the entries cost', () => {
    const pages = readAll(canister(1_203));
    assert.deepEqual(
      pages.map((p) => p.length),
      [500, 500, 203],
    );
    assert.deepEqual(pages.flat(), expected(1_203));
  });
});
