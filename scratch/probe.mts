import { readFileSync } from 'node:fs';
import { IDL } from '@icp-sdk/core/candid';
import { WasmReplica } from '../packages/canisters/test/wasm-host/host.ts';
const r = new WasmReplica();
const id = 'rrkah-fqaaa-aaaaa-aaaaq-cai';
await r.install(id, readFileSync('/tmp/probe/.azle/probe/probe.wasm'), new Uint8Array(IDL.encode([], [])), '2vxsx-fae');
const last = () => r.counts.at(-1)!.instructions;
for (let i = 0; i < 20; i++) { const u = await r.update('2vxsx-fae', id, 'fill', new Uint8Array(IDL.encode([IDL.Nat32, IDL.Nat32], [i * 1000, 1000]))); }
console.log('fill 1000 per msg', last().toLocaleString('en'));
await r.query('2vxsx-fae', id, 'nothing', new Uint8Array(IDL.encode([], [])));
const base = last(); console.log('nothing', base.toLocaleString('en'));
for (const s of [0, 1000, 5000, 10000, 19999]) { await r.query('2vxsx-fae', id, 'at', new Uint8Array(IDL.encode([IDL.Nat32], [s]))); console.log('items(', s, ',1)', last().toLocaleString('en')); }
for (const n of [1000, 10000, 20000]) { await r.query('2vxsx-fae', id, 'keysAll', new Uint8Array(IDL.encode([IDL.Nat32], [n]))); console.log('keys(0,', n, ')', last().toLocaleString('en')); }
