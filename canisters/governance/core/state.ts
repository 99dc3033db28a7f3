// What the governance core's parts share: its configuration, counters, the admin event log, who is
// who (admins, trusted proposers), and recording a proposal's status changes (each one logged).
import { compositeKey, u64Key } from '@domdao/canister-kit';
import { settleSteps } from './lifecycle.ts';
import { receiptsApi } from './receipts.ts';
import {
  TERMINAL,
  type AdminEventKind,
  type GovernanceConfig,
  type GovernanceStores,
  type ProposalRecord,
  type ProposalStatus,
} from './types.ts';

export function governanceState(stores: GovernanceStores) {
  const config = (): GovernanceConfig => {
    const c = stores.config.get('config');
    if (!c) throw new Error('governance canister not initialised');
    return c;
  };
  const nextId = (name: string): bigint => {
    const id = stores.counters.get(name) ?? 1n;
    stores.counters.set(name, id + 1n);
    return id;
  };
  const emit = (now: bigint, kind: AdminEventKind) => {
    const id = nextId('event');
    stores.events.set(id, { id, at: now, kind });
  };
  const voteKey = (proposalId: bigint, voter: string) => compositeKey(u64Key(proposalId), voter);
  const isAdmin = (p: string) => config().admins.includes(p);
  const isTrusted = (p: string) => config().trusted_proposers.includes(p);
  const receipts = receiptsApi(stores);

  /** Stores the status after `steps` and logs each of them; a terminal status queues the receipts for burning. */
  const record = (p: ProposalRecord, steps: Array<[ProposalStatus, ProposalStatus]>, now: bigint): ProposalRecord => {
    if (steps.length === 0) return p;
    const to = steps.at(-1)![1];
    const next: ProposalRecord = { ...p, status: to, receipts_pending: p.receipts_pending || TERMINAL.has(to) };
    stores.proposals.set(p.id, next);
    for (const [from, step] of steps) emit(now, { StatusChanged: { proposal_id: p.id, from, to: step } });
    return next;
  };
  /** Records the time-driven transitions due at `now` (the snapshot, if one is due, is already on `p`). */
  const settle = (p: ProposalRecord, now: bigint) => record(p, settleSteps(p, now), now);
  const transition = (p: ProposalRecord, to: ProposalStatus, now: bigint) => record(p, [[p.status, to]], now);

  /**
   * The record as the window opens (decisions G23, G31): the quorum base and its instant, and the
   * delegated votes to count after close if anyone has ever delegated.
   */
  const opened = (p: ProposalRecord, snapshot: { count: bigint; at: bigint }): ProposalRecord => ({
    ...p,
    total_eligible: snapshot.count,
    eligible_at: snapshot.at,
    ...(stores.delegating.size > 0 && { delegation_pending: true }),
  });

  return { config, nextId, emit, voteKey, isAdmin, isTrusted, receipts, record, settle, transition, opened };
}

export type GovernanceState = ReturnType<typeof governanceState>;
