// How an embedded platform is opened: in a file of its own because both the platform (platform.ts) and the wiring of
// its cores (cores.ts) read it, and neither may import the other (decision S35).
import type { Account } from '@domdao/canister-kit';
import type { DevVoting } from '@domdao/canister-governance';
import type { CanisterName } from '../api.ts';

export interface EmbeddedPlatformOptions {
  /** Directory of durable state; in memory when absent. */
  dir?: string;
  /** Default true: every acknowledged update is fsynced first, with group commit (decision P1). */
  fsync?: boolean;
  /** IC time in nanoseconds; the wall clock by default. Tests pass a controllable one. */
  clock?: () => bigint;
  /** Used on first open only (later opens keep the stored configuration). */
  admins?: string[];
  /** Governance admins besides `admins` (first open only): the bridge, so it can read votes for platform admins (decision V22). */
  governanceAdmins?: string[];
  /** The bridge's principal(s): user canister registrars and trusted governance proposers. */
  registrars?: string[];
  trustedProposers?: string[];
  /** Run the timers (default true). Tests that drive time themselves call tick(). */
  scheduler?: boolean;
  /** Longest scheduler sleep in ms (default 60 000): it also wakes at the next known due time. */
  schedulerMaxSleepMs?: number;
  /** Test-only fault injection: throw to make an inter-canister call fail as a rejected call would. */
  interceptCall?: (from: CanisterName, to: CanisterName, method: string) => void;
  /**
   * Test-only fault injection after the callee has run and committed: throw to lose the reply, as a
   * caller that traps (or a host that crashes) after the call would (decision L10).
   */
  interceptReply?: (from: CanisterName, to: CanisterName, method: string) => void;
  /**
   * The DOM ledger on first open (decision L9): fee (default 10 000 e8s), the initial distribution, and
   * archive mode for tests of ICRC-3 clients (decision L43: only the newest `localBlocks` blocks answered
   * by icrc3_get_blocks itself).
   */
  ledger?: { transferFee?: bigint; initialBalances?: Array<[Account, bigint]>; archive?: { localBlocks: bigint } };
  /** Scheduler errors (a step that threw); default: written to stderr. */
  onSchedulerError?: (err: unknown) => void;
  /**
   * Development only (decision G45): the voting delay and window, in nanoseconds, of proposals created
   * while this platform is open (every open; not stored). The built wasm has no such option.
   */
  devVoting?: DevVoting;
}
