// Decision W33: where the host counts instructions (the IC), a state_export page stops before the
// instructions its message has used plus the Candid encoding of its reply (EXPORT_REPLY_COST_PER_BYTE
// a byte of text) would pass EXPORT_INSTRUCTION_BUDGET, always holding at least one entry and a cursor
// the client follows to the end: nothing lost, nothing twice. Where it does not (the embedded host), the
// page's entry and character limits alone bound it. As G20's test does, the core is driven with a
// counter the test controls, standing in for the IC's performance_counter; the built wasm is tested in
// platform/canisters/test/wasm-state-budget.test.ts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { encode } from '../src/codec.ts';
import { plainStore } from '../src/plain-store.ts';
import type { Store, StoreKey } from '../src/store.ts';
import {
  EXPORT_INSTRUCTION_BUDGET,
  EXPORT_REPLY_COST_PER_BYTE,
  MAX_EXPORT_ENTRIES,
  stateTransfer,
  type EntryText,
  type TransferRecord,
} from '../src/state-transfer/index.ts';

const CONTROLLER = 'controller';
const ctx = { caller: CONTROLLER, now: 0n };

/** A canister whose `items` store holds n entries (`pad` characters of text each), read with `counter` as the message's instruction count. */
function canister(n: number, counter?: () => bigint, pad = 0) {
  const items = plainStore<bigint, unknown>();
  for (let i = 0; i < n; i++) items.set(BigInt(i), value(i, pad));
  const t = stateTransfer(
    { items } as unknown as Record<string, Store<StoreKey, unknown>>,
    plainStore<string, TransferRecord>(),
    {
      isController: (c) => c === CONTROLLER,
      ...(counter && { instructions: counter }),
    },
  );
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

const value = (i: number, pad = 0) => (pad > 0 ? { n: i, text: 'é'.repeat(pad) } : { n: i });
const expected = (n: number, pad = 0): EntryText[] =>
  Array.from({ length: n }, (_, i) => [encode(BigInt(i)), encode(value(i, pad))]);
/** UTF-8 bytes of an entry's key and value text: what its reply's encoding is charged for. */
const bytesOf = ([k, v]: EntryText) => BigInt(Buffer.byteLength(k) + Buffer.byteLength(v));

describe('an export page within the IC query limit (decision W33)', () => {
  it('a page stops once its message has used the budget, and the cursor brings every entry exactly once', () => {
    // Each reading stands for one entry read: a seventh of the budget apiece (the entries' text is a
    // few bytes, far less than the budget's rounding), so a page holds at most 7.
    let used = 0n;
    const t = canister(1_203, () => (used += EXPORT_INSTRUCTION_BUDGET / 7n));
    const pages = readAll(t, () => (used = 0n));
    assert.ok(
      pages.every((p) => p.length >= 1 && p.length <= 7),
      `page sizes ${pages.map((p) => p.length).join(',')}`,
    );
    assert.ok(pages.length >= 1_203 / 7, `${pages.length} pages`);
    assert.deepEqual(pages.flat(), expected(1_203), 'in key order, none lost, none twice');
  });

  it('the reply’s encoding counts too: with nothing used, a page of 5,000-character entries stops at the bytes the budget pays for', () => {
    const all = expected(100, 5_000);
    const perPage = EXPORT_INSTRUCTION_BUDGET / (bytesOf(all[0]!) * EXPORT_REPLY_COST_PER_BYTE);
    assert.ok(perPage >= 2n && perPage < 100n, `${perPage} a page`);
    const pages = readAll(canister(100, () => 0n, 5_000));
    assert.equal(pages.length, Math.ceil(100 / Number(perPage)), 'far within the entry and character limits, yet cut');
    assert.deepEqual(
      pages.slice(0, -1).map((p) => p.length),
      Array.from({ length: pages.length - 1 }, () => Number(perPage)),
    );
    assert.deepEqual(pages.flat(), all);
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

  it('a page whose cost comes to exactly the budget holds its entries; one instruction more, one entry fewer', () => {
    // Keys 0–9 and their values have the same length: three entries' encoding plus the counter make the budget.
    const three = 3n * bytesOf(expected(1)[0]!) * EXPORT_REPLY_COST_PER_BYTE;
    const at = canister(10, () => EXPORT_INSTRUCTION_BUDGET - three);
    assert.deepEqual(at.state_export(ctx, { store: 'items' }), { Ok: { entries: expected(3), next: encode(2n) } });
    const past = canister(10, () => EXPORT_INSTRUCTION_BUDGET - three + 1n);
    assert.deepEqual(past.state_export(ctx, { store: 'items' }), { Ok: { entries: expected(2), next: encode(1n) } });
  });

  it('a counter well within the budget leaves MAX_EXPORT_ENTRIES as the bound', () => {
    const t = canister(MAX_EXPORT_ENTRIES + 1, () => 0n);
    const first = t.state_export(ctx, { store: 'items' });
    assert.ok('Ok' in first);
    assert.equal(first.Ok.entries.length, MAX_EXPORT_ENTRIES);
    assert.equal(first.Ok.next, encode(BigInt(MAX_EXPORT_ENTRIES - 1)));
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
