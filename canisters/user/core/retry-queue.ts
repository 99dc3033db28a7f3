// The mint retry queue (spec 2 Limits "mint retry", "RetryQueueItem"): a Registered membership that
// could not be minted at verification is retried every 5 minutes with exponential backoff, at most
// 10 attempts, then an admin notification (membership_mint_failed) is raised.
import { clampLimit, type CallContext } from '@domdao/canister-kit';
import type { UserAccess } from './access.ts';
import {
  MAX_ATTEMPTS,
  RETRY_BASE,
  type AccountRecord,
  type AdminNotification,
  type RetryQueueItem,
  type UserConfig,
  type UserDeps,
  type UserStores,
} from './types.ts';

/** list_retry_queue answers at most this many items (decision W6). */
export const RETRY_QUEUE_LIST_MAX = 1_000;
/** A step of process_retry_queue reads at most this many queued items (decision U8). */
export const RETRY_STEP_READ = 200;

const withoutCursor = ({ retry_cursor: _, ...rest }: UserConfig): UserConfig => rest;

export type MintOutcome = { Ok: bigint } | { Err: string };

/** Spec 2 "mint retry": the n-th failure waits 5 min × 2^(n−1) before the next attempt. */
export function retryDelay(attempts: number): bigint {
  return RETRY_BASE * 2n ** BigInt(Math.max(0, attempts - 1));
}

export function mintRetryQueue(stores: UserStores, deps: Pick<UserDeps, 'membership'>, access: UserAccess) {
  /** One mint attempt; an "already exists" answer means an earlier attempt succeeded (its reply was lost). */
  const mint = async (a: AccountRecord): Promise<MintOutcome> => {
    try {
      const r = await deps.membership.mint_membership_registered(a.principal, a.tos_accepted_at);
      if ('Ok' in r) return r;
      const existing = await deps.membership.get_membership_status(a.principal);
      return existing ? { Ok: existing.token_id } : r;
    } catch (e) {
      return { Err: `membership canister unavailable: ${e instanceof Error ? e.message : String(e)}` };
    }
  };

  /** Records a mint outcome (after its awaits): token id on the account, or the retry queue / notification. */
  const recordMint = (principal: string, outcome: MintOutcome, now: bigint, attempts: number): bigint | undefined => {
    const a = stores.accounts.get(principal)!;
    if ('Ok' in outcome) {
      stores.accounts.set(principal, { ...a, membership_token_id: outcome.Ok, updated_at: now });
      stores.retries.delete(principal);
      return outcome.Ok;
    }
    if (attempts >= MAX_ATTEMPTS) {
      stores.retries.delete(principal);
      const id = stores.counters.get('notification') ?? 1n;
      stores.counters.set('notification', id + 1n);
      stores.notifications.set(id, {
        id,
        type: 'membership_mint_failed',
        user_principal: principal,
        email_encrypted: a.email_encrypted,
        attempts,
        last_error: outcome.Err,
        at: now,
      });
      return undefined;
    }
    stores.retries.set(principal, {
      user_principal: principal,
      operation: 'MintRegistered',
      attempts,
      last_attempt: now,
      next_attempt: now + retryDelay(attempts),
      last_error: outcome.Err,
    });
    return undefined;
  };

  return {
    mint,
    recordMint,
    /** The queue's canister methods. */
    methods: {
      /**
       * The scheduler's step (every 5 minutes): retries due mints with exponential backoff. It reads at
       * most RETRY_STEP_READ items, after the cursor where the last step stopped (in principal order,
       * starting over at the end), so a queue grown in a long outage costs each step the same (decision U8).
       */
      async process_retry_queue(ctx: CallContext): Promise<number> {
        const config = stores.config.get('config')!;
        const cursor = config.retry_cursor;
        const items = (from: string | undefined, limit: number) =>
          Array.from(stores.retries.entries({ ...(from !== undefined && { from }), limit }), ([, v]) => v);
        const read =
          cursor === undefined
            ? items(undefined, RETRY_STEP_READ)
            : items(cursor, RETRY_STEP_READ + 1)
                .filter((r) => r.user_principal !== cursor)
                .slice(0, RETRY_STEP_READ);
        // Past the end, the read goes on from the start up to the cursor.
        if (cursor !== undefined && read.length < RETRY_STEP_READ)
          read.push(...items(undefined, RETRY_STEP_READ - read.length).filter((r) => r.user_principal <= cursor));
        // A read short of the budget has seen every item: the next step starts at the start.
        const next = read.length === RETRY_STEP_READ ? read[read.length - 1]!.user_principal : undefined;
        if (next !== cursor)
          stores.config.set('config', next === undefined ? withoutCursor(config) : { ...config, retry_cursor: next });
        const due = read.filter((r) => r.next_attempt <= ctx.now);
        for (const item of due) {
          const a = stores.accounts.get(item.user_principal);
          if (!a) {
            stores.retries.delete(item.user_principal);
            continue;
          }
          const outcome = await mint(a);
          const current = stores.retries.get(item.user_principal);
          if (!current || current.attempts !== item.attempts) continue; // handled meanwhile
          recordMint(item.user_principal, outcome, ctx.now, item.attempts + 1);
        }
        return due.length;
      },

      next_retry_at(_ctx: CallContext): bigint | undefined {
        let next: bigint | undefined;
        for (const [, r] of stores.retries.entries())
          if (next === undefined || r.next_attempt < next) next = r.next_attempt;
        return next;
      },

      list_retry_queue(ctx: CallContext): RetryQueueItem[] {
        if (!access.isStaff(ctx.caller)) return [];
        // The first RETRY_QUEUE_LIST_MAX in principal order: bounded however long an outage (decision W6).
        return Array.from(stores.retries.entries({ limit: RETRY_QUEUE_LIST_MAX }), ([, v]) => v);
      },

      /** Admin notifications (membership_mint_failed) after `after_id`, oldest first; the bridge delivers them. */
      list_admin_notifications(ctx: CallContext, after_id?: bigint, limit?: number): AdminNotification[] {
        const n = clampLimit(limit, 20, 100);
        if (!access.isStaff(ctx.caller) || n === 0) return [];
        return Array.from(stores.notifications.entries({ limit: n, from: (after_id ?? 0n) + 1n }), ([, v]) => v);
      },
    },
  };
}

export type MintRetryQueue = ReturnType<typeof mintRetryQueue>;
