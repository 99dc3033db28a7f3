// `npm run deploy -- --out FILE` (decisions W19, W20, R34, R35, L46): installs or upgrades the six canisters on
// an IC network through the management canister, with @icp-sdk/core's agent and the management
// canister's Candid (platform/canisters/src/management.ts), from the built wasm (`npm run build:canisters`)
// and the init arguments the platform needs: IC_IDENTITY_PEM_FILE's principal (or --bridge-principal)
// as admin, registrar and trusted proposer; the ledger's minting account (governance) and fee; the
// controllers (the identity and every --controller). It reads IC_HOST, IC_IDENTITY_PEM_FILE and
// IC_FETCH_ROOT_KEY, and writes every IC_* setting the bridge needs to FILE. The ids it made are kept in
// FILE: a second run with the same FILE upgrades what changed and leaves the rest. Every refusal is one
// sentence, given before anything is changed.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { Actor, HttpAgent } from '@icp-sdk/core/agent';
import { IDL } from '@icp-sdk/core/candid';
import { Principal } from '@icp-sdk/core/principal';
import type { CanisterIds, CanisterName } from '@domdao/canisters';
import { identityFromPem } from '@domdao/canisters/ic';
import { MANAGEMENT_CANISTER_ID, managementIdl, type ManagementService } from '@domdao/canisters/management';
import { canisterIdsEnv, canisterInitArgs, INITIAL_DOM } from '@domdao/replica';

const ROOT = join(import.meta.dirname, '..');
const E8S = 100_000_000n;
/** Decision L1: the DOM ledger's fee (10 000 e8s), as dfx.json's init argument and docs/reference/ledger.md give it. */
const TRANSFER_FEE = 10_000n;
/** Decision W19: the IC's mainnet API hosts; a deployment there needs --allow-mainnet. */
const MAINNET_HOSTS = ['ic0.app', 'icp0.io', 'icp-api.io'];
/** The build's output per canister (the project's ledger build is `ledger_embedded`, decision L9). */
const BUILD_NAME: Record<CanisterName, string> = {
  governance: 'governance',
  membership: 'membership',
  user: 'user',
  campaign: 'campaign',
  treasury: 'treasury',
  ledger: 'ledger_embedded',
};
const ID_VAR: Record<CanisterName, string> = {
  governance: 'IC_GOVERNANCE_CANISTER_ID',
  membership: 'IC_MEMBERSHIP_CANISTER_ID',
  user: 'IC_USER_CANISTER_ID',
  campaign: 'IC_CAMPAIGN_CANISTER_ID',
  treasury: 'IC_TREASURY_CANISTER_ID',
  ledger: 'IC_LEDGER_CANISTER_ID',
};
/** The ledger is installed first (the others name it), then the order the replica uses. */
const ORDER: CanisterName[] = ['ledger', 'membership', 'governance', 'user', 'campaign', 'treasury'];

/** Bad input: one sentence, and nothing has been changed. */
class Refusal extends Error {}

const USAGE =
  'usage: npm run deploy -- --out FILE [--ledger-wasm FILE --ledger-wasm-sha256 HEX] [--bridge-principal P] [--controller P]... [--wasm-dir DIR] [--allow-mainnet]';

interface Options {
  out: string;
  ledgerWasm?: string;
  ledgerSha256?: string;
  bridgePrincipal?: string;
  controllers: string[];
  wasmDir: string;
  allowMainnet: boolean;
}

function parseArgs(argv: string[]): Options {
  const o: Options = { out: '', controllers: [], wasmDir: join(ROOT, '.azle'), allowMainnet: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const value = () => {
      const v = argv[++i];
      if (v === undefined || v.startsWith('--')) throw new Refusal(`${a} needs a value (${USAGE})`);
      return v;
    };
    if (a === '--out') o.out = value();
    else if (a === '--ledger-wasm') o.ledgerWasm = value();
    else if (a === '--ledger-wasm-sha256') o.ledgerSha256 = value().toLowerCase();
    else if (a === '--bridge-principal') o.bridgePrincipal = principal(value(), '--bridge-principal');
    else if (a === '--controller') o.controllers.push(principal(value(), '--controller'));
    else if (a === '--wasm-dir') o.wasmDir = value();
    else if (a === '--allow-mainnet') o.allowMainnet = true;
    else throw new Refusal(`unknown option ${a} (${USAGE})`);
  }
  if (!o.out)
    throw new Refusal(
      `--out FILE is required: the file the IC_* settings (and the canister ids kept between runs) are written to (${USAGE})`,
    );
  if (o.ledgerSha256 !== undefined && !/^[0-9a-f]{64}$/.test(o.ledgerSha256))
    throw new Refusal(`--ledger-wasm-sha256 ${o.ledgerSha256} is not a SHA-256 in hex (64 hex digits)`);
  if ((o.ledgerWasm === undefined) !== (o.ledgerSha256 === undefined))
    throw new Refusal(
      '--ledger-wasm and --ledger-wasm-sha256 go together: the ledger wasm you provide is checked against the hash you expect',
    );
  return o;
}

function principal(text: string, what: string): string {
  try {
    return Principal.fromText(text).toText();
  } catch {
    throw new Refusal(`${what} ${text} is not a principal`);
  }
}

function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '');
  if (h === 'localhost') return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  return h === '::1';
}

/** The IC_* lines of a settings file (KEY=VALUE, # comments). */
function readSettings(file: string): Record<string, string> {
  if (!existsSync(file)) return {};
  const out: Record<string, string> = {};
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const m = /^\s*(IC_[A-Z_]+)=(.*)$/.exec(line);
    if (m) out[m[1]!] = m[2]!.trim();
  }
  return out;
}

function writeSettings(file: string, env: Record<string, string>): void {
  mkdirSync(dirname(file), { recursive: true });
  const lines = [
    '# Written by `npm run deploy`: the IC_* settings of the bridge for this deployment. The canister ids are',
    '# kept here between runs (a second `npm run deploy -- --out` this file upgrades the same canisters).',
    ...Object.entries(env).map(([k, v]) => `${k}=${v}`),
  ];
  writeFileSync(file, `${lines.join('\n')}\n`, { mode: 0o600 });
}

const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const hex = (b: Uint8Array | number[]) => Buffer.from(b).toString('hex');

/** Decision L46: DFINITY's ledger init argument (dfx.json's `ledger.init_arg`, with this deployment's ids). */
function dfinityLedgerArg(ids: CanisterIds, upgrade: boolean): Uint8Array {
  const Account = IDL.Record({ owner: IDL.Principal, subaccount: IDL.Opt(IDL.Vec(IDL.Nat8)) });
  const MetadataValue = IDL.Variant({ Nat: IDL.Nat, Int: IDL.Int, Text: IDL.Text, Blob: IDL.Vec(IDL.Nat8) });
  const InitArgs = IDL.Record({
    token_symbol: IDL.Text,
    token_name: IDL.Text,
    decimals: IDL.Opt(IDL.Nat8),
    transfer_fee: IDL.Nat,
    minting_account: Account,
    initial_balances: IDL.Vec(IDL.Tuple(Account, IDL.Nat)),
    metadata: IDL.Vec(IDL.Tuple(IDL.Text, MetadataValue)),
    feature_flags: IDL.Opt(IDL.Record({ icrc2: IDL.Bool })),
    archive_options: IDL.Record({
      num_blocks_to_archive: IDL.Nat64,
      trigger_threshold: IDL.Nat64,
      controller_id: IDL.Principal,
      cycles_for_archive_creation: IDL.Opt(IDL.Nat64),
    }),
  });
  const LedgerArg = IDL.Variant({ Init: InitArgs, Upgrade: IDL.Opt(IDL.Record({})) });
  if (upgrade) return new Uint8Array(IDL.encode([LedgerArg], [{ Upgrade: [] }]));
  const governance = Principal.fromText(ids.governance);
  return new Uint8Array(
    IDL.encode(
      [LedgerArg],
      [
        {
          Init: {
            token_symbol: 'DOM',
            token_name: 'DOM',
            decimals: [8],
            transfer_fee: TRANSFER_FEE,
            minting_account: { owner: governance, subaccount: [] },
            initial_balances: [[{ owner: Principal.fromText(ids.treasury), subaccount: [] }, INITIAL_DOM * E8S]],
            metadata: [],
            feature_flags: [{ icrc2: true }],
            archive_options: {
              num_blocks_to_archive: 1_000n,
              trigger_threshold: 2_000n,
              controller_id: governance,
              cycles_for_archive_creation: [10_000_000_000_000n],
            },
          },
        },
      ],
    ),
  );
}

async function deploy(argv: string[], env: NodeJS.ProcessEnv, say: (line: string) => void): Promise<void> {
  const o = parseArgs(argv);
  const hostText = env.IC_HOST;
  if (!hostText) throw new Refusal('IC_HOST is not set: set it to the IC network (or the replica) to deploy to');
  let host: URL;
  try {
    host = new URL(hostText);
  } catch {
    throw new Refusal(`IC_HOST=${hostText} is not a URL`);
  }
  const pemFile = env.IC_IDENTITY_PEM_FILE;
  if (!pemFile)
    throw new Refusal(
      'IC_IDENTITY_PEM_FILE is not set: the deploying identity (a controller of the canisters) signs every call',
    );
  if (!existsSync(pemFile)) throw new Refusal(`IC_IDENTITY_PEM_FILE=${pemFile} does not exist`);
  const fetchRootKey = env.IC_FETCH_ROOT_KEY === 'true';
  if (env.IC_FETCH_ROOT_KEY !== undefined && !['true', 'false', ''].includes(env.IC_FETCH_ROOT_KEY))
    throw new Refusal(`IC_FETCH_ROOT_KEY=${env.IC_FETCH_ROOT_KEY} is neither true nor false`);
  const hostname = host.hostname.toLowerCase();
  const mainnet = MAINNET_HOSTS.some((h) => hostname === h || hostname.endsWith(`.${h}`));
  if (mainnet && !o.allowMainnet)
    throw new Refusal(`IC_HOST=${hostText} is the IC mainnet: deploying there needs --allow-mainnet, given on purpose`);
  if (mainnet && fetchRootKey)
    throw new Refusal('IC_FETCH_ROOT_KEY=true on the IC mainnet would trust any root key: unset it');
  // Decision W19: only a replica on this machine whose root key is fetched is local; there the
  // project's ledger build stands in for DFINITY's ledger and canisters are created provisionally.
  const local = fetchRootKey && isLoopback(hostname);
  let identity;
  try {
    identity = identityFromPem(readFileSync(pemFile, 'utf8'));
  } catch (e) {
    throw new Refusal(`IC_IDENTITY_PEM_FILE=${pemFile} holds no usable key: ${(e as Error).message}`);
  }
  const me = identity.getPrincipal().toText();
  const bridge = o.bridgePrincipal ?? me;
  const controllers = [...new Set([me, ...o.controllers])];

  // The modules, all read and checked before anything is changed.
  const dfinityLedger = o.ledgerWasm !== undefined;
  if (!local && !dfinityLedger)
    throw new Refusal(
      `IC_HOST=${hostText} is not a local replica: the DOM ledger there is DFINITY's ledger wasm (decision L1), given with --ledger-wasm FILE --ledger-wasm-sha256 HEX`,
    );
  const modules = {} as Record<CanisterName, { raw: Uint8Array; sent: Uint8Array }>;
  for (const name of ORDER) {
    if (name === 'ledger' && dfinityLedger) {
      if (!existsSync(o.ledgerWasm!)) throw new Refusal(`the ledger wasm ${o.ledgerWasm} does not exist`);
      const bytes = new Uint8Array(readFileSync(o.ledgerWasm!));
      if (sha256(bytes) !== o.ledgerSha256)
        throw new Refusal(
          `the ledger wasm ${o.ledgerWasm} has SHA-256 ${sha256(bytes)}, not the ${o.ledgerSha256} given: it is not the release you meant`,
        );
      modules[name] = { raw: bytes, sent: bytes };
      continue;
    }
    const file = join(o.wasmDir, BUILD_NAME[name], `${BUILD_NAME[name]}.wasm`);
    if (!existsSync(file)) throw new Refusal(`${file} is missing: run \`npm run build:canisters\` first`);
    const raw = new Uint8Array(readFileSync(file));
    // Gzipped, an Azle module (3.6 MB) fits the IC's 2 MiB ingress limit; the IC unpacks it.
    modules[name] = { raw, sent: new Uint8Array(gzipSync(raw, { level: 9 })) };
  }

  const out = resolve(o.out);
  const kept = readSettings(out);
  const known = Object.fromEntries(
    ORDER.filter((n) => kept[ID_VAR[n]]).map((n) => [n, principal(kept[ID_VAR[n]]!, `${ID_VAR[n]} in ${out}`)]),
  ) as Partial<CanisterIds>;
  if (kept.IC_HOST && kept.IC_HOST !== hostText)
    throw new Refusal(
      `${out} holds the canister ids of IC_HOST=${kept.IC_HOST}, not ${hostText}: give another --out file for another network`,
    );
  const missing = ORDER.filter((n) => !known[n]);
  if (!local && missing.length > 0)
    throw new Refusal(
      `${out} names no ${missing.map((n) => ID_VAR[n]).join(', ')}: on an IC network create the canisters with cycles first (e.g. \`icp canister create\`) and put their ids there; npm run deploy installs and upgrades them`,
    );

  const agent = await HttpAgent.create({ host: hostText, identity, shouldFetchRootKey: fetchRootKey });
  const management = (effective: string) =>
    Actor.createActor<ManagementService>(managementIdl, {
      agent,
      canisterId: MANAGEMENT_CANISTER_ID,
      effectiveCanisterId: Principal.fromText(effective),
    });
  const refuseReject = (name: CanisterName, id: string, e: unknown): never => {
    const message = (e as Error).message;
    if (/IC0512|Only the controllers/.test(message))
      throw new Refusal(
        `the identity ${me} (IC_IDENTITY_PEM_FILE) is not a controller of the ${name} canister ${id}: deploy with one of its controllers`,
      );
    if (/IC0301|not found/i.test(message))
      throw new Refusal(`the ${name} canister ${id} (in ${out}) does not exist on ${hostText}`);
    throw e;
  };
  // Every canister already made is checked first: a non-controller identity changes nothing.
  const status = new Map<CanisterName, { moduleHash?: string; controllers: string[] }>();
  for (const name of ORDER.filter((n) => known[n])) {
    const id = known[name]!;
    const s = await management(id)
      .canister_status({ canister_id: Principal.fromText(id) })
      .catch((e: unknown) => refuseReject(name, id, e));
    status.set(name, {
      moduleHash: s.module_hash[0] ? hex(s.module_hash[0]) : undefined,
      controllers: s.settings.controllers.map((p) => p.toText()),
    });
  }

  for (const name of missing) {
    const made = await management(MANAGEMENT_CANISTER_ID).provisional_create_canister_with_cycles({
      amount: [],
      settings: [
        {
          controllers: [controllers.map((p) => Principal.fromText(p))],
          compute_allocation: [],
          memory_allocation: [],
          freezing_threshold: [],
        },
      ],
      specified_id: [],
      sender_canister_version: [],
    });
    known[name] = made.canister_id.toText();
    status.set(name, { controllers });
    say(`created ${name}: ${known[name]}`);
    // Kept at once: a run stopped half-way goes on with the same ids next time.
    writeSettings(out, {
      IC_HOST: hostText,
      IC_FETCH_ROOT_KEY: String(fetchRootKey),
      IC_IDENTITY_PEM_FILE: resolve(pemFile),
      ...partialIds(known),
    });
  }
  const ids = known as CanisterIds;
  const args = canisterInitArgs(ids, {
    admins: [bridge],
    registrars: [bridge],
    transferFee: TRANSFER_FEE,
    // The treasury's first DOM (dfx.json's init argument); on a local replica the deploying identity's too, as `npm run
    // replica` gives it (W16).
    initialBalances: [
      [ids.treasury, INITIAL_DOM * E8S],
      ...(local ? ([[me, INITIAL_DOM * E8S]] as Array<[string, bigint]>) : []),
    ],
  });

  for (const name of ORDER) {
    const id = ids[name];
    const s = status.get(name)!;
    const m = modules[name];
    const mc = management(id);
    const wanted = [...controllers].sort();
    if (!wanted.every((c) => s.controllers.includes(c))) {
      await mc.update_settings({
        canister_id: Principal.fromText(id),
        settings: {
          controllers: [[...new Set([...s.controllers, ...wanted])].map((p) => Principal.fromText(p))],
          compute_allocation: [],
          memory_allocation: [],
          freezing_threshold: [],
        },
        sender_canister_version: [],
      });
      say(`${name}: controllers ${wanted.join(', ')} added`);
    }
    const upgrade = s.moduleHash !== undefined;
    if (upgrade && (s.moduleHash === sha256(m.raw) || s.moduleHash === sha256(m.sent))) {
      say(`${name} ${id}: unchanged (module ${s.moduleHash})`);
      continue;
    }
    const arg = name === 'ledger' && dfinityLedger ? dfinityLedgerArg(ids, upgrade) : args[name]();
    await mc.install_code({
      mode: upgrade ? { upgrade: [] } : { install: null },
      canister_id: Principal.fromText(id),
      wasm_module: m.sent,
      arg,
      sender_canister_version: [],
    });
    say(`${name} ${id}: ${upgrade ? 'upgraded' : 'installed'} (module ${sha256(m.raw)})`);
  }
  writeSettings(out, {
    IC_HOST: hostText,
    IC_FETCH_ROOT_KEY: String(fetchRootKey),
    IC_IDENTITY_PEM_FILE: resolve(pemFile),
    ...canisterIdsEnv(ids),
  });
  say(`wrote the bridge's IC_* settings to ${out} (set -a && . ${out} && set +a && npm start)`);
}

function partialIds(ids: Partial<CanisterIds>): Record<string, string> {
  return Object.fromEntries(ORDER.filter((n) => ids[n]).map((n) => [ID_VAR[n], ids[n]!]));
}

try {
  await deploy(process.argv.slice(2), process.env, (line) => console.log(line));
} catch (e) {
  if (e instanceof Refusal) {
    console.error(`deploy: ${e.message}`);
    process.exit(2);
  }
  // The agent's errors carry the request's details over many lines; the reject's own text says what happened.
  const message = (e as Error).message;
  console.error(`deploy: failed: ${/Reject text: (.*)/.exec(message)?.[1] ?? message}`);
  process.exit(1);
}
