// The campaign canister on the IC (Azle): Candid in and out through ../candid.ts, state in stable
// memory, the price read from governance and membership checked on every update, and a timer that
// refreshes the cached price so get_campaign (a query) is never long behind.
import { canisterSelf, IDL, init, postUpgrade } from 'azle';
import {
  armIndexBuild,
  armTimers,
  AzleIdl,
  canisterCalls,
  dispatcher,
  fromCandidArgs,
  hostServices,
  stableStores,
  tableEntryPoints,
  wiringStore,
  canisterStateTransfer,
} from '@domdao/canister-kit/azle';
import { governanceMethods } from '@domdao/canister-governance';
import { ledgerMethods } from '@domdao/canister-ledger';
import { membershipMethods } from '@domdao/canister-membership';
import { campaignMethods, campaignTypes } from '../candid.ts';
import { CAMPAIGN_STORE_NAMES, campaignCore, type CampaignStores } from '../core/campaign.ts';
import { campaignWiring } from '../wiring.ts';

interface InitArgs {
  governance_canister: string;
  membership_canister: string;
  ledger_canister: string;
  admins: string[];
  price_max_age?: bigint;
}
const table = campaignMethods(AzleIdl);
const types = campaignTypes(AzleIdl);
const initArgs = wiringStore<InitArgs>();
const callees = canisterCalls(
  { governance: governanceMethods(AzleIdl), membership: membershipMethods(AzleIdl), ledger: ledgerMethods(AzleIdl) },
  (to) => initArgs.get()[`${to}_canister`],
);
const stores = stableStores<CampaignStores>(CAMPAIGN_STORE_NAMES);
/** Decision W22: the whole state in and out, by a controller, into a canister not yet used. */
const transfer = canisterStateTransfer(stores);
const core = campaignCore(stores, campaignWiring.deps(callees, hostServices));
const calls = dispatcher(table, core);

export default class extends transfer.entryPoints(tableEntryPoints(table, calls)) {
  @init([types.InitArgs as unknown as IDL.Type])
  init(args: unknown): void {
    transfer.installed();
    const a = fromCandidArgs<InitArgs>(types.InitArgs, args);
    initArgs.set(a);
    core.init({
      admins: a.admins,
      self: canisterSelf().toText(),
      governance: a.governance_canister,
      ...(a.price_max_age !== undefined && { price_max_age: a.price_max_age }),
    });
    armTimers(campaignWiring.timers, core);
  }

  /** Upgrades take the same arguments; they may re-point the other canisters, nothing else. */
  @postUpgrade([types.InitArgs as unknown as IDL.Type])
  postUpgrade(args: unknown): void {
    const a = fromCandidArgs<InitArgs>(types.InitArgs, args);
    initArgs.set(a);
    // Decision G51: refresh_price answers the governance canister the arguments name.
    core.set_governance(a.governance_canister);
    armTimers(campaignWiring.timers, core);
    armIndexBuild(stores);
  }
}
