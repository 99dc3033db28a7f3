// Decisions W13–W16: the test replica over the IC's HTTP interface, as `npm run replica` runs it. On a new
// REPLICA_DIR it makes the subnet's and the node's keys and an identity (W16), installs the six
// canisters with that identity as their controller, admin, registrar and trusted proposer, and writes
// `ic.env`; on a directory it has run in before it restores the canisters (W14). Every update call and
// every timer firing is a round, one at a time: the canisters' clock is set (W15), the messages run, the
// round is journaled and synced, then its callers are answered.
import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  randomBytes,
  type KeyObject,
} from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { Principal } from '@icp-sdk/core/principal';
import { DirectoryLockedError, lockDirectory } from '@domdao/canister-kit/embedded';
import { EMBEDDED_CANISTER_IDS, type CanisterIds } from '@domdao/canisters';
import { deployWasm } from './deploy.ts';
import { TestSubnetKey, WasmReplica, type Result } from './host/index.ts';
import { sectionsOf, readU32 } from './host/wasm-binary.ts';
import { icHttpInterface, type ReplicaBackend } from './http/interface.ts';
import type { CallStatus, CanisterFacts, StateView } from './http/read-state.ts';
import { hashTree } from './http/state-tree.ts';
import { ReplicaStore, RoundTracker, JOURNAL_MAX, type RoundRecord } from './persist.ts';
import { icEnv, isLoopback, writeIcEnv } from './ic-env.ts';
import { SnapshotFiles } from './snapshot-files.ts';
import { CanisterChanges } from './canister-changes.ts';

const E8S = 100_000_000n;
/** The ledger's first distribution on a new replica (decision W16): the treasury's, as `npm start` gives it, and the identity's. */
export const INITIAL_DOM = 1_000_000n;
/** How often due canister timers are looked for. */
export const TICK_MS = 1_000;
/** How long a call's status is kept after its ingress_expiry (the IC keeps it at least that long). */
const STATUS_KEPT_NS = 5n * 60n * 1_000_000_000n;
/** The instruction counts and canister log lines kept in memory (the rest are dropped: the replica runs for days). */
const KEPT_ENTRIES = 1_000;

export class ReplicaConfigError extends Error {
  override name = 'ReplicaConfigError';
}

export interface ReplicaOptions {
  dir: string;
  host?: string;
  /** 0 (the default) takes a free port. */
  port?: number;
  /** Lines to show (canister logs, trapped timers). */
  log?: (line: string) => void;
  tickMs?: number;
  /** Tests only: a new REPLICA_DIR's ledger in archive mode (decision L43). */
  ledgerArchive?: { localBlocks: bigint };
  /**
   * Decision W18: a new REPLICA_DIR starts with no canister (`npm run replica -- --empty`); the deploy
   * tool creates and installs them through the management canister. A directory keeps what it was made as.
   */
  empty?: boolean;
}

export interface RunningReplica {
  url: string;
  port: number;
  dir: string;
  /** Whether this start installed the canisters (a new REPLICA_DIR). */
  installed: boolean;
  /** Whether the directory was made empty (decision W18): its canisters are whatever was deployed to it. */
  empty: boolean;
  ids: CanisterIds;
  /** The principal of `identity.pem`: the canisters' controller, admin, registrar and trusted proposer. */
  principal: string;
  env: Record<string, string>;
  replica: WasmReplica;
  /** Moves the canisters' clock forward (decision W15) and fires the timers that came due. */
  advance(ms: number): Promise<void>;
  /** Stops taking requests, writes a snapshot and releases the directory. */
  stop(): Promise<void>;
  /** Stops without a snapshot, as a crash would leave the directory (tests). */
  abandon(): Promise<void>;
}

/** The canister ids the replica's one subnet hosts, as a local replica's: the first 2^20 (the six installed are the first ones). */
const canisterId = (n: number) =>
  Principal.fromUint8Array(Uint8Array.from([0, 0, 0, 0, 0, (n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff, 1, 1]));
export const CANISTER_RANGE: [Principal, Principal] = [canisterId(0), canisterId(0xfffff)];

const wallNs = () => BigInt(Date.now()) * 1_000_000n;

interface Keys {
  subnetSeed: string;
  nodeKeyPem: string;
}

function keysOf(dir: string): Keys {
  const file = join(dir, 'keys.json');
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as Keys;
  const keys = {
    subnetSeed: randomBytes(32).toString('hex'),
    nodeKeyPem: generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
  };
  writeFileSync(file, JSON.stringify(keys), { mode: 0o600 });
  return keys;
}

function identityOf(dir: string): { file: string; principal: string } {
  const file = join(dir, 'identity.pem');
  if (!existsSync(file))
    writeFileSync(file, generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }), {
      mode: 0o600,
    });
  const der = createPublicKey(createPrivateKey(readFileSync(file))).export({ format: 'der', type: 'spki' });
  return { file, principal: Principal.selfAuthenticating(new Uint8Array(der)).toText() };
}

/** The module's custom sections named `icp:public <name>` / `icp:private <name>` (read_state's metadata). */
function metadataOf(wasm: Uint8Array): CanisterFacts['metadata'] {
  const out: CanisterFacts['metadata'] = new Map();
  for (const s of sectionsOf(wasm).filter((x) => x.id === 0)) {
    const [length, at] = readU32(wasm, s.body);
    const name = Buffer.from(wasm.subarray(at, at + length)).toString('utf8');
    const m = /^icp:(public|private) (.+)$/.exec(name);
    if (m) out.set(m[2]!, { public: m[1] === 'public', bytes: wasm.slice(at + length, s.end) });
  }
  return out;
}

export async function startReplica(options: ReplicaOptions): Promise<RunningReplica> {
  const host = options.host ?? '127.0.0.1';
  if (!isLoopback(host))
    throw new ReplicaConfigError(
      `REPLICA_HOST=${host} is not a loopback address: the test replica is a development tool and listens on 127.0.0.1 or ::1 only`,
    );
  const dir = resolve(options.dir);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  let lock: ReturnType<typeof lockDirectory>;
  try {
    lock = lockDirectory(dir);
  } catch (e) {
    if (e instanceof DirectoryLockedError)
      throw new ReplicaConfigError(
        `${dir} is in use by another replica (PID ${e.pid}); stop it first, or give this one a REPLICA_DIR of its own`,
      );
    throw e;
  }
  const log = options.log ?? (() => undefined);
  const keys = keysOf(dir);
  const subnetKey = new TestSubnetKey(keys.subnetSeed);
  const nodeKey: KeyObject = createPrivateKey(keys.nodeKeyPem);
  const nodePublicKey = new Uint8Array(createPublicKey(nodeKey).export({ format: 'der', type: 'spki' }));
  const identity = identityOf(dir);
  const replica = new WasmReplica({ subnetKey });
  const store = new ReplicaStore(dir);
  const calls = new Map<string, CallStatus>();
  let offsetNs = 0n;
  const files = new SnapshotFiles(dir, replica);
  const installs = new CanisterChanges(dir, replica);
  const opened = store.open();
  const emptyMarker = join(dir, 'empty');
  if (!opened && options.empty)
    writeFileSync(emptyMarker, 'made by npm run replica -- --empty: the canisters are what npm run deploy installed\n');
  const empty = existsSync(emptyMarker);
  if (opened) {
    replica.restore(files.fromDisk(opened.snapshot.image));
    files.restored();
    for (const [id, s] of opened.snapshot.calls) calls.set(id, s);
    offsetNs = opened.snapshot.offsetNs;
    for (const r of opened.records) {
      if (r.snapshots) files.replay(r.snapshots);
      if (r.installs) installs.replay(r.installs);
      for (const [id, patch] of r.canisters) replica.canister(id).patch(patch);
      for (const [id, s] of r.calls) calls.set(id, s);
      if (r.stopped) replica.stopped.clear();
      for (const id of r.stopped ?? []) replica.stopped.add(id);
      replica.time = r.time;
      offsetNs = r.offsetNs;
    }
  } else if (empty) replica.time = wallNs();
  else {
    replica.time = wallNs();
    const ids = EMBEDDED_CANISTER_IDS;
    await deployWasm(
      {
        admins: [identity.principal],
        registrars: [identity.principal],
        controller: identity.principal,
        fresh: true,
        ...(options.ledgerArchive && { ledgerArchive: options.ledgerArchive }),
        initialBalances: [
          [ids.treasury, INITIAL_DOM * E8S],
          [identity.principal, INITIAL_DOM * E8S],
        ],
      },
      replica,
    );
  }
  const snapshot = () => {
    const image = files.toDisk({ ...replica.image(), log: [], counts: [] });
    store.snapshot({
      image,
      calls: [...calls].filter(([, s]) => s.status === 'replied' || s.status === 'rejected'),
      offsetNs,
    });
    files.prune(image);
    installs.prune();
  };
  if (!opened) snapshot();
  installs.journaled();
  const tracker = new RoundTracker(replica);
  let logged = replica.log.length;

  // One round at a time (decision W14): the journal's records follow the order the rounds ran in.
  let queue: Promise<unknown> = Promise.resolve();
  const round = <T>(work: () => Promise<T>, answered: Array<[string, CallStatus]> = []): Promise<T> => {
    const run = async () => {
      replica.time = [replica.time + 1n, wallNs() + offsetNs].reduce((a, b) => (a > b ? a : b));
      const value = await work();
      const record: RoundRecord = {
        time: replica.time,
        offsetNs,
        canisters: tracker.collect(),
        calls: answered,
        stopped: [...replica.stopped],
      };
      // Decision W28: a snapshot's image is written to its own file here, before the record that names it.
      const snapshots = files.changes();
      if (snapshots) {
        record.snapshots = snapshots;
        for (const [id] of snapshots.loads) tracker.watch(replica.canister(id));
        installs.loaded(snapshots.loads.map(([id]) => id));
      }
      // Decision W34: a canister created, (re)installed or upgraded, or controllers changed (W18), journaled
      // whole (a new module's file first) in place of its pages; it was a whole state.bin before.
      const changed = installs.changes();
      if (changed) {
        record.installs = changed;
        const whole = new Set(changed.installed.map(([id]) => id));
        record.canisters = record.canisters.filter(([id]) => !whole.has(id));
        for (const id of whole) tracker.watch(replica.canister(id));
      }
      if (record.canisters.length > 0 || record.calls.length > 0 || snapshots || changed) store.append(record);
      if (store.journalBytes > JOURNAL_MAX) snapshot();
      for (const l of replica.log.slice(logged)) log(`canister ${l.canister}: ${l.message}`);
      if (replica.log.length > KEPT_ENTRIES) replica.log.splice(0, replica.log.length - KEPT_ENTRIES);
      if (replica.counts.length > KEPT_ENTRIES) replica.counts.splice(0, replica.counts.length - KEPT_ENTRIES);
      logged = replica.log.length;
      return value;
    };
    const next = queue.then(run, run);
    queue = next.catch(() => undefined);
    return next;
  };
  const running = new Map<string, Promise<CallStatus>>();
  const facts = new Map<string, CanisterFacts>();
  const view = (): StateView => {
    return {
      timeNs: wallNs(),
      subnetId: Principal.selfAuthenticating(subnetKey.rootKey),
      rootKey: subnetKey.rootKey,
      nodeId: Principal.selfAuthenticating(nodePublicKey),
      nodePublicKey,
      range: CANISTER_RANGE,
      call: (id) => calls.get(id),
      canister: (id) => {
        const c = replica.canisters.get(id);
        if (!c) return undefined;
        let f = facts.get(id);
        if (
          !f ||
          f.moduleHash.length === 0 ||
          !Buffer.from(f.moduleHash).equals(createHash('sha256').update(c.wasm).digest())
        ) {
          f = {
            moduleHash: new Uint8Array(createHash('sha256').update(c.wasm).digest()),
            controllers: [...c.controllers],
            metadata: metadataOf(c.wasm),
          };
          facts.set(id, f);
        }
        return f;
      },
    };
  };
  const backend: ReplicaBackend = {
    wallNs,
    rootKey: subnetKey.rootKey,
    nodeKey,
    view,
    certify: (tree) => subnetKey.sign(hashTree(tree)),
    query: (sender, canister, method, arg) => replica.query(sender, canister, method, arg),
    known: (id) => calls.get(id),
    running: (id) => running.get(id),
    call(id, a, ecid) {
      const target = Principal.fromUint8Array(a.content.canister_id as Uint8Array).toText();
      const base = { sender: a.sender, canister: ecid, expiry: a.expiry };
      calls.set(id, { ...base, status: 'processing' });
      const answered: Array<[string, CallStatus]> = [];
      const done = round(async () => {
        const r: Result = await replica.update(
          a.sender,
          target,
          a.content.method_name as string,
          a.content.arg as Uint8Array,
        );
        const status: CallStatus =
          'reply' in r
            ? { ...base, status: 'replied', reply: r.reply }
            : {
                ...base,
                status: 'rejected',
                reject_code: r.rejectCode,
                reject_message: r.rejectMessage,
                ...(r.errorCode && { error_code: r.errorCode }),
              };
        answered.push([id, status]);
        return status;
      }, answered).then(
        (status) => {
          calls.set(id, status);
          return status;
        },
        (e: unknown) => {
          calls.delete(id);
          throw e;
        },
      );
      running.set(id, done);
      void done.finally(() => running.delete(id)).catch(() => undefined);
      return done;
    },
  };
  const http = icHttpInterface(backend);
  await new Promise<void>((resolveListen, reject) => {
    http.server.once('error', reject);
    http.server.listen(options.port ?? 0, host, () => resolveListen());
  });
  const port = (http.server.address() as AddressInfo).port;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  const ids = { ...EMBEDDED_CANISTER_IDS };
  // An empty replica's ic.env names no canister: `npm run deploy -- --out FILE` writes the ids it made.
  const env = icEnv({ url, identityFile: identity.file, ids: empty ? undefined : ids });
  writeIcEnv(join(dir, 'ic.env'), env);
  const forget = () => {
    const now = wallNs();
    for (const [id, s] of calls) if (s.expiry + STATUS_KEPT_NS < now && !running.has(id)) calls.delete(id);
  };
  const ticker = setInterval(() => {
    forget();
    if (
      [...replica.canisters.values()].some(
        (c) => c.timer !== 0n && c.timer <= [replica.time + 1n, wallNs() + offsetNs].reduce((a, b) => (a > b ? a : b)),
      )
    )
      void round(() => replica.tick()).catch((e: unknown) => log(`a timer round failed: ${(e as Error).message}`));
  }, options.tickMs ?? TICK_MS);
  let stopped = false;
  const close = async (keep: boolean) => {
    if (stopped) return;
    stopped = true;
    clearInterval(ticker);
    http.server.closeAllConnections();
    await new Promise<void>((r) => http.server.close(() => r()));
    await queue;
    if (keep) snapshot();
    store.close();
    lock.release();
  };
  return {
    url,
    port,
    dir,
    installed: !opened && !empty,
    empty,
    ids,
    principal: identity.principal,
    env,
    replica,
    async advance(ms: number) {
      offsetNs += BigInt(ms) * 1_000_000n;
      await round(() => replica.tick());
    },
    stop: () => close(true),
    abandon: () => close(false),
  };
}
