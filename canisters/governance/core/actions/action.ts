// What an approved proposal's payload does, in the manner of SNS's validate/execute pair per action:
// one file per payload under actions/, holding its creation check beside its execution.
import type { GovernanceConfig, GovernanceDeps, GovernanceSettings, UpdateDomPriceArgs } from '../types.ts';

/** Governance's own state an action may change, once its calls have succeeded. */
export interface ActionEffects {
  /** Spec 1 SetDomPrice rules 1–3: the tick stored, set_by this canister, PriceUpdated logged. */
  setPrice(args: UpdateDomPriceArgs): void;
  /** A new configuration, and ConfigChanged logged. */
  updateConfig(change: (c: GovernanceConfig) => GovernanceConfig): void;
}

export interface ProposalAction<P> {
  /** Spec 1 "InvalidPayload at creation": why the payload is refused, or undefined. */
  check(payload: P, now: bigint, settings: GovernanceSettings): string | undefined;
  /** The calls to other canisters, all awaited before the proposal is written: the failure message, or undefined. */
  call?(proposalId: bigint, payload: P, deps: GovernanceDeps): Promise<string | undefined>;
  /** Governance's own changes, after a successful call (no awaits). */
  apply?(proposalId: bigint, payload: P, now: bigint, effects: ActionEffects): void;
}
