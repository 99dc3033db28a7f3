// The cost survey's rows added after it first ran (decision W32): the campaign's refresh_price (G51) and
// the state transfer's three methods on every canister (W22). state_export and state_import are paged, so
// besides the row (a page, a chunk) each canister's whole state is exported page by page, as a controller,
// and imported chunk by chunk into a second, fresh set of the same canisters (an import is refused by a
// canister that has taken update calls, which the survey's have), every message metered.
import { IDL } from '@icp-sdk/core/candid';
import { stateTransferMethods } from '@domdao/canister-kit/candid';
import type { EntryText } from '@domdao/canister-kit/state-transfer';
import { CANISTERS, type CanisterName } from '../platform/canisters/src/api.ts';
import { chunksOf, manifestOf } from '../platform/canisters/src/state-transfer/index.ts';
import type { WasmDeployment } from '@domdao/replica';
import type { WasmReplica } from '@domdao/replica/host';
import { METHOD_TABLES } from '../platform/canisters/src/tables.ts';
import type { CostCall, TransferCost } from './cost-types.ts';

const TRANSFER = stateTransferMethods(IDL);
export const TRANSFER_METHODS = ['state_status', 'state_export', 'state_import'] as const;

type Reply = { reply: Uint8Array } | object;

/** A message and what it counted on the replica, its own message found by canister, method and kind. */
async function metered(
  replica: WasmReplica,
  id: string,
  kind: 'query' | 'update',
  caller: string,
  method: string,
  arg: Uint8Array,
) {
  const from = replica.counts.length;
  const r: Reply =
    kind === 'query' ? await replica.query(caller, id, method, arg) : await replica.update(caller, id, method, arg);
  const chain = replica.counts.slice(from);
  const own = chain.find((c) => c.canister === id && c.method === method && c.kind === kind);
  if (!('reply' in r)) throw new Error(`${method} on ${id} was rejected: ${JSON.stringify(r).slice(0, 200)}`);
  return { reply: r.reply, own: own?.instructions ?? 0n, chain };
}

const decoded = <T>(method: keyof typeof TRANSFER, reply: Uint8Array): T =>
  IDL.decode([TRANSFER[method].ret], reply)[0] as T;
const encoded = (method: keyof typeof TRANSFER, args: unknown[]) =>
  new Uint8Array(IDL.encode(TRANSFER[method].args, args));
const okOf = <T>(what: string, r: { Ok: T } | { Err: string }): T => {
  if ('Err' in r) throw new Error(`${what}: ${r.Err}`);
  return r.Ok;
};

export async function transferSurvey(
  d: WasmDeployment,
  replica: WasmReplica,
  o: { admin: string; want: (method: string) => boolean; fresh: () => Promise<WasmDeployment> },
): Promise<{ calls: CostCall[]; transfer: TransferCost[] }> {
  const calls: CostCall[] = [];
  replica.metering = true;
  // A transfer method calls no other canister: its chain is its own message.
  const row = (
    canister: CanisterName,
    method: string,
    kind: CostCall['kind'],
    outcome: string,
    argBytes: number,
    own: bigint,
  ) =>
    calls.push({
      canister,
      method,
      kind,
      how: 'real',
      outcome,
      argBytes,
      instructions: String(own),
      messages: 1,
      chainInstructions: String(own),
      interCanisterCalls: 0,
    });

  if (o.want('refresh_price')) {
    // G51: the campaign's timer, governance or an admin; an admin here. It reads governance's price and the ledger's
    // fee.
    const r = await metered(
      replica,
      d.ids.campaign,
      'update',
      o.admin,
      'refresh_price',
      new Uint8Array(IDL.encode([], [])),
    );
    const chain = r.chain.map((c) => c.instructions);
    const callees = r.chain.filter((c) => c.kind === 'update' || c.kind === 'query').length - 1;
    const [value] = IDL.decode([METHOD_TABLES.campaign.refresh_price!.ret], r.reply) as [object];
    const outcome = 'Err' in value ? `Err:${Object.keys((value as { Err: object }).Err)[0]}` : 'Ok';
    calls.push({
      canister: 'campaign',
      method: 'refresh_price',
      kind: 'update',
      how: 'real',
      outcome: `${outcome}, by an admin`,
      argBytes: 'refresh_price'.length + 6,
      instructions: String(r.own),
      messages: chain.length,
      chainInstructions: String(chain.reduce((s, x) => s + x, 0n)),
      interCanisterCalls: callees,
    });
  }
  const transfer: TransferCost[] = [];
  const wanted = TRANSFER_METHODS.some((m) => o.want(m));
  if (!wanted) return { calls, transfer };

  // The state's owner is the controller (W22: `ic0.is_controller`); state_status answers anyone.
  const exported = {} as Record<CanisterName, { version: string; stores: Record<string, EntryText[]> }>;
  for (const canister of CANISTERS) {
    const id = d.ids[canister];
    const s = await metered(replica, id, 'query', d.controller, 'state_status', encoded('state_status', []));
    const status = decoded<{ version: string; stores: Array<{ name: string; count: bigint }> }>(
      'state_status',
      s.reply,
    );
    if (o.want('state_status'))
      row(canister, 'state_status', 'query', 'Ok, by the controller', encoded('state_status', []).length + 12, s.own);
    const t: TransferCost = {
      canister,
      entries: 0,
      pages: 0,
      exportInstructions: '0',
      largestPage: '0',
      largestPageEntries: 0,
      exportBytes: 0,
      importMessages: 0,
      importInstructions: '0',
      largestChunk: '0',
      largestChunkEntries: 0,
      importArgBytes: 0,
    };
    let total = 0n;
    let largest = 0n;
    let largestArg = 0;
    const stores: Record<string, EntryText[]> = {};
    t.stores = [];
    for (const { name } of status.stores) {
      const entries: EntryText[] = [];
      const mine = {
        name,
        entries: 0,
        largestPage: '0',
        largestPageEntries: 0,
        largestChunk: '0',
        largestChunkEntries: 0,
      };
      t.stores.push(mine);
      let after: [] | [string] = [];
      do {
        const arg = encoded('state_export', [{ store: name, after, limit: [] }]);
        const p = await metered(replica, id, 'query', d.controller, 'state_export', arg);
        const page = okOf(
          `${canister} state_export`,
          decoded<{ Ok: { entries: EntryText[]; next: [] | [string] } } | { Err: string }>('state_export', p.reply),
        );
        entries.push(...page.entries);
        after = page.next;
        t.pages++;
        t.exportBytes += p.reply.length;
        total += p.own;
        if (p.own > largest) [largest, largestArg, t.largestPageEntries] = [p.own, arg.length, page.entries.length];
        if (p.own > BigInt(mine.largestPage))
          [mine.largestPage, mine.largestPageEntries] = [String(p.own), page.entries.length];
      } while (after.length > 0);
      stores[name] = entries;
      mine.entries = entries.length;
      t.entries += entries.length;
    }
    t.exportInstructions = String(total);
    t.largestPage = String(largest);
    exported[canister] = { version: status.version, stores };
    if (o.want('state_export'))
      row(
        canister,
        'state_export',
        'query',
        'Ok, by the controller: the largest page (whole state below)',
        largestArg + 12,
        largest,
      );
    transfer.push(t);
  }

  // A second set, freshly installed with the same ids and controller: the export goes in as it is.
  const target = await o.fresh();
  const into = target.replica;
  into.metering = true;
  for (const t of transfer) {
    const id = target.ids[t.canister];
    const state = exported[t.canister];
    const steps: unknown[] = [{ Begin: manifestOf(state) }];
    for (const [store, entries] of Object.entries(state.stores))
      for (const chunk of chunksOf(entries)) steps.push({ Chunk: { store, entries: chunk } });
    steps.push({ Seal: null });
    let total = 0n;
    let largest = 0n;
    let largestArg = 0;
    for (const step of steps) {
      const arg = encoded('state_import', [step]);
      const r = await metered(into, id, 'update', d.controller, 'state_import', arg);
      okOf(`${t.canister} state_import`, decoded<{ Ok: unknown } | { Err: string }>('state_import', r.reply));
      total += r.own;
      t.importArgBytes += arg.length + 'state_import'.length;
      const chunkOf = (step as { Chunk?: { store: string; entries: unknown[] } }).Chunk;
      const mine = chunkOf && t.stores?.find((x) => x.name === chunkOf.store);
      if (chunkOf && mine && r.own > BigInt(mine.largestChunk))
        [mine.largestChunk, mine.largestChunkEntries] = [String(r.own), chunkOf.entries.length];
      if ('Chunk' in (step as object) && r.own > largest)
        [largest, largestArg, t.largestChunkEntries] = [
          r.own,
          arg.length,
          (step as { Chunk: { entries: unknown[] } }).Chunk.entries.length,
        ];
    }
    t.importMessages = steps.length;
    t.importInstructions = String(total);
    t.largestChunk = String(largest);
    if (o.want('state_import'))
      row(
        t.canister,
        'state_import',
        'update',
        'Ok, by the controller into a fresh set: the largest chunk (whole state below)',
        largestArg + 12,
        largest,
      );
  }
  return { calls, transfer };
}
