// Builds the test-only store probe (./canister.ts) with azle when its wasm is missing or older than its
// sources (the probe and the canister kit's IC store); its own dfx.json names it, its output stays in ./.azle.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

const HERE = new URL('.', import.meta.url).pathname;
const ROOT = join(HERE, '..', '..', '..', '..');
const WASM = join(HERE, '.azle', 'store_probe', 'store_probe.wasm');

function newest(dir: string): number {
  let t = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory())
      t = e.name === 'embedded' ? t : Math.max(t, newest(p)); // the embedded host is not in the probe
    else if (e.name.endsWith('.ts')) t = Math.max(t, statSync(p).mtimeMs);
  }
  return t;
}

export function probeWasm(): Uint8Array {
  const sources = Math.max(
    statSync(join(HERE, 'canister.ts')).mtimeMs,
    newest(join(ROOT, 'packages', 'canister-kit', 'src')),
  );
  if (!existsSync(WASM) || statSync(WASM).mtimeMs < sources) {
    const r = spawnSync(join(ROOT, 'node_modules', '.bin', 'azle'), ['build', 'store_probe'], {
      cwd: HERE,
      env: { ...process.env, AZLE_DFX_ROOT: HERE, CANISTER_CANDID_PATH: join(HERE, '.azle', 'store_probe.did') },
      encoding: 'utf8',
    });
    if (r.status !== 0) throw new Error(`azle build store_probe failed:\n${r.stdout}${r.stderr}`);
  }
  return readFileSync(WASM);
}
