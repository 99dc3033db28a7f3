// Issue 15: what the test host needs from a canister's wasm that a replica gets from inside the
// engine: its function table (inter-canister call callbacks are table indices) and its globals (a trap
// rolls back the stack pointer and the allocator's globals with the memory). This adds exports for
// them, `__host_table` and `__host_global_<i>`, and changes nothing else in the module.

function readU32(bytes: Uint8Array, at: number): [value: number, next: number] {
  let value = 0;
  let shift = 0;
  for (;;) {
    const b = bytes[at++]!;
    value |= (b & 0x7f) << shift;
    if ((b & 0x80) === 0) return [value >>> 0, at];
    shift += 7;
  }
}

function skipLeb(bytes: Uint8Array, at: number): number {
  while (bytes[at++]! & 0x80);
  return at;
}

function u32(value: number): number[] {
  const out: number[] = [];
  do {
    let b = value & 0x7f;
    value >>>= 7;
    if (value !== 0) b |= 0x80;
    out.push(b);
  } while (value !== 0);
  return out;
}

const utf8 = (s: string) => [...Buffer.from(s, 'utf8')];

export interface ModuleShape {
  /** Mutable globals defined by the module (index, value type: 0x7f i32, 0x7e i64, 0x7d f32, 0x7c f64). */
  mutableGlobals: Array<{ index: number; type: number }>;
  hasTable: boolean;
}

/** Returns the module with the added exports, and what it exported. */
export function exportTableAndGlobals(wasm: Uint8Array): { wasm: Uint8Array<ArrayBuffer>; shape: ModuleShape } {
  if (wasm[0] !== 0 || wasm[1] !== 0x61 || wasm[2] !== 0x73 || wasm[3] !== 0x6d) throw new Error('not a wasm module');
  const sections: Array<{ id: number; start: number; end: number }> = [];
  for (let at = 8; at < wasm.length; ) {
    const id = wasm[at]!;
    const [size, body] = readU32(wasm, at + 1);
    sections.push({ id, start: at, end: body + size });
    at = body + size;
  }
  const body = (s: { start: number }) => readU32(wasm, s.start + 1)[1];
  let importedGlobals = 0;
  let importedTables = 0;
  const imports = sections.find((s) => s.id === 2);
  if (imports) {
    let [count, at] = readU32(wasm, body(imports));
    for (; count > 0; count--) {
      for (let k = 0; k < 2; k++) {
        const [len, next] = readU32(wasm, at);
        at = next + len;
      }
      const kind = wasm[at++]!;
      if (kind === 0) at = skipLeb(wasm, at);
      else if (kind === 1) {
        importedTables++;
        at++; // reftype
        const flags = wasm[at++]!;
        at = skipLeb(wasm, at);
        if (flags & 1) at = skipLeb(wasm, at);
      } else if (kind === 2) {
        const flags = wasm[at++]!;
        at = skipLeb(wasm, at);
        if (flags & 1) at = skipLeb(wasm, at);
      } else if (kind === 3) {
        importedGlobals++;
        at += 2;
      } else throw new Error(`unknown import kind ${kind}`);
    }
  }
  const tables = sections.find((s) => s.id === 4);
  const hasTable = importedTables > 0 || (tables !== undefined && readU32(wasm, body(tables))[0] > 0);
  const mutableGlobals: ModuleShape['mutableGlobals'] = [];
  const globals = sections.find((s) => s.id === 6);
  if (globals) {
    let [count, at] = readU32(wasm, body(globals));
    for (let i = 0; i < count; i++) {
      const type = wasm[at++]!;
      const mutable = wasm[at++]! === 1;
      // The constant initializer: instructions up to `end` (0x0b).
      for (;;) {
        const op = wasm[at++]!;
        if (op === 0x0b) break;
        if (op === 0x41 || op === 0x42 || op === 0x23 || op === 0xd2) at = skipLeb(wasm, at);
        else if (op === 0x43) at += 4;
        else if (op === 0x44) at += 8;
        else if (op === 0xd0) at += 1;
        else if (op !== 0x6a && op !== 0x6b && op !== 0x6c && op !== 0x7c && op !== 0x7d && op !== 0x7e) throw new Error(`unexpected opcode ${op} in a global initializer`);
      }
      if (mutable) mutableGlobals.push({ index: importedGlobals + i, type });
    }
  }
  const added: number[][] = [];
  if (hasTable) added.push([...u32(12), ...utf8('__host_table'), 0x01, 0]);
  for (const g of mutableGlobals) {
    const name = utf8(`__host_global_${g.index}`);
    added.push([...u32(name.length), ...name, 0x03, ...u32(g.index)]);
  }
  const exportsSection = sections.find((s) => s.id === 7);
  const [oldCount, entriesAt] = exportsSection ? readU32(wasm, body(exportsSection)) : [0, 0];
  const entries = exportsSection ? wasm.subarray(entriesAt, exportsSection.end) : new Uint8Array();
  const content = [...u32(oldCount + added.length), ...entries, ...added.flat()];
  const newSection = Uint8Array.from([7, ...u32(content.length), ...content]);
  // The export section sits after the global section (id 6) and before start/element/code (8+).
  const before = exportsSection ? wasm.subarray(0, exportsSection.start) : wasm.subarray(0, sections.find((s) => s.id > 7 && s.id !== 0)?.start ?? wasm.length);
  const after = exportsSection ? wasm.subarray(exportsSection.end) : wasm.subarray(before.length);
  const out = new Uint8Array(before.length + newSection.length + after.length);
  out.set(before, 0);
  out.set(newSection, before.length);
  out.set(after, before.length + newSection.length);
  return { wasm: out, shape: { mutableGlobals, hasTable } };
}
