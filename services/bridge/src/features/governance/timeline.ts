// A proposal's timeline (decision V30, issue 35 item 1): created, voting opens, closes, counted,
// approved or rejected, executed / execution failed / expired, each with the time it happened (the
// governance admin event the follower copied, decision V3) or, while it is still ahead, the time
// planned for it (the proposal's own times; the execution deadline from the canister, G46). Public, as
// the proposal itself: the events it shows carry nothing the proposal's page does not.
import { sql } from 'kysely';
import type { Db } from '../../core/db/schema.ts';

/** Execution failures listed (the newest); a member may ask for execution any number of times, each failure is an event. */
export const FAILURES_SHOWN = 5;

export type StepKind =
  | 'created'
  | 'opens'
  | 'closes'
  | 'tallied'
  | 'approved'
  | 'rejected'
  | 'result'
  | 'execution_failed'
  | 'executed'
  | 'price_updated'
  | 'config_changed'
  | 'expired'
  | 'execution_deadline';

export interface Step {
  kind: StepKind;
  /** When it happened (the event's time, or the proposal's time for it when no event was copied yet), or when it is planned. */
  at: string;
  /** False: `at` is a planned time still ahead. */
  done: boolean;
  /** The admin event that recorded it, as GET /api/governance/admin/events shows it; null when none (yet). */
  event: { id: string; type: string; data: unknown } | null;
}

export interface TimelineProposal {
  id: string;
  status: string;
  created_at: string;
  voting_opens: string;
  voting_closes: string;
}

interface Row {
  seq: string;
  type: string;
  data: unknown;
  source_id: string;
  occurred_at: Date;
}

/** Every governance event of one proposal but its execution failures (a handful), and the newest failures with their count. */
async function proposalEvents(db: Db, id: string): Promise<{ events: Row[]; failures: Row[]; failureCount: number }> {
  const base = () =>
    db
      .selectFrom('bridge_events')
      .select(['seq', 'type', 'data', 'source_id', 'occurred_at'])
      .where('source', '=', 'governance')
      .where(sql<string>`data->>'proposal_id'`, '=', id);
  const [events, failures, count] = await Promise.all([
    // At most one event per status change, one creation, one price or configuration change: 20 is room enough.
    base().where('type', '!=', 'ExecutionFailed').orderBy('seq').limit(20).execute(),
    base().where('type', '=', 'ExecutionFailed').orderBy('seq', 'desc').limit(FAILURES_SHOWN).execute(),
    db
      .selectFrom('bridge_events')
      .select(sql<string>`count(*)::text`.as('n'))
      .where('source', '=', 'governance')
      .where(sql<string>`data->>'proposal_id'`, '=', id)
      .where('type', '=', 'ExecutionFailed')
      .executeTakeFirstOrThrow(),
  ]);
  return { events, failures: (failures as Row[]).reverse(), failureCount: Number(count.n) };
}

const APPROVED = new Set(['Approved', 'Executed', 'Expired']);
const CLOSED = new Set(['Tallied', 'Approved', 'Rejected', 'Executed', 'Expired']);

export async function proposalTimeline(
  db: Db,
  p: TimelineProposal,
  executionDeadline: string | null,
): Promise<{ proposal_id: string; status: string; steps: Step[]; execution_failures: string }> {
  const { events, failures, failureCount } = await proposalEvents(db, p.id);
  const view = (r: Row) => ({ id: `governance:${r.source_id}`, type: r.type, data: r.data });
  const first = (type: string) => events.find((e) => e.type === type);
  const done = (kind: StepKind, type: string | undefined, fallback: string): Step => {
    const e = type === undefined ? undefined : first(type);
    return { kind, at: e ? e.occurred_at.toISOString() : fallback, done: true, event: e ? view(e) : null };
  };
  const planned = (kind: StepKind, at: string): Step => ({ kind, at, done: false, event: null });

  const steps: Step[] = [done('created', 'ProposalCreated', p.created_at)];
  steps.push(
    p.status === 'Created' ? planned('opens', p.voting_opens) : done('opens', 'ProposalOpened', p.voting_opens),
  );
  const closed = CLOSED.has(p.status);
  steps.push(closed ? done('closes', undefined, p.voting_closes) : planned('closes', p.voting_closes));
  const tallied = closed ? done('tallied', 'ProposalTallied', p.voting_closes) : planned('tallied', p.voting_closes);
  steps.push(tallied);
  if (p.status === 'Rejected') steps.push(done('rejected', 'ProposalRejected', tallied.at));
  else if (APPROVED.has(p.status)) steps.push(done('approved', 'ProposalApproved', tallied.at));
  else steps.push(planned('result', p.voting_closes));
  if (p.status === 'Rejected')
    return { proposal_id: p.id, status: p.status, steps, execution_failures: String(failureCount) };

  for (const f of failures)
    steps.push({ kind: 'execution_failed', at: f.occurred_at.toISOString(), done: true, event: view(f) });
  const approvedAt = steps.at(-1)!.at;
  if (p.status === 'Executed') {
    const executed = done('executed', 'ProposalExecuted', approvedAt);
    steps.push(executed);
    // What the execution did, recorded in the same step (spec 1 SetDomPrice rule 3; a ConstitutionalAmendment).
    for (const [kind, type] of [
      ['price_updated', 'PriceUpdated'],
      ['config_changed', 'ConfigChanged'],
    ] as const)
      if (first(type)) steps.push(done(kind, type, executed.at));
  } else if (p.status === 'Expired') steps.push(done('expired', 'ProposalExpired', executionDeadline ?? approvedAt));
  else if (executionDeadline !== null) steps.push(planned('execution_deadline', executionDeadline));
  return { proposal_id: p.id, status: p.status, steps, execution_failures: String(failureCount) };
}
