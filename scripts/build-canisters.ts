// `npm run build:canisters`: azle build for all six canisters (offline: Azle ships its canister
// template), then a check that each generated Candid interface equals the committed .did.
// `-- --update` rewrites the committed .did files instead of failing; names limit the build.
// A canister whose inputs are unchanged since its last build is not rebuilt (decision R17): its inputs
// are every file esbuild bundles from its entry point (its sources, the packages and node_modules files
// it imports), hashed with the build's settings, Azle's version, the lockfile and this script; the hash
// is kept beside its wasm. `-- --force` rebuilds regardless. The .did check runs either way.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build as esbuild } from 'esbuild';

const ROOT = new URL('..', import.meta.url).pathname;
const ALL = ['governance', 'membership', 'user', 'campaign', 'treasury', 'ledger'];
const args = process.argv.slice(2);
const updateDid = args.includes('--update');
const force = args.includes('--force');
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
    child.on('close', (code) =>
      code === 0 ? resolve() : reject(new Error(`azle build ${name} failed (exit ${code}):\n${output}`)),
    );
  });
}

const dfxEntry = (name: string): string =>
  (JSON.parse(readFileSync(join(ROOT, 'dfx.json'), 'utf8')) as { canisters: Record<string, { main: string }> })
    .canisters[dfxName(name)]!.main;
const inputsFile = (name: string) => join(ROOT, '.azle', dfxName(name), 'inputs.sha256');

/**
 * A hash of everything the canister's build reads, or undefined when that cannot be worked out (then
 * it is built). esbuild lists the files it bundles from the entry point as Azle's esbuild does; the
 * settings, Azle itself and every installed version (the lockfile) are hashed whole.
 */
async function inputsHash(name: string): Promise<string | undefined> {
  try {
    const entry = dfxEntry(name);
    const r = await esbuild({
      entryPoints: [join(ROOT, entry)],
      absWorkingDir: ROOT,
      bundle: true,
      write: false,
      metafile: true,
      platform: 'neutral',
      format: 'esm',
      logLevel: 'silent',
      tsconfig: join(ROOT, 'tsconfig.azle.json'),
      mainFields: ['module', 'main'],
      conditions: ['import'],
    });
    const h = createHash('sha256').update(`${name}\0${entry}\0${process.version}\0`);
    for (const [k, v] of Object.entries(process.env)
      .filter(([k]) => k.startsWith('AZLE_'))
      .sort())
      h.update(`${k}=${v}\0`);
    const always = [
      'dfx.json',
      'tsconfig.json',
      'tsconfig.azle.json',
      'package-lock.json',
      'node_modules/azle/package.json',
      'scripts/build-canisters.ts',
    ];
    for (const f of [...always, ...Object.keys(r.metafile.inputs).sort()])
      h.update(f)
        .update('\0')
        .update(readFileSync(join(ROOT, f)))
        .update('\0');
    return h.digest('hex');
  } catch {
    return undefined;
  }
}

const upToDate = (name: string, hash: string | undefined) =>
  hash !== undefined &&
  existsSync(join(ROOT, '.azle', dfxName(name), `${dfxName(name)}.wasm`)) &&
  existsSync(join(didDir, `${name}.did`)) &&
  existsSync(inputsFile(name)) &&
  readFileSync(inputsFile(name), 'utf8') === hash;

function firstDifference(a: string, b: string): string {
  const x = a.split('\n');
  const y = b.split('\n');
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    if (x[i] !== y[i]) return `line ${i + 1}:\n  committed: ${x[i] ?? '(none)'}\n  generated: ${y[i] ?? '(none)'}`;
  }
  return '';
}

const started = Date.now();
const hashes = Object.fromEntries(
  await Promise.all(targets.map(async (name) => [name, await inputsHash(name)] as const)),
);
const queue = targets.filter((name) => force || !upToDate(name, hashes[name]));
const skipped = targets.filter((name) => !queue.includes(name));
// Two at a time: each build is one busy process.
await Promise.all(
  Array.from({ length: Math.min(2, queue.length) }, async () => {
    for (let name = queue.shift(); name; name = queue.shift()) {
      // A build that fails half way must not leave the old hash beside a new, broken output.
      rmSync(inputsFile(name), { force: true });
      await build(name);
      const hash = hashes[name];
      if (hash !== undefined) writeFileSync(inputsFile(name), hash);
    }
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
      console.error(
        `canisters/${name}/${name}.did differs from what azle build generates, ${firstDifference(committed, generated)}`,
      );
    }
  }
  const wasm = statSync(join(ROOT, '.azle', dfxName(name), `${dfxName(name)}.wasm`)).size;
  sizes[name] = wasm;
  rows.push(`| ${name} | ${(wasm / 1024 / 1024).toFixed(2)} MiB | ${wasm} |`);
}
writeFileSync(join(ROOT, '.azle', 'sizes.json'), JSON.stringify(sizes, null, 2));
console.log(`| canister | .wasm | bytes |\n| --- | --- | --- |\n${rows.join('\n')}`);
console.log(
  `built ${targets.length - skipped.length} canister(s) in ${((Date.now() - started) / 1000).toFixed(1)} s${skipped.length ? `; unchanged since their last build, not rebuilt: ${skipped.join(', ')} (-- --force rebuilds them)` : ''}`,
);
if (stale) {
  console.error(
    `${stale} committed .did file(s) are stale: if the change is intended, run npm run build:canisters -- --update and commit them`,
  );
  process.exit(1);
}
