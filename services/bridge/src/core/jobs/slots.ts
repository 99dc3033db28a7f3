// When a job is due (decision V16): time is cut into slots of `everyMs` starting at the Unix epoch
// plus `offsetMs`; each slot is run once. Pure, so the schedule is testable without a clock.

export interface Schedule {
  everyMs: number;
  offsetMs?: number | undefined;
}

/** Start (Unix ms) of the slot containing `now`. */
export function slotStart(s: Schedule, now: number): number {
  const offset = s.offsetMs ?? 0;
  return Math.floor((now - offset) / s.everyMs) * s.everyMs + offset;
}

/** The slot's key in job_runs: its start as ISO-8601, so a run names the instant it stands for. */
export function slotKey(start: number): string {
  return new Date(start).toISOString();
}

export function scheduleProblem(s: Schedule): string | undefined {
  if (!Number.isSafeInteger(s.everyMs) || s.everyMs < 1000)
    return 'everyMs must be an integer of at least 1000 (one second)';
  const offset = s.offsetMs ?? 0;
  if (!Number.isSafeInteger(offset) || offset < 0 || offset >= s.everyMs)
    return 'offsetMs must be an integer in [0, everyMs)';
  return undefined;
}
