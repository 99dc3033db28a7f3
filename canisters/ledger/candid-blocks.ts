// icrc3_get_blocks in Candid bytes written directly (decision L42). The generic path (the core's ICRC-3
// Values, converted for the candid library and encoded by it) cost the wasm about 41 M instructions per
// block, most of it in the candid library's encoder interpreted by QuickJS. Here each block's Value is
// encoded once, when it is appended (`encodeValue`), and kept as bytes; a reply is the type table of
// GetBlocksResult (taken once from the candid library) followed by the result's fields, each block's
// bytes copied as they are. Only what varies per reply is written here: naturals as LEB128, lengths,
// and the archive callbacks. Pure: both the Azle entry and Node's tests (which compare every byte with
// the candid library's own encoding) run it.
import type { Idl, IdlType } from '@domdao/canister-kit/candid';
import type { GetBlocksArgs } from './core/block-log.ts';
import type { Value } from './core/types.ts';

/**
 * The texts of blocks are a handful of keys and block types: each is encoded once (ASCII by its char
 * codes: the wasm's TextEncoder costs about 36,000 instructions a byte, decision W17).
 */
const texts = new Map<string, Uint8Array>();
function textBytes(t: string): Uint8Array {
  let b = texts.get(t);
  if (!b) {
    const codes = Array.from(t, (c) => c.charCodeAt(0));
    b =
      codes.every((c) => c < 0x80) && codes.length === t.length ? Uint8Array.from(codes) : new TextEncoder().encode(t);
    if (texts.size < 256) texts.set(t, b);
  }
  return b;
}

/** Candid's field id of a label: h(s) = Σ s[i]·223^(n−1−i) mod 2^32 over its UTF-8 bytes. */
export function idlHash(label: string): number {
  let h = 0;
  for (const b of textBytes(label)) h = (Math.imul(h, 223) + b) >>> 0;
  return h;
}

/** Labels in the order Candid writes a record's fields or numbers a variant's cases: by id. */
const byId = <T extends string>(labels: T[]): T[] => [...labels].sort((a, b) => idlHash(a) - idlHash(b));

const VALUE_CASES = Object.fromEntries(
  byId(['Blob', 'Text', 'Nat', 'Int', 'Array', 'Map']).map((c, i) => [c, i]),
) as Record<string, number>;
const RESULT_FIELDS = byId(['log_length', 'blocks', 'archived_blocks']);
const BLOCK_FIELDS = byId(['id', 'block']);
const ARCHIVED_FIELDS = byId(['args', 'callback']);
const RANGE_FIELDS = byId(['start', 'length']);

/** Bytes appended in pieces and joined once: small numbers go to `pending`, byte arrays are kept as they are. */
class Writer {
  private readonly parts: Uint8Array[] = [];
  private pending: number[] = [];
  private size = 0;

  byte(b: number): void {
    this.pending.push(b);
  }
  bytes(b: Uint8Array): void {
    this.flush();
    this.parts.push(b);
    this.size += b.length;
  }
  nat(n: bigint): void {
    if (n < 0n) throw new RangeError('a nat is not negative');
    // Below 2^53 in float arithmetic: BigInt operations cost QuickJS several times more.
    if (n <= 9007199254740991n) {
      let x = Number(n);
      while (x >= 128) {
        this.pending.push((x % 128) | 128);
        x = Math.floor(x / 128);
      }
      this.pending.push(x);
      return;
    }
    do {
      const low = Number(n & 0x7fn);
      n >>= 7n;
      this.pending.push(n === 0n ? low : low | 0x80);
    } while (n !== 0n);
  }
  int(n: bigint): void {
    for (;;) {
      const low = Number(n & 0x7fn);
      n >>= 7n;
      const done = (n === 0n && (low & 0x40) === 0) || (n === -1n && (low & 0x40) !== 0);
      this.pending.push(done ? low : low | 0x80);
      if (done) return;
    }
  }
  length(n: number): void {
    this.nat(BigInt(n));
  }
  text(t: string): void {
    const b = textBytes(t);
    this.length(b.length);
    this.bytes(b);
  }
  done(): Uint8Array {
    this.flush();
    if (this.parts.length === 1) return this.parts[0]!;
    const out = new Uint8Array(this.size);
    let at = 0;
    for (const p of this.parts) {
      out.set(p, at);
      at += p.length;
    }
    return out;
  }
  private flush(): void {
    if (this.pending.length === 0) return;
    this.parts.push(Uint8Array.from(this.pending));
    this.size += this.pending.length;
    this.pending = [];
  }
}

function writeValue(w: Writer, v: Value): void {
  if ('Blob' in v) {
    w.byte(VALUE_CASES.Blob!);
    w.length(v.Blob.length);
    w.bytes(v.Blob);
  } else if ('Text' in v) {
    w.byte(VALUE_CASES.Text!);
    w.text(v.Text);
  } else if ('Nat' in v) {
    w.byte(VALUE_CASES.Nat!);
    w.nat(v.Nat);
  } else if ('Int' in v) {
    w.byte(VALUE_CASES.Int!);
    w.int(v.Int);
  } else if ('Array' in v) {
    w.byte(VALUE_CASES.Array!);
    w.length(v.Array.length);
    for (const x of v.Array) writeValue(w, x);
  } else {
    w.byte(VALUE_CASES.Map!);
    w.length(v.Map.length);
    for (const [k, x] of v.Map) {
      w.text(k);
      writeValue(w, x);
    }
  }
}

/** A Value's Candid encoding without the type table: what a reply copies for each block. */
export function encodeValue(v: Value): Uint8Array {
  const w = new Writer();
  writeValue(w, v);
  return w.done();
}

/**
 * The type table and argument types of a reply of one GetBlocksResult, as the candid library `I`
 * writes them: its encoding of an empty result less the three bytes of its fields (0, 0, 0).
 */
export function getBlocksReplyHeader(I: Idl, GetBlocksResult: IdlType): Uint8Array {
  const empty = new Uint8Array(I.encode([GetBlocksResult], [{ log_length: 0n, blocks: [], archived_blocks: [] }]));
  return empty.subarray(0, empty.length - 3);
}

export interface EncodedBlocksResult {
  log_length: bigint;
  /** Each block's id and its Value's encoding (encodeValue). */
  blocks: Array<{ id: bigint; value: Uint8Array }>;
  /** The callback's canister as the principal's bytes, and its method. */
  archived_blocks: Array<{ args: GetBlocksArgs[]; callback: { canister: Uint8Array; method: string } }>;
}

/** A whole reply of icrc3_get_blocks (or of the archive's method): `header` (getBlocksReplyHeader), then the result. */
export function encodeGetBlocksReply(header: Uint8Array, r: EncodedBlocksResult): Uint8Array {
  const w = new Writer();
  w.bytes(header);
  for (const field of RESULT_FIELDS) {
    if (field === 'log_length') w.nat(r.log_length);
    else if (field === 'blocks') {
      w.length(r.blocks.length);
      for (const b of r.blocks)
        for (const f of BLOCK_FIELDS) {
          if (f === 'id') w.nat(b.id);
          else w.bytes(b.value);
        }
    } else {
      w.length(r.archived_blocks.length);
      for (const a of r.archived_blocks)
        for (const f of ARCHIVED_FIELDS) {
          if (f === 'args') {
            w.length(a.args.length);
            for (const range of a.args)
              for (const rf of RANGE_FIELDS) w.nat(rf === 'start' ? range.start : range.length);
          } else {
            // A func reference: 1 (transparent), the service (1, then the principal's bytes), the method name.
            w.byte(1);
            w.byte(1);
            w.length(a.callback.canister.length);
            w.bytes(a.callback.canister);
            w.text(a.callback.method);
          }
        }
    }
  }
  return w.done();
}
