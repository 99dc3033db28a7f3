// The governance canister on the IC (Azle). A thin shell: Candid in and out through the method table
// of ../candid.ts, state in stable memory, time and caller from the IC, inter-canister calls to the
// membership and treasury canisters, and a timer that does what the embedded scheduler does.
import { canisterSelf, IDL, init, postUpgrade, query, setTimerInterval, time, update } from 'azle';
import { AzleIdl, azleMethods, dispatcher, icrc7EntryPoints, fromCandidArgs, interCanister, stableStores, wiringStore } from '@domdao/canister-kit/azle';
import { membershipMethods } from '@domdao/canister-membership';
import { treasuryMethods } from '@domdao/canister-treasury';
import { governanceMethods, governanceTypes } from '../candid.ts';
import { GOVERNANCE_STORE_NAMES, governanceCore, type GovernanceStores } from '../core/governance.ts';
import type { GovernanceInit } from '../core/types.ts';

const table = governanceMethods(AzleIdl);
const M = azleMethods(table);
const T = governanceTypes(AzleIdl);
const wiring = wiringStore<Omit<GovernanceInit, 'self'>>();
const membership = interCanister(() => wiring.get().membership_canister, membershipMethods(AzleIdl));
const treasury = interCanister(() => wiring.get().treasury_canister, treasuryMethods(AzleIdl));

const core = governanceCore(stableStores<GovernanceStores>(GOVERNANCE_STORE_NAMES), {
  membership: {
    get_membership_status: (owner) => membership('get_membership_status', owner),
    count_active_members: () => membership('count_active_members'),
    apply_policy: (policy) => membership('apply_policy', policy),
  },
  treasury: { execute_payout: (id, payout) => treasury('execute_payout', id, payout) },
});
const d = dispatcher(table, core);

/** The IC's counterpart of the embedded scheduler: transitions, executions and receipt burning. */
function armTimers(): void {
  setTimerInterval(60, () => core.tick({ caller: canisterSelf().toText(), now: time() }));
}

export default class extends icrc7EntryPoints(d) {
  @init([T.InitArgs as unknown as IDL.Type])
  init(args: unknown): void {
    const a = fromCandidArgs<Omit<GovernanceInit, 'self'>>(T.InitArgs, args);
    wiring.set(a);
    core.init({ ...a, self: canisterSelf().toText() });
    armTimers();
  }

  /** Upgrades take the same arguments; they may re-point the other canisters, nothing else. */
  @postUpgrade([T.InitArgs as unknown as IDL.Type])
  postUpgrade(args: unknown): void {
    wiring.set(fromCandidArgs<Omit<GovernanceInit, 'self'>>(T.InitArgs, args));
    armTimers();
  }

  @update(M.create_proposal.args, M.create_proposal.ret)
  create_proposal(...a: unknown[]) { return d.update('create_proposal', a); }
  @query(M.get_proposal.args, M.get_proposal.ret)
  get_proposal(...a: unknown[]) { return d.query('get_proposal', a); }
  @query(M.list_proposals.args, M.list_proposals.ret)
  list_proposals(...a: unknown[]) { return d.query('list_proposals', a); }
  @update(M.cast_vote.args, M.cast_vote.ret)
  cast_vote(...a: unknown[]) { return d.update('cast_vote', a); }
  @query(M.get_tally.args, M.get_tally.ret)
  get_tally(...a: unknown[]) { return d.query('get_tally', a); }
  @query(M.get_my_vote.args, M.get_my_vote.ret)
  get_my_vote(...a: unknown[]) { return d.query('get_my_vote', a); }
  @query(M.list_votes.args, M.list_votes.ret)
  list_votes(...a: unknown[]) { return d.query('list_votes', a); }
  @update(M.execute_proposal.args, M.execute_proposal.ret)
  execute_proposal(...a: unknown[]) { return d.update('execute_proposal', a); }
  @update(M.update_dom_price.args, M.update_dom_price.ret)
  update_dom_price(...a: unknown[]) { return d.update('update_dom_price', a); }
  @query(M.get_dom_price.args, M.get_dom_price.ret)
  get_dom_price(...a: unknown[]) { return d.query('get_dom_price', a); }
  @query(M.list_price_history.args, M.list_price_history.ret)
  list_price_history(...a: unknown[]) { return d.query('list_price_history', a); }
  @query(M.list_admin_events.args, M.list_admin_events.ret)
  list_admin_events(...a: unknown[]) { return d.query('list_admin_events', a); }
  @query(M.get_settings.args, M.get_settings.ret)
  get_settings(...a: unknown[]) { return d.query('get_settings', a); }
}
