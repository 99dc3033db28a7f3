// Execution of approved proposals (spec 1 "Execution on approval"), as a Governor's execute step: the
// payload's action (actions/<payload>.ts) calls other canisters, then governance records the outcome.
import { Err, Ok, type Result } from '@domdao/canister-kit';
import { actionOf } from './actions/registry.ts';
import { CATEGORIES } from './rules/categories.ts';
import type { PriceEntry } from './rules/price.ts';
import type { GovernanceState } from './state.ts';
import type {
  GovernanceConfig,
  GovernanceDeps,
  GovernanceError,
  GovernanceStores,
  SettingsSnapshot,
  UpdateDomPriceArgs,
} from './types.ts';

export function proposalExecution(stores: GovernanceStores, deps: GovernanceDeps, state: GovernanceState) {
  const { config, emit, transition } = state;

  /** Spec 1 SetDomPrice rules 1–3: the tick in stable memory, set_by this canister, PriceUpdated. */
  const applyPrice = (args: UpdateDomPriceArgs, now: bigint): void => {
    const c = config();
    const entry: PriceEntry = {
      price_usd: args.price_usd,
      proposal_id: args.proposal_id,
      set_by: c.self,
      effective_at: args.effective_at ?? now,
      ...(args.expires_at !== undefined && { expires_at: args.expires_at }),
    };
    stores.prices.set(args.proposal_id, entry);
    emit(now, {
      PriceUpdated: {
        proposal_id: args.proposal_id,
        price_usd: args.price_usd,
        effective_at: entry.effective_at,
        ...(args.expires_at !== undefined && { expires_at: args.expires_at }),
        ...(args.source_url !== undefined && { source_url: args.source_url }),
      },
    });
  };

  /**
   * Runs an Approved proposal's action (spec 1 Categories, "Execution on approval"). Awaits first, then
   * writes: Executed, or an ExecutionFailed event and the proposal stays Approved for a retry.
   */
  const execute = async (id: bigint, now: bigint): Promise<Result<null, GovernanceError>> => {
    const payload = stores.proposals.get(id)!.payload;
    const act = payload && actionOf(payload);
    let failure: string | undefined;
    try {
      failure = act ? await act.action.call?.(id, act.content, deps) : undefined;
    } catch (e) {
      failure = `call failed: ${e instanceof Error ? e.message : String(e)}`;
    }
    let p = stores.proposals.get(id)!;
    if (p.status !== 'Approved') return Err({ ExecutionFailed: `proposal is ${p.status}, not Approved` });
    const attempt = p.execution_attempts + 1;
    p = { ...p, execution_attempts: attempt, last_attempt_at: now };
    stores.proposals.set(id, p);
    if (failure !== undefined) {
      emit(now, { ExecutionFailed: { proposal_id: id, attempt, message: failure } });
      return Err({ ExecutionFailed: failure });
    }
    let priced = false;
    let rulesBefore: SettingsSnapshot | undefined;
    act?.action.apply?.(id, act.content, now, {
      setPrice: (args) => {
        applyPrice(args, now);
        priced = true;
      },
      updateConfig: (change) => {
        // Decision G52: the rules this change replaces, kept with the proposal so its result reads before → after.
        rulesBefore ??= settingsSnapshot(config());
        stores.config.set('config', change(config()));
        emit(now, { ConfigChanged: { proposal_id: id } });
      },
    });
    transition(rulesBefore ? { ...p, rules_before: rulesBefore } : p, 'Executed', now);
    if (priced) await tellCampaigns();
    return Ok(null);
  };

  /**
   * Decision G50: the campaign canister reads the ratified price in the step that stored it, so a
   * campaign's USD progress follows at once instead of at its next 10-minute refresh. Called after
   * every write of the execution (the call is a commit point: the execution stands whatever the call
   * does); a refused or failed call changes nothing here, and the campaign's timer is the fallback.
   */
  const tellCampaigns = async (): Promise<void> => {
    try {
      await deps.campaign?.refresh_price();
    } catch {
      // The campaign canister is stopped, upgrading or not configured: its timer reads the price later.
    }
  };

  return { applyPrice, execute };
}

/**
 * Decision G52: the stored rules (what an amendment changes), not get_settings' development-host
 * windows (decision G45), so before and after are in the same terms as the amendment's payload.
 */
export function settingsSnapshot(c: GovernanceConfig): SettingsSnapshot {
  return {
    rules: CATEGORIES.map((category) => ({
      category,
      quorum_bps: c.rules[category].quorumBps,
      threshold_bps: c.rules[category].thresholdBps,
      voting_window: c.rules[category].votingWindowNs,
    })),
    voting_delay: c.voting_delay,
    execution_window: c.execution_window,
  };
}

export type ProposalExecution = ReturnType<typeof proposalExecution>;
