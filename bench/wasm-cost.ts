// The cost survey of `npm run bench wasm` (decision W21): with BENCH_WASM_COST=<file.json>, once the
// stores are full, every public method of the six canisters is called once, metered, and each call's
// chain of messages (the method, the canisters it calls, its callbacks) is written to the file.
// The calls the bridge makes for real (a join, a vote, a transfer, a contribution) are made with real
// arguments by a member; every other method with the smallest arguments its Candid types allow, by an
// admin (so the figure is the method's fixed cost plus whatever it finds or refuses with those).
// `bench/ic-cost.ts` turns two or more such files (two sizes) into docs/ic-cost.md's tables.
import { writeFileSync } from 'node:fs';
import { IDL } from '@icp-sdk/core/candid';
import { Principal } from '@icp-sdk/core/principal';
import type { CanisterName } from '../platform/canisters/src/api.ts';
import { encodeArgs } from '../platform/canisters/src/ic/index.ts';
import { METHOD_TABLES } from '../platform/canisters/src/tables.ts';
import { principalFromSeed } from '../platform/canisters/src/principals.ts';
import type { WasmDeployment } from '@domdao/replica';
import type { WasmReplica } from '@domdao/replica/host';
import { memberAccount } from './members.ts';
import type { CostCall, CostFile } from './cost-types.ts';
import { transferSurvey } from './wasm-cost-state.ts';

export const E8S = 100_000_000n;
const HOUR = 3_600_000_000_000n;

/** The smallest value of a Candid type: 0, '', false, none, [], the first case of a variant. */
class Smallest extends IDL.Visitor<null, unknown> {
  constructor(private readonly principal: Principal) {
    super();
  }
  override visitBool() {
    return false;
  }
  override visitNull() {
    return null;
  }
  override visitReserved() {
    return null;
  }
  override visitText() {
    return '';
  }
  override visitInt() {
    return 0n;
  }
  override visitNat() {
    return 0n;
  }
  override visitFloat() {
    return 0;
  }
  override visitFixedInt(t: IDL.FixedIntClass) {
    return t._bits > 32 ? 0n : 0;
  }
  override visitFixedNat(t: IDL.FixedNatClass) {
    return t._bits > 32 ? 0n : 0;
  }
  override visitPrincipal() {
    return this.principal;
  }
  override visitVec<T>(_t: IDL.VecClass<T>, ty: IDL.Type<T>) {
    return ty instanceof IDL.FixedNatClass && ty._bits === 8 ? new Uint8Array() : [];
  }
  override visitOpt() {
    return [];
  }
  override visitRecord(_t: IDL.RecordClass, fields: Array<[string, IDL.Type]>): unknown {
    return Object.fromEntries(fields.map(([k, ty]): [string, unknown] => [k, ty.accept(this, null)]));
  }
  override visitTuple<T extends unknown[]>(_t: IDL.TupleClass<T>, components: IDL.Type[]): unknown {
    return components.map((ty): unknown => ty.accept(this, null));
  }
  override visitVariant(_t: IDL.VariantClass, fields: Array<[string, IDL.Type]>): unknown {
    const [k, ty] = fields[0]!;
    return { [k]: ty.accept(this, null) };
  }
  override visitRec<T>(_t: IDL.RecClass<T>, ty: IDL.ConstructType<T>): unknown {
    return ty.accept(this, null);
  }
}

const outcomeOf = (
  canister: CanisterName,
  method: string,
  r: { reply: Uint8Array } | { reject: unknown } | object,
): string => {
  if (!('reply' in r)) return `reject: ${JSON.stringify((r as { message?: string }).message ?? r).slice(0, 80)}`;
  const [value] = IDL.decode([METHOD_TABLES[canister][method]!.ret], r.reply);
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    if ('Err' in value) {
      const err = (value as { Err: unknown }).Err;
      return typeof err === 'string' ? `Err: ${err.slice(0, 60)}` : `Err:${Object.keys(err ?? {})[0] ?? ''}`;
    }
    if ('Ok' in value) return 'Ok';
  }
  return 'Ok';
};

export async function costSurvey(
  d: WasmDeployment,
  replica: WasmReplica,
  o: {
    admin: string;
    bridge: string;
    members: string[];
    votes: number;
    file: string;
    /** A second, fresh set of the canisters (the state import's target). */
    fresh: () => Promise<WasmDeployment>;
    /** Only these methods (BENCH_WASM_COST_ONLY), on every canister: a run for a few rows, merged into the doc. */
    only?: string[];
  },
): Promise<string> {
  const want = (method: string) => !o.only || o.only.includes(method);
  const calls: CostCall[] = [];
  const callees: CostCall[] = [];
  const idOf = (c: CanisterName) => d.ids[c];
  const canisterOf = (id: string) => (Object.entries(d.ids).find(([, x]) => x === id)?.[0] ?? id) as CanisterName;
  replica.metering = true;
  const call = async (
    caller: string,
    canister: CanisterName,
    method: string,
    arg: Uint8Array,
    how: CostCall['how'],
  ) => {
    const spec = METHOD_TABLES[canister][method]!;
    const from = replica.counts.length;
    const r =
      spec.kind === 'query'
        ? await replica.query(caller, idOf(canister), method, arg)
        : await replica.update(caller, idOf(canister), method, arg);
    const chain = replica.counts.slice(from);
    const own = chain.find((c) => canisterOf(c.canister) === canister && c.method === method && c.kind === spec.kind);
    if (how === 'real')
      for (const c of chain)
        if (c !== own && (c.kind === 'update' || c.kind === 'query'))
          callees.push({
            canister: canisterOf(c.canister),
            method: c.method,
            kind: c.kind,
            how: 'callee',
            outcome: `by ${canister}.${method}`,
            argBytes: 0,
            instructions: String(c.instructions),
            messages: 1,
            chainInstructions: String(c.instructions),
            interCanisterCalls: 0,
          });
    calls.push({
      canister,
      method,
      kind: spec.kind,
      how,
      outcome: outcomeOf(canister, method, r as object),
      argBytes: arg.length + method.length,
      instructions: String(own?.instructions ?? 0n),
      messages: chain.length,
      chainInstructions: String(chain.reduce((s, c) => s + c.instructions, 0n)),
      interCanisterCalls: chain.filter((c) => c !== own && (c.kind === 'update' || c.kind === 'query')).length,
    });
    return r;
  };
  const real = async (caller: string, canister: CanisterName, method: string, args: unknown[]) => {
    const spec = METHOD_TABLES[canister][method]!;
    const padded = [...args, ...Array<undefined>(spec.args.length - args.length).fill(undefined)];
    const r = await call(caller, canister, method, encodeArgs(METHOD_TABLES[canister], method, padded), 'real');
    return 'reply' in r ? r.reply : undefined;
  };

  if (!o.only) await bridgeCalls();
  // Methods added after the survey first ran: the price refresh, the state transfer (W32).
  const added = await transferSurvey(d, replica, { admin: o.admin, want, fresh: o.fresh });
  calls.push(...added.calls);
  // The methods only other canisters call, as they were called (the first time each).
  for (const c of callees) if (!calls.some((x) => x.canister === c.canister && x.method === c.method)) calls.push(c);
  // Every other method, once, with the smallest arguments, by an admin.
  const smallest = new Smallest(Principal.fromText(o.admin));
  const seen = new Set(calls.map((c) => `${c.canister} ${c.method}`));
  for (const canister of Object.keys(METHOD_TABLES) as CanisterName[])
    for (const [method, spec] of Object.entries(METHOD_TABLES[canister])) {
      if (seen.has(`${canister} ${method}`) || !want(method)) continue;
      const arg = new Uint8Array(
        IDL.encode(
          spec.args,
          spec.args.map((t) => t.accept(smallest, null)),
        ),
      );
      await call(o.admin, canister, method, arg, 'probe');
    }
  const file: CostFile = {
    members: o.members.length,
    votes: o.votes,
    calls,
    ...(added.transfer.length > 0 && { transfer: added.transfer }),
  };
  writeFileSync(o.file, JSON.stringify(file, null, 1) + '\n');
  return `Cost survey (decision W21): ${calls.length} methods called once each at ${o.members.length} members, written to ${o.file}.`;

  /** What the bridge does for real, at the full size. */
  async function bridgeCalls() {
    const m = o.members.at(-1)!;
    const other = o.members[0]!;
    const joiner = principalFromSeed('wasm-cost-joiner');
    const created = await real(o.bridge, 'user', 'create_account', [memberAccount(joiner, replica.time)]);
    const [account] = IDL.decode([METHOD_TABLES.user.create_account!.ret], created!) as [
      { Ok: { verification_token: string } },
    ];
    await real(o.bridge, 'user', 'verify_email', [account.Ok.verification_token]);
    await real(o.bridge, 'user', 'record_kyc', [joiner, true]);
    await real(o.bridge, 'user', 'upgrade_membership_to_active', [
      { principal: joiner, kyc_proof: new Uint8Array([1]), payment_proof: new Uint8Array([2]) },
    ]);
    await real(m, 'ledger', 'icrc1_transfer', [{ to: { owner: other }, amount: E8S }]);
    await real(m, 'ledger', 'icrc2_approve', [{ spender: { owner: d.ids.campaign }, amount: 10n * E8S }]);
    const campaign = await real(m, 'campaign', 'create_campaign', [
      {
        title: 'Cost',
        description: 'The survey',
        goal: { DomTokens: 100n * E8S },
        deadline: replica.time + 7n * 24n * HOUR,
      },
    ]);
    const [campaignId] = IDL.decode([METHOD_TABLES.campaign.create_campaign!.ret], campaign!) as [{ Ok: string }];
    await real(m, 'campaign', 'contribute', [campaignId.Ok, { Dom: E8S }]);
    const proposal = await real(o.bridge, 'governance', 'create_proposal', [
      { title: 'Cost', body: 'The survey', category: 'General' },
    ]);
    const [proposalId] = IDL.decode([METHOD_TABLES.governance.create_proposal!.ret], proposal!) as [{ Ok: bigint }];
    replica.time += HOUR;
    await replica.tick();
    await real(m, 'governance', 'cast_vote', [proposalId.Ok, 'Yes']);
    await real(other, 'governance', 'cast_vote_with_reason', [proposalId.Ok, 'No', 'The survey']);
    await real(m, 'governance', 'get_my_vote', [proposalId.Ok]);
    await real(o.admin, 'governance', 'list_proposals', [{}]);
    await real(o.admin, 'governance', 'get_proposal', [proposalId.Ok]);
    await real(o.admin, 'governance', 'get_tally', [proposalId.Ok]);
    await real(o.admin, 'governance', 'list_votes_page', [proposalId.Ok, undefined, 40]);
    await real(o.admin, 'membership', 'get_membership_status', [m]);
    await real(o.admin, 'membership', 'count_active_members', []);
    await real(o.admin, 'user', 'get_account', [m]);
    await real(o.admin, 'ledger', 'icrc1_balance_of', [{ owner: m }]);
    await real(o.admin, 'ledger', 'icrc3_get_blocks', [[{ start: 0n, length: 100n }]]);
    await real(o.admin, 'campaign', 'get_campaign', [campaignId.Ok]);
    await real(o.admin, 'campaign', 'list_campaigns', []);
  }
}
