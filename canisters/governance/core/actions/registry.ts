// Every payload's action, by the payload variant's name: its check at creation and its execution.
import type { ProposalPayload } from '../types.ts';
import type { ProposalAction } from './action.ts';
import { constitutionalAmendment } from './constitutional-amendment.ts';
import { membershipPolicy } from './membership-policy.ts';
import { setDomPrice } from './set-dom-price.ts';
import { treasuryPayout } from './treasury-payout.ts';

type Variants<U> = U extends unknown ? { [K in keyof U]: U[K] } : never;
type PayloadOf<K extends PayloadKind> = Extract<Variants<ProposalPayload>, Record<K, unknown>>[K];
export type PayloadKind = ProposalPayload extends infer U ? (U extends unknown ? keyof U : never) : never;

export const ACTIONS: { [K in PayloadKind]: ProposalAction<PayloadOf<K>> } = {
  SetDomPrice: setDomPrice,
  TreasuryPayout: treasuryPayout,
  MembershipPolicy: membershipPolicy,
  ConstitutionalAmendment: constitutionalAmendment,
};

/** The payload's variant name. */
export function payloadKind(p: ProposalPayload): PayloadKind {
  return Object.keys(p)[0] as PayloadKind;
}

/** The payload's action and its content, untyped by variant for dispatch. */
export function actionOf(p: ProposalPayload): { action: ProposalAction<unknown>; content: unknown } {
  const kind = payloadKind(p);
  return { action: ACTIONS[kind], content: (p as Record<string, unknown>)[kind] };
}
