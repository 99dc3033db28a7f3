// The state of deployed canisters over the IC's HTTP interface, with the unmodified agent (decision
// W22): exported a page at a time by a controller, imported into canisters that have taken no update
// call since their install, in chunks within the IC's limits, then sealed. Every canister is checked
// before anything is written (status and state version), so a refusal changes nothing.
import { HttpAgent } from '@icp-sdk/core/agent';
import { IDL } from '@icp-sdk/core/candid';
import { fromCandid, stateTransferMethods, toCandid } from '@domdao/canister-kit/candid';
import {
  crc32Entry,
  MAX_CHUNK_CHARS,
  MAX_CHUNK_ENTRIES,
  REFUSALS,
  STATE_FORMAT,
  type EntryText,
  type ExportPage,
  type ImportManifest,
  type ImportProgress,
  type ImportStep,
  type StatusReply,
} from '@domdao/canister-kit/state-transfer';
import type { Result } from '@domdao/canister-kit';
import { CANISTERS, type CanisterName } from '../api.ts';
import { identityFromPem } from '../ic/identity.ts';
import { principalCodec } from '../ic/client.ts';
import { agentTransport, CanisterCallError, type CandidTransport } from '../ic/transport.ts';
import { remapPrincipals } from './remap.ts';
import { compareReports, summarizeState } from './summary.ts';
import {
  StateTransferRefusal,
  type CanisterState,
  type CanisterStateExport,
  type IcTarget,
  type ImportOptions,
  type StateReport,
} from './types.ts';

const TABLE = stateTransferMethods(IDL);
type Method = keyof typeof TABLE;

/** The transfer's three methods on each of the six canisters, over a transport. */
export function transferClient(transport: CandidTransport, ids: Record<CanisterName, string>) {
  const call = async <T>(canister: CanisterName, method: Method, args: unknown[]): Promise<T> => {
    const spec = TABLE[method];
    const arg = new Uint8Array(
      IDL.encode(
        spec.args,
        args.map((a, i) => toCandid(spec.args[i]!, a, principalCodec)),
      ),
    );
    const reply =
      spec.kind === 'query'
        ? await transport.query(ids[canister], method, arg)
        : await transport.update(ids[canister], method, arg);
    return fromCandid(spec.ret, IDL.decode([spec.ret], reply)[0], principalCodec) as T;
  };
  const ok = <T>(canister: CanisterName, r: Result<T, string>): T => {
    if ('Err' in r) throw new StateTransferRefusal(`the ${canister} canister (${ids[canister]}) refused: ${r.Err}`);
    return r.Ok;
  };
  return {
    id: (canister: CanisterName) => ids[canister],
    status: (canister: CanisterName) => call<StatusReply>(canister, 'state_status', []),
    exportPage: async (canister: CanisterName, store: string, after?: string) =>
      ok(
        canister,
        await call<Result<ExportPage, string>>(canister, 'state_export', [
          { store, ...(after !== undefined && { after }) },
        ]),
      ),
    /** The canister's answer as it is (a refusal is a value here: tests look at it). */
    importRaw: (canister: CanisterName, step: ImportStep) =>
      call<Result<ImportProgress, string>>(canister, 'state_import', [step]),
    import: async (canister: CanisterName, step: ImportStep) =>
      ok(canister, await call<Result<ImportProgress, string>>(canister, 'state_import', [step])),
  };
}
export type TransferClient = ReturnType<typeof transferClient>;

export async function targetTransport(ic: IcTarget): Promise<CandidTransport> {
  const agent = await HttpAgent.create({
    host: ic.host,
    identity: identityFromPem(ic.identityPem),
    shouldFetchRootKey: ic.fetchRootKey,
  });
  return agentTransport(agent);
}

/** Every store of the six canisters, read a page at a time. */
export async function readDeployed(client: TransferClient): Promise<Record<CanisterName, CanisterState>> {
  const out = {} as Record<CanisterName, CanisterState>;
  for (const canister of CANISTERS) {
    const status = await statusOf(client, canister);
    const stores: Record<string, EntryText[]> = {};
    for (const { name } of status.stores) stores[name] = await readStore(client, canister, name);
    out[canister] = { version: status.version, stores };
  }
  return out;
}

/** One store of a deployed canister, a page at a time from its start. */
export async function readStore(client: TransferClient, canister: CanisterName, name: string): Promise<EntryText[]> {
  const entries: EntryText[] = [];
  let after: string | undefined;
  // Pages may be short (the canister stops one at its instruction budget, W33): the cursor alone says
  // whether more follows. A cursor that does not move on would loop forever, so it is refused.
  do {
    const page = await client.exportPage(canister, name, after);
    if (page.next !== undefined && (page.entries.length === 0 || page.next === after))
      throw new StateTransferRefusal(
        `the ${canister} canister's export of store ${name} does not move on after ${after ?? 'its start'}`,
      );
    entries.push(...page.entries);
    after = page.next;
  } while (after !== undefined);
  return entries;
}

async function statusOf(client: TransferClient, canister: CanisterName): Promise<StatusReply> {
  try {
    return await client.status(canister);
  } catch (e) {
    // Decision K25: the status is a controller's only; a stranger's query traps with the refusal.
    if (e instanceof CanisterCallError && e.message.includes(REFUSALS.notController))
      throw new StateTransferRefusal(
        `the ${canister} canister (${client.id(canister)}) refused: ${REFUSALS.notController}`,
      );
    if (e instanceof CanisterCallError)
      throw new StateTransferRefusal(
        `the ${canister} canister has no state transfer (${e.message}): it must run this release's build (the ledger too: DFINITY's ledger wasm takes no import, decision L47)`,
      );
    throw e;
  }
}

export async function exportDeployedState(ic: IcTarget): Promise<CanisterStateExport> {
  const canisters = await readDeployed(transferClient(await targetTransport(ic), ic.canisterIds));
  return {
    format: 'domdao-canister-state',
    formatVersion: STATE_FORMAT,
    exportedAt: new Date().toISOString(),
    source: { kind: 'deployed', host: ic.host },
    canisterIds: { ...ic.canisterIds },
    canisters,
  };
}

/** A store's entries in chunks within the canister's limits (decision W22). */
export function chunksOf(entries: EntryText[]): EntryText[][] {
  const out: EntryText[][] = [];
  let chunk: EntryText[] = [];
  let chars = 0;
  for (const e of entries) {
    const n = e[0].length + e[1].length;
    if (n > MAX_CHUNK_CHARS)
      throw new StateTransferRefusal(`an entry of ${n} characters is larger than a chunk may be (${MAX_CHUNK_CHARS})`);
    if (chunk.length === MAX_CHUNK_ENTRIES || chars + n > MAX_CHUNK_CHARS) {
      out.push(chunk);
      chunk = [];
      chars = 0;
    }
    chunk.push(e);
    chars += n;
  }
  if (chunk.length > 0) out.push(chunk);
  return out;
}

export function manifestOf(state: CanisterState): ImportManifest {
  return {
    version: state.version,
    stores: Object.entries(state.stores).map(([name, entries]) => ({
      name,
      count: BigInt(entries.length),
      crc32: entries.reduce(crc32Entry, 0),
    })),
  };
}

export async function importState(
  ic: IcTarget,
  exp: CanisterStateExport,
  options: ImportOptions = {},
): Promise<StateReport> {
  if (exp.format !== 'domdao-canister-state' || exp.formatVersion !== STATE_FORMAT)
    throw new StateTransferRefusal(`the export is not a canister state of format ${STATE_FORMAT}`);
  const say = options.say ?? (() => {});
  const mapping = {
    ...options.principals,
    ...Object.fromEntries(CANISTERS.map((n) => [exp.canisterIds[n], ic.canisterIds[n]])),
  };
  const sent = remapPrincipals(exp, mapping);
  const client = transferClient(await targetTransport(ic), ic.canisterIds);
  // Checked before anything is written: every canister fresh (or left importing by a run cut short), its version the
  // export's.
  const sealed: CanisterName[] = [];
  for (const canister of CANISTERS) {
    const s = await statusOf(client, canister);
    if (s.status === 'live')
      throw new StateTransferRefusal(
        `the ${canister} canister (${ic.canisterIds[canister]}) is not empty: it has taken update calls since it was installed`,
      );
    if (s.version !== sent.canisters[canister].version)
      throw new StateTransferRefusal(
        `the ${canister} canister's state version is ${s.version}, the export's is ${sent.canisters[canister].version}: deploy the release the export was made with`,
      );
    if (s.status === 'sealed') sealed.push(canister);
  }
  const expected = summarizeState(sent);
  // Decision W30: a run killed after sealing (before the database's commit) left sealed canisters; one
  // that holds exactly what this import would send is this import, done, and is kept as it is.
  if (sealed.length > 0) {
    const held = summarizeState({ ...sent, canisters: await readDeployed(client) });
    for (const canister of sealed) {
      const differences = compareReports(only(expected, canister), only(held, canister));
      if (differences.length > 0)
        throw new StateTransferRefusal(
          `the ${canister} canister (${ic.canisterIds[canister]}) has already imported a state and is sealed, and not this export's (${differences[0]}): deploy new canisters to migrate again`,
        );
      say(`${canister}: already sealed with this export, kept`);
    }
  }
  const todo = CANISTERS.filter((c) => !sealed.includes(c));
  for (const canister of todo) {
    const state = sent.canisters[canister];
    await client.import(canister, { Begin: manifestOf(state) });
    let chunks = 0;
    for (const [store, entries] of Object.entries(state.stores))
      for (const chunk of chunksOf(entries)) {
        await client.import(canister, { Chunk: { store, entries: chunk } });
        chunks++;
      }
    say(`${canister}: ${Object.values(state.stores).reduce((n, e) => n + e.length, 0)} entries in ${chunks} chunks`);
  }
  // Read back while the import holds every canister (no timer, no other update), then sealed: each
  // canister checks its counts and CRC-32s itself; this compares SHA-256 too, and the ledger's tip.
  if (options.verify !== false && todo.length > 0) {
    const differences = compareReports(expected, summarizeState({ ...sent, canisters: await readDeployed(client) }));
    if (differences.length)
      throw new Error(`the imported state differs from the export, not sealed: ${differences.join('; ')}`);
  }
  // Callees before callers, so a sealed canister's first calls find the others sealed as far as possible.
  for (const canister of SEAL_ORDER.filter((c) => todo.includes(c))) {
    const done = await client.import(canister, { Seal: null });
    say(`${canister}: sealed, ${done.imported} entries`);
  }
  return expected;
}

/** A report of one canister only, the ledger's figures kept for the ledger alone. */
function only(report: StateReport, canister: CanisterName): StateReport {
  const empty = { version: '', stores: {} };
  return {
    canisters: Object.fromEntries(
      CANISTERS.map((c) => [c, c === canister ? report.canisters[c] : empty]),
    ) as StateReport['canisters'],
    ledger: canister === 'ledger' ? report.ledger : { blocks: 0, tipHash: null },
  };
}

const SEAL_ORDER: CanisterName[] = ['ledger', 'membership', 'user', 'treasury', 'campaign', 'governance'];
