import { readFileSync } from 'node:fs';
import { meter } from '../packages/canisters/test/wasm-host/meter.ts';
const w = readFileSync('.azle/governance/governance.wasm');
let t0 = Date.now(); const m = meter(w); console.log('meter ms', Date.now() - t0, w.length, m.wasm.length);
t0 = Date.now(); const mod = new WebAssembly.Module(m.wasm); console.log('compile ms', Date.now() - t0);
t0 = Date.now(); new WebAssembly.Module(w); console.log('compile plain ms', Date.now() - t0);
