// `npm run backup -- --ic take|list|restore` (decisions W26, W27): the six canisters on an IC network
// backed up and restored with the management canister's canister snapshots, through @icp-sdk/core's
// agent and the management canister's Candid (the deploy tool's library, R34). It reads IC_HOST,
// IC_IDENTITY_PEM_FILE (a controller), IC_FETCH_ROOT_KEY and the six IC_*_CANISTER_ID settings (the file
// `npm run deploy -- --out FILE` wrote). A set is taken and loaded with all six canisters stopped, so no
// call between them is half-way; they are started again afterwards whatever happened. Every refusal is
// one sentence, given before any canister is stopped.
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Actor, HttpAgent, type Identity } from '@icp-sdk/core/agent';
import { Principal } from '@icp-sdk/core/principal';
import type { CanisterIds, CanisterName } from '@domdao/canisters';
import { icCanisterIds, IcEnv, identityFromPem, type IcConfig } from '@domdao/canisters/ic';
import {
  MANAGEMENT_CANISTER_ID,
  managementIdl,
  type CanisterSnapshotInfo,
  type ManagementService,
} from '@domdao/canisters/management';
import { loadConfig } from '@domdao/config';
import { Refusal } from './refusal.ts';

const NAMES: CanisterName[] = ['ledger', 'membership', 'governance', 'user', 'campaign', 'treasury'];
/** The IC's limit of snapshots per canister (decision W26). */
const MAX_SNAPSHOTS = 10;
const USAGE =
  'usage: npm run backup -- --ic take [--out FILE] [--replace-oldest] | --ic list | --ic restore [--from FILE]';

/** What `take --out FILE` writes and `restore --from FILE` reads: one snapshot id per canister. */
interface SnapshotSet {
  format: 'domdao-canister-snapshots';
  version: 1;
  ic_host: string;
  taken_at: string;
  canisters: Record<CanisterName, { canister_id: string; snapshot_id: string }>;
}

function settings(env: NodeJS.ProcessEnv): IcConfig {
  try {
    return loadConfig(IcEnv, env);
  } catch (e) {
    throw new Refusal(
      `the IC_* settings are incomplete (${(e as Error).message.replace(/\n/g, '; ')}): source the file \`npm run deploy -- --out FILE\` wrote`,
    );
  }
}

function identityOf(file: string): Identity {
  try {
    return identityFromPem(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new Refusal(`IC_IDENTITY_PEM_FILE ${file} is not a usable identity: ${(e as Error).message}`);
  }
}

const hex = (b: Uint8Array | number[]) => Buffer.from(b).toString('hex');
const when = (ns: bigint) => new Date(Number(ns / 1_000_000n)).toISOString();

export async function icBackup(argv: string[], env: NodeJS.ProcessEnv, say: (line: string) => void): Promise<void> {
  const [command, ...rest] = argv;
  const opts = { out: undefined as string | undefined, from: undefined as string | undefined, replaceOldest: false };
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i]!;
    const value = () => {
      const v = rest[++i];
      if (v === undefined || v.startsWith('--')) throw new Refusal(`${a} needs a value (${USAGE})`);
      return v;
    };
    if (a === '--out' && command === 'take') opts.out = resolve(value());
    else if (a === '--replace-oldest' && command === 'take') opts.replaceOldest = true;
    else if (a === '--from' && command === 'restore') opts.from = resolve(value());
    else throw new Refusal(`unknown option ${a} (${USAGE})`);
  }
  if (command !== 'take' && command !== 'list' && command !== 'restore')
    throw new Refusal(`--ic needs take, list or restore (${USAGE})`);
  const config = settings(env);
  const ids: CanisterIds = icCanisterIds(config);
  const identity = identityOf(config.IC_IDENTITY_PEM_FILE);
  const me = identity.getPrincipal().toText();
  const agent = await HttpAgent.create({
    host: config.IC_HOST,
    identity,
    shouldFetchRootKey: config.IC_FETCH_ROOT_KEY,
  });
  const management = (id: string) =>
    Actor.createActor<ManagementService>(managementIdl, {
      agent,
      canisterId: MANAGEMENT_CANISTER_ID,
      effectiveCanisterId: Principal.fromText(id),
    });
  const p = (id: string) => Principal.fromText(id);

  // Every canister's snapshots first: it also checks the identity controls each (nothing is stopped yet).
  const listed = new Map<CanisterName, CanisterSnapshotInfo[]>();
  for (const name of NAMES) {
    const id = ids[name];
    try {
      listed.set(name, await management(id).list_canister_snapshots({ canister_id: p(id) }));
    } catch (e) {
      const message = (e as Error).message;
      if (/IC0512|Only the controllers/.test(message))
        throw new Refusal(
          `the identity ${me} (IC_IDENTITY_PEM_FILE) is not a controller of the ${name} canister ${id}: snapshots are for its controllers only`,
        );
      if (/IC0301|not found/i.test(message))
        throw new Refusal(`the ${name} canister ${id} does not exist on ${config.IC_HOST}`);
      if (/no management method|IC0536|list_canister_snapshots/.test(message))
        throw new Refusal(
          `${config.IC_HOST} offers no canister snapshots: back up with \`npm run migrate\`'s export instead (docs/operations/backup-and-restore.md)`,
        );
      throw e;
    }
  }

  if (command === 'list') {
    for (const name of NAMES) {
      const snaps = listed.get(name)!;
      say(`${name} ${ids[name]}: ${snaps.length === 0 ? 'no snapshot' : `${snaps.length} snapshot(s)`}`);
      for (const s of snaps) say(`  ${hex(s.id)}  taken ${when(s.taken_at_timestamp)}  ${s.total_size} bytes`);
    }
    return;
  }

  let chosen: Map<CanisterName, string> | undefined;
  if (command === 'restore') {
    chosen = new Map();
    let set: SnapshotSet | undefined;
    if (opts.from) {
      try {
        set = JSON.parse(readFileSync(opts.from, 'utf8')) as SnapshotSet;
      } catch (e) {
        throw new Refusal(
          `${opts.from} is not a snapshot set written by \`npm run backup -- --ic take --out\` (${(e as Error).message})`,
        );
      }
      if (set?.format !== 'domdao-canister-snapshots' || set.version !== 1)
        throw new Refusal(`${opts.from} is not a snapshot set written by \`npm run backup -- --ic take --out\``);
    }
    for (const name of NAMES) {
      const snaps = listed.get(name)!;
      const want = set ? set.canisters[name] : undefined;
      if (set && want?.canister_id !== ids[name])
        throw new Refusal(
          `${opts.from} was taken of another ${name} canister (${want?.canister_id ?? 'none'}), not ${ids[name]}: restore with the IC_* settings of that deployment`,
        );
      const pick = want
        ? snaps.find((s) => hex(s.id) === want.snapshot_id)
        : [...snaps].sort((a, b) => (a.taken_at_timestamp < b.taken_at_timestamp ? 1 : -1))[0];
      if (!pick)
        throw new Refusal(
          want
            ? `the ${name} canister ${ids[name]} has no snapshot ${want.snapshot_id} any more: nothing was restored`
            : `the ${name} canister ${ids[name]} has no snapshot: nothing was restored (take one with \`npm run backup -- --ic take\`)`,
        );
      chosen.set(name, hex(pick.id));
    }
  } else {
    const full = NAMES.filter((n) => listed.get(n)!.length >= MAX_SNAPSHOTS);
    if (full.length > 0 && !opts.replaceOldest)
      throw new Refusal(
        `${full.join(', ')} already keep${full.length === 1 ? 's' : ''} ${MAX_SNAPSHOTS} snapshots (the IC's limit): give --replace-oldest, or delete one first`,
      );
  }

  // Decision W27: all six stopped, then each taken or loaded, then all started again (also after a failure).
  for (const name of NAMES) await management(ids[name]).stop_canister({ canister_id: p(ids[name]) });
  say(`stopped the six canisters`);
  try {
    if (command === 'restore') {
      for (const name of NAMES) {
        await management(ids[name]).load_canister_snapshot({
          canister_id: p(ids[name]),
          snapshot_id: Uint8Array.from(Buffer.from(chosen!.get(name)!, 'hex')),
          sender_canister_version: [],
        });
        say(`${name} ${ids[name]}: snapshot ${chosen!.get(name)} loaded`);
      }
    } else {
      const taken = {} as SnapshotSet['canisters'];
      for (const name of NAMES) {
        const snaps = listed.get(name)!;
        const oldest = [...snaps].sort((a, b) => (a.taken_at_timestamp < b.taken_at_timestamp ? -1 : 1))[0];
        const replace: [] | [Uint8Array] = snaps.length >= MAX_SNAPSHOTS && oldest ? [Uint8Array.from(oldest.id)] : [];
        const s = await management(ids[name]).take_canister_snapshot({
          canister_id: p(ids[name]),
          replace_snapshot: replace,
          uninstall_code: [],
          sender_canister_version: [],
        });
        taken[name] = { canister_id: ids[name], snapshot_id: hex(s.id) };
        say(`${name} ${ids[name]}: snapshot ${hex(s.id)} taken (${s.total_size} bytes)`);
      }
      if (opts.out) {
        const set: SnapshotSet = {
          format: 'domdao-canister-snapshots',
          version: 1,
          ic_host: config.IC_HOST,
          taken_at: new Date().toISOString(),
          canisters: taken,
        };
        writeFileSync(opts.out, `${JSON.stringify(set, null, 2)}\n`, { mode: 0o600 });
        say(`wrote the snapshot set to ${opts.out} (npm run backup -- --ic restore --from ${opts.out})`);
      }
    }
  } finally {
    for (const name of NAMES) await management(ids[name]).start_canister({ canister_id: p(ids[name]) });
    say(`started the six canisters`);
  }
}
