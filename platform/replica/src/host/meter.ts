// Decision W4: instruction counting for the test replica. A pass over the module's code adds
// a mutable i64 global and, at the start of every straight-line run of instructions (function entry,
// after loop/if/else/end and after br_if), adds the run's length to it. V8 then counts as it
// executes, which is what the IC's metering does (one per wasm instruction; the IC also charges for
// system API calls and bulk memory bytes, which this does not). DFINITY's `ic-wasm instrument` was
// tried first: its heap trace buffer breaks Azle's allocator (see decision W4).
import { importCounts, readU32, sectionsOf, skipLeb, u32 } from './wasm-binary.ts';

function s64(value: number): number[] {
  const out: number[] = [];
  let v = BigInt(value);
  for (;;) {
    const b = Number(v & 0x7fn);
    v >>= 7n;
    const done = (v === 0n && (b & 0x40) === 0) || (v === -1n && (b & 0x40) !== 0);
    out.push(done ? b : b | 0x80);
    if (done) return out;
  }
}

const BLOCK_TYPES = new Set([0x40, 0x7f, 0x7e, 0x7d, 0x7c, 0x7b, 0x70, 0x6f]);

/** The byte after the instruction at `at` (its opcode and immediates). */
function next(code: Uint8Array, at: number): number {
  const op = code[at++]!;
  if (op === 0x02 || op === 0x03 || op === 0x04) return BLOCK_TYPES.has(code[at]!) ? at + 1 : skipLeb(code, at);
  if (op === 0x0c || op === 0x0d || op === 0x10 || op === 0x12 || (op >= 0x20 && op <= 0x26) || op === 0xd2)
    return skipLeb(code, at);
  if (op === 0x11 || op === 0x13) return skipLeb(code, skipLeb(code, at));
  if (op === 0x0e) {
    let [n, p] = readU32(code, at);
    for (; n >= 0; n--) p = skipLeb(code, p);
    return p;
  }
  if (op === 0x1c) {
    const [n, p] = readU32(code, at);
    return p + n;
  }
  if (op >= 0x28 && op <= 0x3e) {
    const [align, p] = readU32(code, at);
    return skipLeb(code, align & 0x40 ? skipLeb(code, p) : p);
  }
  if (op === 0x3f || op === 0x40 || op === 0xd0) return at + 1;
  if (op === 0x41 || op === 0x42) return skipLeb(code, at);
  if (op === 0x43) return at + 4;
  if (op === 0x44) return at + 8;
  if (op === 0xfc) {
    const [sub, p] = readU32(code, at);
    if (sub <= 7) return p;
    if (sub === 8) return skipLeb(code, p) + 1;
    if (sub === 10) return p + 2;
    if (sub === 11) return p + 1;
    if (sub === 12 || sub === 14) return skipLeb(code, skipLeb(code, p));
    if (sub === 9 || sub === 13 || (sub >= 15 && sub <= 17)) return skipLeb(code, p);
    throw new Error(`unknown 0xfc instruction ${sub}`);
  }
  if (
    op <= 0x01 ||
    op === 0x05 ||
    op === 0x0b ||
    op === 0x0f ||
    op === 0x1a ||
    op === 0x1b ||
    (op >= 0x45 && op <= 0xc4) ||
    op === 0xd1
  )
    return at;
  throw new Error(`the meter does not know opcode 0x${op.toString(16)}`);
}

/**
 * Opcodes after which a new straight-line run starts: where a branch can land (a loop's head, after an
 * end), or where control may or may not go on (into an if's arm, an else, past a br_if). Not after
 * `block`: a branch to a block lands at its end, so its first instruction is reached only by falling
 * in and belongs to the run before it, with the same count. Starting a run there put an add after each
 * of the hundreds of nested blocks QuickJS's interpreter opens for every bytecode it dispatches, which
 * made the metered canisters about 15 times slower than the same code unmetered (decision W4).
 */
const STARTS_RUN = new Set([0x03, 0x04, 0x05, 0x0b, 0x0d]);

function meterBody(body: Uint8Array, counter: number): number[] {
  // Locals: a vector of (count, type).
  let [groups, at] = readU32(body, 0);
  for (; groups > 0; groups--) at = skipLeb(body, at) + 1;
  const starts: number[] = [];
  const ends: number[] = [];
  for (let p = at; p < body.length;) {
    starts.push(p);
    p = next(body, p);
    ends.push(p);
  }
  const runStart = new Array<boolean>(starts.length).fill(false);
  runStart[0] = true;
  for (let i = 0; i < starts.length - 1; i++) if (STARTS_RUN.has(body[starts[i]!]!)) runStart[i + 1] = true;
  const out: number[] = [...body.subarray(0, at)];
  const bump = (n: number) => out.push(0x23, ...u32(counter), 0x42, ...s64(n), 0x7c, 0x24, ...u32(counter));
  for (let i = 0; i < starts.length; i++) {
    if (runStart[i]) {
      let j = i + 1;
      while (j < starts.length && !runStart[j]) j++;
      bump(j - i);
    }
    for (let p = starts[i]!; p < ends[i]!; p++) out.push(body[p]!);
  }
  return out;
}

/** The module with an instruction counter: a new mutable i64 global, its index returned. */
export function meter(wasm: Uint8Array): { wasm: Uint8Array<ArrayBuffer>; counter: number } {
  const sections = sectionsOf(wasm);
  const importedGlobals = importCounts(wasm, sections).globals;
  const globals = sections.find((s) => s.id === 6);
  const [globalCount, globalEntries] = globals ? readU32(wasm, globals.body) : [0, 0];
  const counter = importedGlobals + globalCount;
  const newGlobals = [
    ...u32(globalCount + 1),
    ...(globals ? wasm.subarray(globalEntries, globals.end) : []),
    0x7e,
    0x01,
    0x42,
    0x00,
    0x0b,
  ];
  const globalSection = Uint8Array.from([6, ...u32(newGlobals.length), ...newGlobals]);
  const code = sections.find((s) => s.id === 10)!;
  let [bodies, at] = readU32(wasm, code.body);
  const newCode: number[] = [...u32(bodies)];
  for (; bodies > 0; bodies--) {
    const [size, p] = readU32(wasm, at);
    const metered = meterBody(wasm.subarray(p, p + size), counter);
    newCode.push(...u32(metered.length));
    for (const b of metered) newCode.push(b);
    at = p + size;
  }
  const parts: Uint8Array[] = [wasm.subarray(0, 8)];
  // Without a global section, the new one goes where the order of sections puts it (after memory).
  const AFTER_GLOBALS = new Set([7, 8, 9, 12, 10, 11]);
  let placed = globals !== undefined;
  for (const s of sections) {
    if (!placed && AFTER_GLOBALS.has(s.id)) {
      parts.push(globalSection);
      placed = true;
    }
    if (s.id === 6) parts.push(globalSection);
    else if (s.id === 10) parts.push(Uint8Array.from([10, ...u32(newCode.length)]), Uint8Array.from(newCode));
    else parts.push(wasm.subarray(s.start, s.end));
  }
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return { wasm: out, counter };
}
