// The governance canister's timer, declared once for its Azle entry point and the embedded platform:
// a scheduler step (transitions, executions, receipt burning) at least every minute.
export const GOVERNANCE_TICK_SECONDS = 60;
