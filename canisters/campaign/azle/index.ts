// The campaign canister on the IC (Azle): Candid in and out through ../candid.ts, state in stable
// memory, the price read from governance and membership checked on every update, and a timer that
// refreshes the cached price so get_campaign (a query) is never long behind.
import { canisterSelf, IDL, init, postUpgrade, query, update } from 'azle';
import {
  armIndexBuild,
  armTimers,
  AzleIdl,
  azleMethods,
  canisterCalls,
  dispatcher,
  fromCandidArgs,
  hostServices,
  stableStores,
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
const methods = azleMethods(table);
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

export default class extends transfer.entryPoints() {
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

  @update(methods.create_campaign.args, methods.create_campaign.ret)
  create_campaign(...a: unknown[]) {
    return calls.update('create_campaign', a);
  }
  @update(methods.contribute.args, methods.contribute.ret)
  contribute(...a: unknown[]) {
    return calls.update('contribute', a);
  }
  @update(methods.burn_donation.args, methods.burn_donation.ret)
  burn_donation(...a: unknown[]) {
    return calls.update('burn_donation', a);
  }
  @update(methods.reconcile_movement.args, methods.reconcile_movement.ret)
  reconcile_movement(...a: unknown[]) {
    return calls.update('reconcile_movement', a);
  }
  @update(methods.settle_campaign.args, methods.settle_campaign.ret)
  settle_campaign(...a: unknown[]) {
    return calls.update('settle_campaign', a);
  }
  @query(methods.list_contributions_by.args, methods.list_contributions_by.ret)
  list_contributions_by(...a: unknown[]) {
    return calls.query('list_contributions_by', a);
  }
  @query(methods.list_donations.args, methods.list_donations.ret)
  list_donations(...a: unknown[]) {
    return calls.query('list_donations', a);
  }
  @query(methods.list_pending_movements.args, methods.list_pending_movements.ret)
  list_pending_movements(...a: unknown[]) {
    return calls.query('list_pending_movements', a);
  }
  @update(methods.cancel_campaign.args, methods.cancel_campaign.ret)
  cancel_campaign(...a: unknown[]) {
    return calls.update('cancel_campaign', a);
  }
  @update(methods.refresh_price.args, methods.refresh_price.ret)
  refresh_price(...a: unknown[]) {
    return calls.update('refresh_price', a);
  }
  @query(methods.get_campaign.args, methods.get_campaign.ret)
  get_campaign(...a: unknown[]) {
    return calls.query('get_campaign', a);
  }
  @query(methods.list_campaigns.args, methods.list_campaigns.ret)
  list_campaigns(...a: unknown[]) {
    return calls.query('list_campaigns', a);
  }
  @query(methods.list_contributions.args, methods.list_contributions.ret)
  list_contributions(...a: unknown[]) {
    return calls.query('list_contributions', a);
  }
}
