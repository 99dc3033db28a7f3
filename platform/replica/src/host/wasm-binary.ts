// Decisions W1–W4: the few pieces of the wasm binary format the test replica's passes (patch.ts, meter.ts)
// read and write: LEB128 numbers, the section list, and what the import section brings in.

export function readU32(bytes: Uint8Array, at: number): [value: number, next: number] {
  let value = 0;
  let shift = 0;
  for (;;) {
    const b = bytes[at++]!;
    value += (b & 0x7f) * 2 ** shift;
    if ((b & 0x80) === 0) return [value, at];
    shift += 7;
  }
}

export function skipLeb(bytes: Uint8Array, at: number): number {
  while (bytes[at++]! & 0x80);
  return at;
}

export function u32(value: number): number[] {
  const out: number[] = [];
  do {
    let b = value & 0x7f;
    value = Math.floor(value / 128);
    if (value !== 0) b |= 0x80;
    out.push(b);
  } while (value !== 0);
  return out;
}

export interface Section {
  id: number;
  /** Offset of the section's id byte, of its content, and past its end. */
  start: number;
  body: number;
  end: number;
}

export function sectionsOf(wasm: Uint8Array): Section[] {
  if (wasm[0] !== 0 || wasm[1] !== 0x61 || wasm[2] !== 0x73 || wasm[3] !== 0x6d) throw new Error('not a wasm module');
  const sections: Section[] = [];
  for (let at = 8; at < wasm.length;) {
    const id = wasm[at]!;
    const [size, body] = readU32(wasm, at + 1);
    sections.push({ id, start: at, body, end: body + size });
    at = body + size;
  }
  return sections;
}

/** How many tables and globals the module imports (they come first in their index spaces). */
export function importCounts(wasm: Uint8Array, sections: Section[]): { tables: number; globals: number } {
  const counts = { tables: 0, globals: 0 };
  const imports = sections.find((s) => s.id === 2);
  if (!imports) return counts;
  let [count, at] = readU32(wasm, imports.body);
  for (; count > 0; count--) {
    for (let k = 0; k < 2; k++) {
      const [len, next] = readU32(wasm, at);
      at = next + len;
    }
    const kind = wasm[at++]!;
    if (kind === 0) at = skipLeb(wasm, at);
    else if (kind === 1 || kind === 2) {
      if (kind === 1) {
        counts.tables++;
        at++; // reftype
      }
      const flags = wasm[at++]!;
      at = skipLeb(wasm, at);
      if (flags & 1) at = skipLeb(wasm, at);
    } else if (kind === 3) {
      counts.globals++;
      at += 2;
    } else throw new Error(`unknown import kind ${kind}`);
  }
  return counts;
}
