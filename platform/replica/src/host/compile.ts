// Decision W4: each distinct wasm patched (and metered) and compiled once per process.
import { createHash } from 'node:crypto';
import { meter } from './meter.ts';
import { exportTableAndGlobals, type ModuleShape } from './patch.ts';

export interface Prepared {
  module: WebAssembly.Module;
  shape: ModuleShape;
  /** The export of the metering counter (decision W4); none in an unmetered module. */
  counterExport: string | undefined;
}

/**
 * Patched (and metered, unless `metered` is false) and compiled once per distinct wasm: metering takes
 * most of a second. Both variants keep the module's own globals at the same indices (the counter is
 * appended after them), so a canister's state moves between them (decision W4).
 */
const compiled = new Map<string, Prepared>();
export function prepare(wasm: Uint8Array, metered: boolean): Prepared {
  const key = `${createHash('sha256').update(wasm).digest('hex')}:${metered}`;
  let entry = compiled.get(key);
  if (!entry) {
    const counted = metered ? meter(wasm) : undefined;
    const patched = exportTableAndGlobals(counted?.wasm ?? wasm);
    entry = {
      module: new WebAssembly.Module(patched.wasm),
      shape: patched.shape,
      counterExport: counted && `__host_global_${counted.counter}`,
    };
    compiled.set(key, entry);
  }
  return entry;
}
