// The membership canister on the IC (Azle): Candid in and out through ../candid.ts, state in stable
// memory. It calls no other canister; the user canister and governance call it.
import { IDL, init, postUpgrade } from 'azle';
import {
  armIndexBuild,
  AzleIdl,
  dispatcher,
  icrc7EntryPoints,
  fromCandidArgs,
  stableStores,
  tableEntryPoints,
  wiringStore,
  canisterStateTransfer,
} from '@domdao/canister-kit/azle';
import { membershipMethods, membershipTypes } from '../candid.ts';
import {
  MEMBERSHIP_STORE_NAMES,
  membershipCore,
  type MembershipConfig,
  type MembershipStores,
} from '../core/membership.ts';

type InitArgs = Omit<MembershipConfig, 'next_token_id'>;
const table = membershipMethods(AzleIdl);
const types = membershipTypes(AzleIdl);
const initArgs = wiringStore<InitArgs>();
const stores = stableStores<MembershipStores>(MEMBERSHIP_STORE_NAMES);
/** Decision W22: the whole state in and out, by a controller, into a canister not yet used. */
const transfer = canisterStateTransfer(stores);
const core = membershipCore(stores);
const calls = dispatcher(table, core);

export default class extends transfer.entryPoints(tableEntryPoints(table, calls, { Base: icrc7EntryPoints(calls) })) {
  @init([types.InitArgs as unknown as IDL.Type])
  init(args: unknown): void {
    transfer.installed();
    const a = fromCandidArgs<InitArgs>(types.InitArgs, args);
    initArgs.set(a);
    core.init(a);
  }

  /** Upgrades take the same arguments and keep the stored configuration (governance changes it). */
  @postUpgrade([types.InitArgs as unknown as IDL.Type])
  postUpgrade(args: unknown): void {
    initArgs.set(fromCandidArgs<InitArgs>(types.InitArgs, args));
    armIndexBuild(stores);
  }
}
