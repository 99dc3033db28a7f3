// The governance canister's admin events (decision G13) as in-bridge events (decision V3). Ids and
// nanosecond times are decimal strings (JSON has no bigint).
import type { CanisterClients } from '@domdao/canisters';

export type AdminEvent = Awaited<ReturnType<CanisterClients['governance']['list_admin_events']>>[number];

export interface StatusChange {
  proposal_id: string;
  from: string;
  to: string;
}

export interface GovernanceEventMap {
  ProposalCreated: { proposal_id: string; category: string; proposed_by: string };
  /** Voting opened (Created → Open). */
  ProposalOpened: StatusChange;
  /** The window closed and the votes were counted (Open → Tallied). */
  ProposalTallied: StatusChange;
  ProposalApproved: StatusChange;
  ProposalRejected: StatusChange;
  ProposalExecuted: StatusChange;
  /** Approved but not executed within the execution window. */
  ProposalExpired: StatusChange;
  /** A SetDomPrice proposal was executed: the ratified price. `effective_at`/`expires_at` in ns. */
  PriceUpdated: {
    proposal_id: string;
    price_usd: number;
    effective_at: string;
    expires_at?: string;
    source_url?: string;
  };
  ExecutionFailed: { proposal_id: string; attempt: number; message: string };
  ConfigChanged: { proposal_id: string };
}

export type GovernanceEvent = {
  [K in keyof GovernanceEventMap]: { type: K; data: GovernanceEventMap[K] };
}[keyof GovernanceEventMap];

const STATUS_EVENT = {
  Open: 'ProposalOpened',
  Tallied: 'ProposalTallied',
  Approved: 'ProposalApproved',
  Rejected: 'ProposalRejected',
  Executed: 'ProposalExecuted',
  Expired: 'ProposalExpired',
} as const;

/** Undefined for a kind the bridge does not know (a newer canister): the follower records and skips it. */
export function governanceEvent(e: AdminEvent): GovernanceEvent | undefined {
  const k = e.kind;
  if ('ProposalCreated' in k)
    return {
      type: 'ProposalCreated',
      data: {
        proposal_id: String(k.ProposalCreated.proposal_id),
        category: k.ProposalCreated.category,
        proposed_by: k.ProposalCreated.proposed_by,
      },
    };
  if ('StatusChanged' in k) {
    const { proposal_id, from, to } = k.StatusChanged;
    const type = STATUS_EVENT[to as keyof typeof STATUS_EVENT];
    return type ? { type, data: { proposal_id: String(proposal_id), from, to } } : undefined;
  }
  if ('PriceUpdated' in k) {
    const p = k.PriceUpdated;
    return {
      type: 'PriceUpdated',
      data: {
        proposal_id: String(p.proposal_id),
        price_usd: p.price_usd,
        effective_at: String(p.effective_at),
        ...(p.expires_at !== undefined && { expires_at: String(p.expires_at) }),
        ...(p.source_url !== undefined && { source_url: p.source_url }),
      },
    };
  }
  if ('ExecutionFailed' in k)
    return {
      type: 'ExecutionFailed',
      data: {
        proposal_id: String(k.ExecutionFailed.proposal_id),
        attempt: k.ExecutionFailed.attempt,
        message: k.ExecutionFailed.message,
      },
    };
  if ('ConfigChanged' in k)
    return { type: 'ConfigChanged', data: { proposal_id: String(k.ConfigChanged.proposal_id) } };
  return undefined;
}
