// The state transfer's rules on any host (decisions K23, W22): who may export and import, into what,
// in which order and how much at a time, and what the seal checks. The wasm and the IC's HTTP
// interface are tested in platform/canisters/test/wasm-state-transfer.test.ts.
import assert from 'node:assert/strict';
import { crc32 } from 'node:zlib';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { encode } from '../src/codec.ts';
import { plainStore } from '../src/plain-store.ts';
import type { Store, StoreKey } from '../src/store.ts';
import {
  crc32Entry,
  crc32Text,
  MAX_CHUNK_CHARS,
  MAX_CHUNK_ENTRIES,
  REFUSALS,
  stateTransfer,
  stateVersion,
  type EntryText,
  type ImportManifest,
  type TransferLogLine,
  type TransferRecord,
} from '../src/state-transfer/index.ts';

const CONTROLLER = 'controller';
const ctx = (caller = CONTROLLER) => ({ caller, now: 0n });

function canister(fill?: (s: { config: Store<string, unknown>; items: Store<bigint, unknown> }) => void) {
  const stores = { config: plainStore<string, unknown>(), items: plainStore<bigint, unknown>() };
  const own = plainStore<string, TransferRecord>();
  const events: string[] = [];
  const logged: TransferLogLine[] = [];
  const t = stateTransfer(stores as unknown as Record<string, Store<StoreKey, unknown>>, own, {
    isController: (c) => c === CONTROLLER,
    cleared: () => events.push('cleared'),
    sealed: () => events.push('sealed'),
    log: (line) => logged.push(line),
  });
  t.installed();
  fill?.(stores);
  return { stores, t, events, logged };
}

const items = (n: number, from = 0): EntryText[] =>
  Array.from({ length: n }, (_, i) => [encode(BigInt(from + i)), encode({ n: from + i })]);
const manifest = (stores: Record<string, EntryText[]>): ImportManifest => ({
  version: stateVersion(['config', 'items']),
  stores: ['config', 'items'].map((name) => ({
    name,
    count: BigInt(stores[name]?.length ?? 0),
    crc32: (stores[name] ?? []).reduce(crc32Entry, 0),
  })),
});
const err = (r: { Ok: unknown } | { Err: string }): string => ('Err' in r ? r.Err : assert.fail('expected a refusal'));
const ok = <T>(r: { Ok: T } | { Err: string }): T => {
  if ('Err' in r) assert.fail(r.Err);
  return r.Ok;
};

describe('state transfer core (decisions K23, W22)', () => {
  it("K25: state_status is a controller's only (it tells the status, the version and every store's size); a stranger's call traps and is logged", () => {
    const c = canister((s) => s.items.set(1n, { n: 1 }));
    assert.deepEqual(c.t.state_status(ctx()), {
      status: 'fresh',
      version: stateVersion(['config', 'items']),
      stores: [
        { name: 'config', count: 0n },
        { name: 'items', count: 1n },
      ],
    });
    assert.deepEqual(c.logged, []);
    assert.throws(() => c.t.state_status(ctx('stranger')), new Error(REFUSALS.notController));
    assert.deepEqual(c.logged, [
      { event: 'state_status.refused', caller: 'stranger', status: 'fresh', reason: REFUSALS.notController },
    ]);
  });

  it('K25: every refusal of state_import and state_export writes one structured line to the canister log; an accepted step writes none', () => {
    const c = canister();
    const entries = items(2);
    const m = manifest({ items: entries });
    err(c.t.state_import(ctx('stranger'), { Begin: m }));
    err(c.t.state_import(ctx(), { Seal: null }));
    err(c.t.state_export(ctx('stranger'), { store: 'items' }));
    err(c.t.state_export(ctx(), { store: 'nope' }));
    ok(c.t.state_import(ctx(), { Begin: m }));
    err(c.t.state_import(ctx(), { Chunk: { store: 'items', entries: [entries[1]!, entries[0]!] } }));
    ok(c.t.state_import(ctx(), { Chunk: { store: 'items', entries } }));
    ok(c.t.state_import(ctx(), { Seal: null }));
    err(c.t.state_import(ctx(), { Begin: m }));
    assert.deepEqual(
      c.logged.map((l) => [l.event, l.caller, l.step, l.status]),
      [
        ['state_import.refused', 'stranger', 'Begin', 'fresh'],
        ['state_import.refused', CONTROLLER, 'Seal', 'fresh'],
        ['state_export.refused', 'stranger', 'items', 'fresh'],
        ['state_export.refused', CONTROLLER, 'nope', 'fresh'],
        ['state_import.refused', CONTROLLER, 'Chunk items', 'importing'],
        ['state_import.refused', CONTROLLER, 'Begin', 'sealed'],
      ],
    );
    assert.deepEqual(
      c.logged.map((l) => l.reason),
      [
        REFUSALS.notController,
        REFUSALS.notBegun,
        REFUSALS.notController,
        'this canister has no store nope',
        'the entries of store items must come in ascending key order, each after the last one imported',
        REFUSALS.sealed,
      ],
    );
  });

  it('K23: the checksum is zlib.crc32 of each entry as UTF-8 `key \\n value \\n`, lone surrogates as TextEncoder writes them', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(fc.string({ unit: 'binary', maxLength: 40 }), fc.string({ unit: 'grapheme', maxLength: 40 })),
          { maxLength: 20 },
        ),
        (entries) => {
          const ours = entries.reduce((c, e) => crc32Entry(c, e as EntryText), 0);
          const bytes = Buffer.concat(entries.map(([k, v]) => Buffer.from(new TextEncoder().encode(`${k}\n${v}\n`))));
          assert.equal(ours, crc32(bytes));
        },
      ),
      { numRuns: 40 },
    );
    assert.equal(crc32Text(0, '\ud800x'), crc32(new TextEncoder().encode('\ud800x')));
  });

  it('W22: export and import, a page and a chunk at a time, then the seal; the same entries come back out', () => {
    const src = canister((s) => {
      s.config.set('config', { admins: ['a'], next: 3n });
      for (let i = 0; i < 1_203; i++) s.items.set(BigInt(i), { n: i, bytes: new Uint8Array([i & 0xff]) });
    });
    const read = (t: typeof src.t, store: string) => {
      const out: EntryText[] = [];
      let after: string | undefined;
      do {
        const page = ok(t.state_export(ctx(), { store, ...(after !== undefined && { after }) }));
        out.push(...page.entries);
        after = page.next;
      } while (after !== undefined);
      return out;
    };
    const exported = { config: read(src.t, 'config'), items: read(src.t, 'items') };
    assert.equal(exported.items.length, 1_203);
    const dst = canister((s) => s.config.set('config', { installed: true }));
    ok(dst.t.state_import(ctx(), { Begin: manifest(exported) }));
    assert.deepEqual(dst.events, ['cleared']);
    assert.equal(dst.stores.config.size, 0, 'Begin empties what the install wrote');
    ok(dst.t.state_import(ctx(), { Chunk: { store: 'config', entries: exported.config } }));
    for (let i = 0; i < exported.items.length; i += MAX_CHUNK_ENTRIES)
      ok(
        dst.t.state_import(ctx(), {
          Chunk: { store: 'items', entries: exported.items.slice(i, i + MAX_CHUNK_ENTRIES) },
        }),
      );
    assert.equal(dst.t.blocking(), true, 'other updates and timers wait while importing');
    assert.deepEqual(ok(dst.t.state_import(ctx(), { Seal: null })), { status: 'sealed', imported: 1_204n });
    assert.deepEqual(dst.events, ['cleared', 'sealed']);
    assert.deepEqual({ config: read(dst.t, 'config'), items: read(dst.t, 'items') }, exported);
    assert.equal(dst.t.blocking(), false);
    assert.deepEqual(
      dst.t.state_import(ctx(), { Begin: manifest(exported) }),
      { Err: REFUSALS.sealed },
      'after the seal, never again',
    );
  });

  it('W22: only a controller exports or imports; a canister that took an update call takes no import; chunk and seal need a begin', () => {
    const c = canister();
    const m = manifest({ items: items(1) });
    assert.deepEqual(c.t.state_export(ctx('someone'), { store: 'items' }), { Err: REFUSALS.notController });
    assert.deepEqual(c.t.state_import(ctx('someone'), { Begin: m }), { Err: REFUSALS.notController });
    assert.deepEqual(c.t.state_import(ctx(), { Seal: null }), { Err: REFUSALS.notBegun });
    assert.deepEqual(c.t.state_import(ctx(), { Chunk: { store: 'items', entries: items(1) } }), {
      Err: REFUSALS.notBegun,
    });
    c.t.touched();
    assert.equal(c.t.status(), 'live');
    assert.deepEqual(c.t.state_import(ctx(), { Begin: m }), { Err: REFUSALS.live });
    c.stores.items.set(1n, 'kept');
    assert.equal(c.stores.items.get(1n), 'kept');
  });

  it('W22: a chunk at the limits is taken, one entry or one character past is refused and changes nothing', () => {
    const c = canister();
    const long = (i: number, chars: number): EntryText => [
      encode(BigInt(i)),
      JSON.stringify('x'.repeat(chars - encode(BigInt(i)).length - 2)),
    ];
    const atEntries = items(MAX_CHUNK_ENTRIES);
    const per = Math.floor(MAX_CHUNK_CHARS / 2);
    const atChars = [long(0, per), long(1, MAX_CHUNK_CHARS - per)];
    const all = { items: [...atEntries.map((e, i): EntryText => [encode(BigInt(i)), e[1]])] };
    ok(c.t.state_import(ctx(), { Begin: manifest(all) }));
    assert.match(
      err(c.t.state_import(ctx(), { Chunk: { store: 'items', entries: items(MAX_CHUNK_ENTRIES + 1) } })),
      /at most 500 entries/,
    );
    const overChars = [long(0, per), long(1, MAX_CHUNK_CHARS - per + 1)];
    assert.match(err(c.t.state_import(ctx(), { Chunk: { store: 'items', entries: overChars } })), /1000001/);
    assert.equal(c.stores.items.size, 0, 'a refused chunk writes nothing');
    ok(c.t.state_import(ctx(), { Chunk: { store: 'items', entries: atEntries } }));
    assert.equal(c.stores.items.size, MAX_CHUNK_ENTRIES);
    const d = canister();
    ok(d.t.state_import(ctx(), { Begin: manifest({ items: atChars }) }));
    ok(d.t.state_import(ctx(), { Chunk: { store: 'items', entries: atChars } }));
    ok(d.t.state_import(ctx(), { Seal: null }));
  });

  it('W22: keys must rise across chunks; the seal refuses a count or checksum the manifest does not give; a new Begin starts over', () => {
    const c = canister();
    const all = { items: items(4) };
    ok(c.t.state_import(ctx(), { Begin: manifest(all) }));
    ok(c.t.state_import(ctx(), { Chunk: { store: 'items', entries: all.items.slice(0, 2) } }));
    assert.match(
      err(c.t.state_import(ctx(), { Chunk: { store: 'items', entries: all.items.slice(1, 3) } })),
      /ascending key order/,
    );
    assert.match(err(c.t.state_import(ctx(), { Chunk: { store: 'nope', entries: [] } })), /no store nope/);
    assert.match(err(c.t.state_import(ctx(), { Seal: null })), /^store items holds 2 entries/);
    ok(
      c.t.state_import(ctx(), {
        Chunk: { store: 'items', entries: [all.items[2]!, [all.items[3]![0], encode({ n: 'changed' })]] },
      }),
    );
    assert.match(err(c.t.state_import(ctx(), { Seal: null })), /CRC-32/);
    ok(c.t.state_import(ctx(), { Begin: manifest(all) }));
    assert.equal(c.stores.items.size, 0);
    ok(c.t.state_import(ctx(), { Chunk: { store: 'items', entries: all.items } }));
    ok(c.t.state_import(ctx(), { Seal: null }));
  });

  it('K23: a manifest of another release (store list or format) is refused before anything is emptied', () => {
    const c = canister((s) => s.config.set('config', 1));
    const m = manifest({});
    assert.match(
      err(c.t.state_import(ctx(), { Begin: { ...m, version: '1:config' } })),
      /state version is 1:config,items, the export's is 1:config/,
    );
    assert.match(err(c.t.state_import(ctx(), { Begin: { ...m, stores: [...m.stores].reverse() } })), /in order/);
    assert.equal(c.stores.config.size, 1);
    assert.equal(c.t.status(), 'fresh');
  });
});
