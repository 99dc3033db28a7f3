// Decisions W2 and W11: the test replica's ic0 calls trap on a range outside the heap or stable memory,
// negative arguments included (ic0's are unsigned: a negative one stands for 2 GiB or 2^63 and more),
// exactly at the end of either works and one byte past it traps, and the trap undoes what the message
// wrote before it. On a hand-made module, not the built canisters.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { principalFromSeed } from '../src/principals.ts';
import { u32, WasmReplica } from '@domdao/replica/host';

const CONTROLLER = principalFromSeed('controller');
const ID = principalFromSeed('bounds-probe');

/** Signed LEB128, as i64.const takes it. */
function sleb(value: bigint): number[] {
  const out: number[] = [];
  for (;;) {
    const byte = Number(value & 0x7fn);
    value >>= 7n;
    if ((value === 0n && (byte & 0x40) === 0) || (value === -1n && (byte & 0x40) !== 0)) return [...out, byte];
    out.push(byte | 0x80);
  }
}
const name = (s: string) => [...u32(s.length), ...Buffer.from(s)];
const section = (id: number, content: number[]) => [id, ...u32(content.length), ...content];
const i64 = (v: bigint) => [0x42, ...sleb(v)];
const call = (f: number) => [0x10, f];

/** A module whose methods call ic0's stable memory functions with these i64 arguments; init grows stable memory by a page. */
function probe(methods: Record<string, number[]>): Uint8Array {
  const imports: Array<[string, number]> = [
    ['stable64_grow', 1],
    ['stable64_write', 2],
    ['stable64_read', 2],
  ];
  const bodies = [[...i64(1n), ...call(0), 0x1a], ...Object.values(methods)];
  return Uint8Array.from([
    ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
    // () -> (), (i64) -> i64, (i64, i64, i64) -> ()
    ...section(1, [0x03, 0x60, 0x00, 0x00, 0x60, 0x01, 0x7e, 0x01, 0x7e, 0x60, 0x03, 0x7e, 0x7e, 0x7e, 0x00]),
    ...section(2, [imports.length, ...imports.flatMap(([n, type]) => [...name('ic0'), ...name(n), 0x00, type])]),
    ...section(3, [bodies.length, ...bodies.map(() => 0x00)]),
    ...section(5, [0x01, 0x00, 0x01]),
    ...section(7, [
      bodies.length + 1,
      ...name('memory'),
      0x02,
      0x00,
      ...name('canister_init'),
      0x00,
      imports.length,
      ...Object.keys(methods).flatMap((m, i) => [...name(`canister_update ${m}`), 0x00, imports.length + 1 + i]),
    ]),
    ...section(10, [bodies.length, ...bodies.flatMap((b) => [...u32(b.length + 2), 0x00, ...b, 0x0b])]),
  ]);
}

/** Eight bytes that are not zeros, stored in the heap at 0. */
const STORE_EIGHT = [0x41, 0x00, ...i64(0x0102030405060708n), 0x37, 0x03, 0x00];
/** Then written to stable memory at 0: what a trap after it must undo. */
const WRITE_EIGHT = [...STORE_EIGHT, ...i64(0n), ...i64(0n), ...i64(8n), ...call(1)];

describe('decisions W2, W11: ic0 bounds on the test replica', () => {
  it('a negative size, offset or heap pointer traps, and the writes before it in the message are undone', async () => {
    const replica = new WasmReplica();
    await replica.install(
      ID,
      probe({
        write_negative_size: [...WRITE_EIGHT, ...i64(0n), ...i64(0n), ...i64(-5n), ...call(1)],
        write_negative_offset: [...WRITE_EIGHT, ...i64(-8n), ...i64(0n), ...i64(8n), ...call(1)],
        read_negative_pointer: [...WRITE_EIGHT, ...i64(-1n), ...i64(0n), ...i64(4n), ...call(2)],
        write_past_the_end: [...WRITE_EIGHT, ...i64(65_536n - 7n), ...i64(0n), ...i64(8n), ...call(1)],
        read_past_the_heap: [...WRITE_EIGHT, ...i64(65_536n - 3n), ...i64(0n), ...i64(4n), ...call(2)],
        read_at_the_heap_end: [...WRITE_EIGHT, ...i64(65_536n - 4n), ...i64(0n), ...i64(4n), ...call(2), 0x00],
        write_at_the_end: [...STORE_EIGHT, ...i64(65_536n - 8n), ...i64(0n), ...i64(8n), ...call(1), 0x00],
      }),
      new Uint8Array(),
      CONTROLLER,
    );
    const canister = replica.canister(ID);
    const stable = () => Buffer.from(canister.stable.subarray(0, canister.stablePages * 65_536));
    assert.equal(canister.stablePages, 1);
    for (const [method, message] of [
      ['write_negative_size', /stable memory write out of bounds/],
      ['write_negative_offset', /stable memory write out of bounds/],
      ['read_negative_pointer', /heap out of bounds/],
      ['write_past_the_end', /stable memory write out of bounds/],
      ['read_past_the_heap', /heap out of bounds/],
    ] as const) {
      const r = await replica.update(CONTROLLER, ID, method, new Uint8Array());
      assert.ok(
        'rejectCode' in r && r.rejectCode === 5 && message.test(r.rejectMessage),
        `${method}: ${JSON.stringify(r)}`,
      );
      assert.ok(stable().equals(Buffer.alloc(65_536)), `${method}: the eight bytes written before the trap are undone`);
    }
    // Exactly at the end (stable memory's last eight bytes, the heap's last four) is within bounds: the
    // call works, then the `unreachable` after it traps and undoes what the message wrote.
    for (const method of ['write_at_the_end', 'read_at_the_heap_end']) {
      const r = await replica.update(CONTROLLER, ID, method, new Uint8Array());
      assert.ok(
        'rejectCode' in r && r.rejectCode === 5 && !/out of bounds/.test(r.rejectMessage),
        `${method}: ${JSON.stringify(r)}`,
      );
      assert.ok(stable().equals(Buffer.alloc(65_536)), method);
    }
  });
});
