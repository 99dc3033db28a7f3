// Decisions W1, W2: what the test host needs from a canister's wasm that a replica gets from inside the
// engine: its function table (inter-canister call callbacks are table indices) and its globals (a trap
// rolls back the stack pointer and the allocator's globals with the memory). This adds exports for
// them, `__host_table` and `__host_global_<i>`, and changes nothing else in the module.
import { importCounts, readU32, sectionsOf, skipLeb, u32 } from './wasm-binary.ts';

const utf8 = (s: string) => [...Buffer.from(s, 'utf8')];

export interface ModuleShape {
  /** Mutable globals defined by the module (index, value type: 0x7f i32, 0x7e i64, 0x7d f32, 0x7c f64). */
  mutableGlobals: Array<{ index: number; type: number }>;
  hasTable: boolean;
}

/** Returns the module with the added exports, and what it exported. */
export function exportTableAndGlobals(wasm: Uint8Array): { wasm: Uint8Array<ArrayBuffer>; shape: ModuleShape } {
  const sections = sectionsOf(wasm);
  const imported = importCounts(wasm, sections);
  const importedGlobals = imported.globals;
  const importedTables = imported.tables;
  const tables = sections.find((s) => s.id === 4);
  const hasTable = importedTables > 0 || (tables !== undefined && readU32(wasm, tables.body)[0] > 0);
  const mutableGlobals: ModuleShape['mutableGlobals'] = [];
  const globals = sections.find((s) => s.id === 6);
  if (globals) {
    let [count, at] = readU32(wasm, globals.body);
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
        else if (op !== 0x6a && op !== 0x6b && op !== 0x6c && op !== 0x7c && op !== 0x7d && op !== 0x7e)
          throw new Error(`unexpected opcode ${op} in a global initializer`);
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
  const [oldCount, entriesAt] = exportsSection ? readU32(wasm, exportsSection.body) : [0, 0];
  const entries = exportsSection ? wasm.subarray(entriesAt, exportsSection.end) : new Uint8Array();
  const content = [...u32(oldCount + added.length), ...entries, ...added.flat()];
  const newSection = Uint8Array.from([7, ...u32(content.length), ...content]);
  // The export section sits after the global section (id 6) and before start/element/code (8+).
  const before = exportsSection
    ? wasm.subarray(0, exportsSection.start)
    : wasm.subarray(0, sections.find((s) => s.id > 7 && s.id !== 0)?.start ?? wasm.length);
  const after = exportsSection ? wasm.subarray(exportsSection.end) : wasm.subarray(before.length);
  const out = new Uint8Array(before.length + newSection.length + after.length);
  out.set(before, 0);
  out.set(newSection, before.length);
  out.set(after, before.length + newSection.length);
  return { wasm: out, shape: { mutableGlobals, hasTable } };
}
