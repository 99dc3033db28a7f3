// test-lane: wasm
// `npm run deploy` against `npm run replica -- --empty` (decisions W18–W20, L46): the deploy tool creates
// and installs the six canisters through the management canister over the IC's HTTP interface, writes
// the bridge's IC_* settings, the bridge in IC mode passes `npm run journey` with them, and a second run
// keeps the ids and the state (nothing to do with the same wasm; an upgrade of the one module that
// changed). Bad input is refused in one sentence with nothing changed.
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import {
  mkdirSync,
  copyFileSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Principal } from '@icp-sdk/core/principal';
import { icClientsFromEnv } from '@domdao/canisters/ic';
import { startReplica, type RunningReplica } from '@domdao/replica';
import { freePort } from '@domdao/test-helpers/free-port';
import { ADMIN_EMAIL, bridge, WEBHOOK_SECRET } from './harness.ts';
import { runScript } from '@domdao/test-helpers';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const E8S = 100_000_000n;
const DEV_ADMIN_EMAIL = 'admin@domdao.localhost';
const ID_VARS = [
  'IC_GOVERNANCE_CANISTER_ID',
  'IC_MEMBERSHIP_CANISTER_ID',
  'IC_USER_CANISTER_ID',
  'IC_CAMPAIGN_CANISTER_ID',
  'IC_TREASURY_CANISTER_ID',
  'IC_LEDGER_CANISTER_ID',
];

const run = runScript;

const settings = (file: string) =>
  Object.fromEntries(
    readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => /^IC_[A-Z_]+=/.test(l))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );

describe('npm run deploy against npm run replica -- --empty', () => {
  const dir = mkdtempSync(join(tmpdir(), 'domdao-deploy-'));
  const out = join(dir, 'deployed.env');
  let r: RunningReplica;
  const deploy = (args: string[], env: Record<string, string | undefined> = r.env) =>
    run('scripts/deploy.ts', ['--out', out, ...args], env);
  /** Nothing made on the replica and no settings written. */
  const untouched = () => {
    assert.equal(r.replica.canisters.size + r.replica.empty.size, 0);
    assert.equal(existsSync(out), false);
  };

  before(async () => {
    r = await startReplica({ dir: join(dir, 'replica'), empty: true });
  });
  after(async () => {
    await r?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('decision W18: an --empty replica has no canister, and its ic.env names the host, the root key rule and a controller identity only', () => {
    assert.equal(r.empty, true);
    assert.equal(r.replica.canisters.size, 0);
    const env = settings(join(r.dir, 'ic.env'));
    assert.deepEqual(Object.keys(env).sort(), ['IC_FETCH_ROOT_KEY', 'IC_HOST', 'IC_IDENTITY_PEM_FILE']);
    assert.equal(env.IC_FETCH_ROOT_KEY, 'true');
  });

  it('decision W19: the mainnet without --allow-mainnet, a network without a ledger wasm, a missing or mismatched ledger wasm: one sentence each, nothing changed', async () => {
    const network = { ...r.env, IC_HOST: 'https://testnet.example.invalid', IC_FETCH_ROOT_KEY: 'false' };
    const wasm = join(dir, 'ic-icrc1-ledger.wasm.gz');
    writeFileSync(wasm, 'not the release');
    const cases: Array<[string[], Record<string, string>, RegExp]> = [
      [
        [],
        { ...r.env, IC_HOST: 'https://icp-api.io', IC_FETCH_ROOT_KEY: 'false' },
        /^deploy: IC_HOST=https:\/\/icp-api\.io is the IC mainnet: deploying there needs --allow-mainnet, given on purpose\n$/,
      ],
      [
        [],
        network,
        /^deploy: IC_HOST=https:\/\/testnet\.example\.invalid is not a local replica: the DOM ledger there is DFINITY's ledger wasm \(decision L1\), given with --ledger-wasm FILE --ledger-wasm-sha256 HEX\n$/,
      ],
      [
        ['--ledger-wasm', join(dir, 'absent.wasm.gz'), '--ledger-wasm-sha256', 'a'.repeat(64)],
        network,
        /^deploy: the ledger wasm \S+absent\.wasm\.gz does not exist\n$/,
      ],
      [
        ['--ledger-wasm', wasm, '--ledger-wasm-sha256', 'a'.repeat(64)],
        network,
        /^deploy: the ledger wasm \S+ has SHA-256 [0-9a-f]{64}, not the a{64} given: it is not the release you meant\n$/,
      ],
    ];
    for (const [args, env, message] of cases) {
      const res = await deploy(args, env);
      assert.equal(res.code, 2, res.err);
      assert.match(res.err, message);
      untouched();
    }
  });

  it('decisions W19, W20: deploy onto the empty replica writes the six ids; the bridge in IC mode passes npm run journey with them; a second run keeps the ids and the state; a changed module is upgraded', async () => {
    const first = await deploy([]);
    assert.equal(first.code, 0, first.err + first.out);
    const env = settings(out);
    for (const v of ID_VARS) assert.match(env[v] ?? '', /^[a-z0-9]{5}(-[a-z0-9]{5})*-cai$/, v);
    assert.equal(new Set(ID_VARS.map((v) => env[v])).size, 6);
    assert.deepEqual(
      [env.IC_HOST, env.IC_FETCH_ROOT_KEY, env.IC_IDENTITY_PEM_FILE],
      [r.env.IC_HOST, 'true', r.env.IC_IDENTITY_PEM_FILE],
    );

    // The bridge in IC mode with nothing but the deploy's settings, and the member journey through it.
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const h = await bridge(undefined, {
      ...env,
      BOOTSTRAP_ADMIN_EMAILS: `${ADMIN_EMAIL},${DEV_ADMIN_EMAIL}`,
      DEV_OUTBOX_FILE: join(dir, 'dev-outbox.jsonl'),
      PUBLIC_URL: url,
      COOKIE_DOMAIN: '',
    });
    try {
      h.advance(Date.now() - h.now());
      await h.app.listen({ port, host: '127.0.0.1' });
      assert.equal(h.opened.canisters.mode, 'ic');
      await h.member(ADMIN_EMAIL);
      const journey = await run('scripts/journey.ts', [], {
        BRIDGE_URL: url,
        DEV_OUTBOX_FILE: join(dir, 'dev-outbox.jsonl'),
        PAYMENT_WEBHOOK_SECRET: WEBHOOK_SECRET,
      });
      assert.equal(journey.code, 0, journey.out + journey.err);
      assert.match(journey.out, /the member's session now shows membership Active/);
    } finally {
      await h.close();
    }

    // State to keep: DOM sent from the deploying identity (funded on a local replica, W16) to a holder.
    const { clients } = await icClientsFromEnv(env);
    const holder = Principal.selfAuthenticating(
      new Uint8Array(generateKeyPairSync('ed25519').publicKey.export({ format: 'der', type: 'spki' })),
    ).toText();
    assert.ok('Ok' in (await clients.ledger.icrc1_transfer({ to: { owner: holder }, amount: 7n * E8S })));
    const ledger = r.replica.canister(env.IC_LEDGER_CANISTER_ID!);
    const version = ledger.version;

    const again = await deploy([]);
    assert.equal(again.code, 0, again.err + again.out);
    assert.equal((again.out.match(/: unchanged \(module [0-9a-f]{64}\)/g) ?? []).length, 6, again.out);
    assert.deepEqual(settings(out), env);
    assert.equal(r.replica.canister(env.IC_LEDGER_CANISTER_ID!).version, version);

    // A new ledger build (here: the same code with one more custom section) is upgraded in place.
    const wasmDir = join(dir, 'wasm');
    mkdirSync(wasmDir);
    for (const name of ['governance', 'membership', 'user', 'campaign', 'treasury'])
      symlinkSync(join(ROOT, '.azle', name), join(wasmDir, name), 'dir');
    const ledgerDir = join(wasmDir, 'ledger_embedded');
    mkdirSync(ledgerDir, { recursive: true });
    copyFileSync(
      join(ROOT, '.azle', 'ledger_embedded', 'ledger_embedded.wasm'),
      join(ledgerDir, 'ledger_embedded.wasm'),
    );
    const name = Buffer.from('icp:public domdao:build');
    const payload = Buffer.from('upgrade test');
    writeFileSync(
      join(ledgerDir, 'ledger_embedded.wasm'),
      Buffer.from([0, name.length + 1 + payload.length, name.length]),
      { flag: 'a' },
    );
    writeFileSync(join(ledgerDir, 'ledger_embedded.wasm'), Buffer.concat([name, payload]), { flag: 'a' });
    const upgraded = await deploy(['--wasm-dir', wasmDir]);
    assert.equal(upgraded.code, 0, upgraded.err + upgraded.out);
    assert.match(upgraded.out, new RegExp(`ledger ${env.IC_LEDGER_CANISTER_ID}: upgraded`));
    assert.equal((upgraded.out.match(/: unchanged/g) ?? []).length, 5, upgraded.out);
    assert.deepEqual(settings(out), env);
    assert.equal(r.replica.canister(env.IC_LEDGER_CANISTER_ID!).version, version + 1n);
    assert.equal(await clients.ledger.icrc1_balance_of({ owner: holder }), 7n * E8S);
  });

  it('decision W18: an identity that is not a controller is refused by the management canister; deploy says so in one sentence and changes nothing', async () => {
    const env = settings(out);
    const stranger = join(dir, 'stranger.pem');
    writeFileSync(stranger, generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }), {
      mode: 0o600,
    });
    const ledger = r.replica.canister(env.IC_LEDGER_CANISTER_ID!);
    const [version, controllers] = [ledger.version, [...ledger.controllers]];
    const res = await deploy([], { ...r.env, IC_IDENTITY_PEM_FILE: stranger });
    assert.equal(res.code, 2, res.err + res.out);
    assert.match(
      res.err,
      /^deploy: the identity \S+ \(IC_IDENTITY_PEM_FILE\) is not a controller of the ledger canister \S+: deploy with one of its controllers\n$/,
    );
    assert.deepEqual([ledger.version, ledger.controllers], [version, controllers]);
    assert.deepEqual(settings(out), env);
  });
});
