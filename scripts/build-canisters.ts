// `npm run build:canisters`: azle build for all six canisters (offline: Azle ships its canister
// template), then a check that each generated Candid interface equals the committed .did.
// `-- --update` rewrites the committed .did files instead of failing; names limit the build.
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = new URL('..', import.meta.url).pathname;
const ALL = ['governance', 'membership', 'user', 'campaign', 'treasury', 'ledger'];
const args = process.argv.slice(2);
const updateDid = args.includes('--update');
const names = args.filter((a) => !a.startsWith('--'));
for (const n of names) if (!ALL.includes(n)) throw new Error(`unknown canister ${n}; one of ${ALL.join(', ')}`);
const targets = names.length ? names : ALL;
const AZLE = join(ROOT, 'node_modules', '.bin', 'azle');
/** dfx.json names that differ from the folder: dfx's `ledger` is DFINITY's ICRC-1 ledger wasm (decision L1). */
const DFX_NAME: Record<string, string> = { ledger: 'ledger_embedded' };
const dfxName = (name: string) => DFX_NAME[name] ?? name;
const didDir = join(ROOT, '.azle', 'did');
mkdirSync(didDir, { recursive: true });

function build(name: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(AZLE, ['build', dfxName(name)], {
      cwd: ROOT,
      env: { ...process.env, CANISTER_CANDID_PATH: join(didDir, `${name}.did`) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`azle build ${name} failed (exit ${code}):\n${output}`))));
  });
}

function firstDifference(a: string, b: string): string {
  const x = a.split('\n');
  const y = b.split('\n');
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    if (x[i] !== y[i]) return `line ${i + 1}:\n  committed: ${x[i] ?? '(none)'}\n  generated: ${y[i] ?? '(none)'}`;
  }
  return '';
}

const started = Date.now();
const queue = [...targets];
// Two at a time: each build is one busy process.
await Promise.all(
  Array.from({ length: Math.min(2, queue.length) }, async () => {
    for (let name = queue.shift(); name; name = queue.shift()) await build(name);
  }),
);

let stale = 0;
const rows: string[] = [];
const sizes: Record<string, number> = {};
for (const name of targets) {
  const generated = readFileSync(join(didDir, `${name}.did`), 'utf8');
  const committedPath = join(ROOT, 'canisters', name, `${name}.did`);
  let committed = '';
  try {
    committed = readFileSync(committedPath, 'utf8');
  } catch {
    // a new canister: no committed interface yet
  }
  if (generated !== committed) {
    if (updateDid) writeFileSync(committedPath, generated);
    else {
      stale++;
      console.error(`canisters/${name}/${name}.did differs from what azle build generates, ${firstDifference(committed, generated)}`);
    }
  }
  const wasm = statSync(join(ROOT, '.azle', dfxName(name), `${dfxName(name)}.wasm`)).size;
  sizes[name] = wasm;
  rows.push(`| ${name} | ${(wasm / 1024 / 1024).toFixed(2)} MiB | ${wasm} |`);
}
writeFileSync(join(ROOT, '.azle', 'sizes.json'), JSON.stringify(sizes, null, 2));
console.log(`| canister | .wasm | bytes |\n| --- | --- | --- |\n${rows.join('\n')}`);
console.log(`built ${targets.length} canister(s) in ${((Date.now() - started) / 1000).toFixed(1)} s`);
if (stale) {
  console.error(`${stale} committed .did file(s) are stale: if the change is intended, run npm run build:canisters -- --update and commit them`);
  process.exit(1);
}
