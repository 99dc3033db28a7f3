// The governance canister on the IC (Azle). A thin shell: Candid in and out through the method table
// of ../candid.ts, state in stable memory, time and caller from the IC, inter-canister calls to the
// membership, treasury and campaign canisters, and a timer that does what the embedded scheduler does.
import { canisterSelf, IDL, init, postUpgrade, query, update } from 'azle';
import {
  armIndexBuild,
  armTimers,
  AzleIdl,
  azleMethods,
  canisterCalls,
  dispatcher,
  icrc7EntryPoints,
  fromCandidArgs,
  hostServices,
  stableStores,
  wiringStore,
  canisterStateTransfer,
} from '@domdao/canister-kit/azle';
import { campaignMethods } from '@domdao/canister-campaign';
import { membershipMethods } from '@domdao/canister-membership';
import { treasuryMethods } from '@domdao/canister-treasury';
import { governanceMethods, governanceTypes } from '../candid.ts';
import { GOVERNANCE_STORE_NAMES, governanceCore, type GovernanceStores } from '../core/governance.ts';
import type { GovernanceInit } from '../core/types.ts';
import { governanceWiring } from '../wiring.ts';

const table = governanceMethods(AzleIdl);
const methods = azleMethods(table);
const types = governanceTypes(AzleIdl);
const initArgs = wiringStore<Omit<GovernanceInit, 'self'>>();
const callees = canisterCalls(
  { membership: membershipMethods(AzleIdl), treasury: treasuryMethods(AzleIdl), campaign: campaignMethods(AzleIdl) },
  (to) => {
    const id = initArgs.get()[`${to}_canister`];
    // Decision G50: without campaign_canister the call is refused here, and ignored by the execution that made it.
    if (id === undefined) throw new Error(`no ${to}_canister in the init arguments`);
    return id;
  },
);
const stores = stableStores<GovernanceStores>(GOVERNANCE_STORE_NAMES);
/** Decision W22: the whole state in and out, by a controller, into a canister not yet used. */
const transfer = canisterStateTransfer(stores);
const core = governanceCore(stores, governanceWiring.deps(callees, hostServices));
const calls = dispatcher(table, core);

export default class extends transfer.entryPoints(icrc7EntryPoints(calls)) {
  @init([types.InitArgs as unknown as IDL.Type])
  init(args: unknown): void {
    transfer.installed();
    const a = fromCandidArgs<Omit<GovernanceInit, 'self'>>(types.InitArgs, args);
    initArgs.set(a);
    core.init({ ...a, self: canisterSelf().toText() });
    armTimers(governanceWiring.timers, core);
  }

  /** Upgrades take the same arguments; they may re-point the other canisters, nothing else. */
  @postUpgrade([types.InitArgs as unknown as IDL.Type])
  postUpgrade(args: unknown): void {
    initArgs.set(fromCandidArgs<Omit<GovernanceInit, 'self'>>(types.InitArgs, args));
    armTimers(governanceWiring.timers, core);
    armIndexBuild(stores);
  }

  @update(methods.create_proposal.args, methods.create_proposal.ret)
  create_proposal(...a: unknown[]) {
    return calls.update('create_proposal', a);
  }
  @query(methods.get_proposal.args, methods.get_proposal.ret)
  get_proposal(...a: unknown[]) {
    return calls.query('get_proposal', a);
  }
  @query(methods.list_proposals.args, methods.list_proposals.ret)
  list_proposals(...a: unknown[]) {
    return calls.query('list_proposals', a);
  }
  @update(methods.cast_vote.args, methods.cast_vote.ret)
  cast_vote(...a: unknown[]) {
    return calls.update('cast_vote', a);
  }
  @query(methods.get_tally.args, methods.get_tally.ret)
  get_tally(...a: unknown[]) {
    return calls.query('get_tally', a);
  }
  @query(methods.get_my_vote.args, methods.get_my_vote.ret)
  get_my_vote(...a: unknown[]) {
    return calls.query('get_my_vote', a);
  }
  @query(methods.list_votes.args, methods.list_votes.ret)
  list_votes(...a: unknown[]) {
    return calls.query('list_votes', a);
  }
  @query(methods.list_votes_page.args, methods.list_votes_page.ret)
  list_votes_page(...a: unknown[]) {
    return calls.query('list_votes_page', a);
  }
  @update(methods.execute_proposal.args, methods.execute_proposal.ret)
  execute_proposal(...a: unknown[]) {
    return calls.update('execute_proposal', a);
  }
  @update(methods.update_dom_price.args, methods.update_dom_price.ret)
  update_dom_price(...a: unknown[]) {
    return calls.update('update_dom_price', a);
  }
  @query(methods.get_dom_price.args, methods.get_dom_price.ret)
  get_dom_price(...a: unknown[]) {
    return calls.query('get_dom_price', a);
  }
  @query(methods.list_price_history.args, methods.list_price_history.ret)
  list_price_history(...a: unknown[]) {
    return calls.query('list_price_history', a);
  }
  @query(methods.list_admin_events.args, methods.list_admin_events.ret)
  list_admin_events(...a: unknown[]) {
    return calls.query('list_admin_events', a);
  }
  @query(methods.get_settings.args, methods.get_settings.ret)
  get_settings(...a: unknown[]) {
    return calls.query('get_settings', a);
  }
  @update(methods.icrc21_canister_call_consent_message.args, methods.icrc21_canister_call_consent_message.ret)
  icrc21_canister_call_consent_message(...a: unknown[]) {
    return calls.update('icrc21_canister_call_consent_message', a);
  }
  @update(methods.cast_vote_with_reason.args, methods.cast_vote_with_reason.ret)
  cast_vote_with_reason(...a: unknown[]) {
    return calls.update('cast_vote_with_reason', a);
  }
  @query(methods.list_vote_reasons.args, methods.list_vote_reasons.ret)
  list_vote_reasons(...a: unknown[]) {
    return calls.query('list_vote_reasons', a);
  }
  @update(methods.set_delegation.args, methods.set_delegation.ret)
  set_delegation(...a: unknown[]) {
    return calls.update('set_delegation', a);
  }
  @update(methods.revoke_delegation.args, methods.revoke_delegation.ret)
  revoke_delegation(...a: unknown[]) {
    return calls.update('revoke_delegation', a);
  }
  @query(methods.get_my_delegations.args, methods.get_my_delegations.ret)
  get_my_delegations(...a: unknown[]) {
    return calls.query('get_my_delegations', a);
  }
  @query(methods.list_my_delegators.args, methods.list_my_delegators.ret)
  list_my_delegators(...a: unknown[]) {
    return calls.query('list_my_delegators', a);
  }
  @query(methods.get_my_ballot.args, methods.get_my_ballot.ret)
  get_my_ballot(...a: unknown[]) {
    return calls.query('get_my_ballot', a);
  }
  @query(methods.get_execution_deadline.args, methods.get_execution_deadline.ret)
  get_execution_deadline(...a: unknown[]) {
    return calls.query('get_execution_deadline', a);
  }
  @query(methods.get_turnout.args, methods.get_turnout.ret)
  get_turnout(...a: unknown[]) {
    return calls.query('get_turnout', a);
  }
  @query(methods.list_represented.args, methods.list_represented.ret)
  list_represented(...a: unknown[]) {
    return calls.query('list_represented', a);
  }
}
