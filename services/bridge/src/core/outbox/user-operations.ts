// The user canister's operations as outbox handlers (decisions B24–B28):
// each call carries the row's op id (the canister answers a repeat with its first answer, U5) and each
// answer is applied to the bridge's tables in the transaction that marks the row done. Registration,
// verification, account recovery and expiry share them; payments and KYC register their own.
import { createHash } from 'node:crypto';
import type { Transaction } from 'kysely';
import type { CanisterClients } from '@domdao/canisters';
import type { Database } from '../db/schema.ts';
import type { Outbox } from './queue.ts';
import type { OutboxOp } from './types.ts';

type UserClient = CanisterClients['user'];
type CanisterResult<T> = { Ok: T } | { Err: Record<string, unknown> };

export const OP = {
  createAccount: 'user.create_account',
  verifyEmail: 'user.verify_email',
  removeUnverified: 'user.remove_unverified_account',
  setPasswordHash: 'user.set_password_hash',
  createConfirmedAccount: 'user.create_confirmed_account',
} as const;

/** The aggregate of a user's operations: they run in the order they were written (decision B21). */
export const userAggregate = (userId: string) => `user:${userId}`;
export const tokenHash = (token: string) => createHash('sha256').update(token).digest();
/** The op id of a verification link: the same link opened twice is one operation. */
export const verifyOpId = (token: string) => `verify:${tokenHash(token).toString('hex').slice(0, 40)}`;

/** The canister's refusal as one word (or `Word: detail`). */
export const refusal = (err: Record<string, unknown>) =>
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- a variant's detail is text by the .did
  Object.entries(err).map(([k, v]) => (v === null ? k : `${k}: ${String(v)}`))[0] ?? 'refused';

/** InProgress (an interleaved repeat on the IC) is not an answer: throw, so the row is tried again. */
function answer<T>(r: CanisterResult<T>): CanisterResult<T> {
  if ('Err' in r && 'InProgress' in r.Err) throw new Error('the user canister is still running this operation');
  return r;
}

export interface CreateAccountPayload {
  user_id: string;
  principal: string;
  email_encrypted: string;
  name_encrypted: string;
  dob_encrypted: string;
  password_hash: string;
  tos_accepted_at: bigint;
  is_age_verified_18_plus: boolean;
}
/**
 * Decision B86: the account the mailbox's owner starts afresh when confirming a link with a new password.
 * `verify_op_id` is the link's verification operation, enqueued with the new account's token once
 * create_account answers, so the owner's one confirmation verifies it.
 */
export interface CreateConfirmedPayload extends CreateAccountPayload {
  verify_op_id: string;
  request_id: string;
}
export type CreateAccountAnswer = CanisterResult<{ principal: string; verification_token: string; expires_at: bigint }>;
/** `request_id`: the confirming request, for the audit line of a bootstrap admin (absent in rows written before it). */
export type VerifyPayload = { token: string; request_id?: string };
export type VerifyAnswer = CanisterResult<{ principal: string; membership_token_id?: bigint }>;

export interface UserOperationDeps {
  outbox: Outbox;
  user: UserClient;
  /** Sends the verification email for a new account (decrypting its address); true when accepted. */
  sendVerification(
    op: { user_id: string; email_encrypted: string; name_encrypted: string },
    token: string,
    expiresAt: bigint,
  ): Promise<boolean>;
  /** The roles a verified user gets (member, and admin for a bootstrap address). */
  rolesOnVerification(user: { roles: string[]; email_encrypted: string }): Promise<string[]>;
  /**
   * Announces a first verification in the transaction that records it (MemberVerified, decision N13),
   * and whether it made a bootstrap admin (audited, decision B61), with the request that confirmed it.
   */
  announceVerified(
    trx: Transaction<Database>,
    userId: string,
    o: { bootstrapAdmin: boolean; requestId: string | undefined },
  ): Promise<void>;
  /** After the commit: lets the event subscribers see what was announced. */
  kickEvents(): void | Promise<void>;
  now(): number;
}

/** Removes an unverified user from the database and queues its removal from the canister (decision B26). */
export async function removeUnverifiedUser(
  outbox: Outbox,
  trx: Transaction<Database>,
  user: { id: string; principal: string },
  reason: string,
): Promise<void> {
  await trx.deleteFrom('users').where('id', '=', user.id).where('email_verified_at', 'is', null).execute();
  await outbox.enqueue(trx, {
    operation: OP.removeUnverified,
    opId: `remove:${user.id}`,
    aggregate: userAggregate(user.id),
    payload: { principal: user.principal, reason },
  });
}

export function registerUserOperations(d: UserOperationDeps): void {
  const { outbox, user } = d;

  outbox.register<CreateAccountPayload, CreateAccountAnswer, boolean>(OP.createAccount, {
    call: async (op) => {
      const { user_id: _id, ...req } = op.payload;
      return answer(await user.create_account(req, op.opId));
    },
    async apply(trx, op, r) {
      if ('Ok' in r) {
        await trx
          .updateTable('users')
          .set({
            verification_token_hash: tokenHash(r.Ok.verification_token),
            verification_expires_at: new Date(Number(r.Ok.expires_at / 1_000_000n)),
          })
          .where('id', '=', op.payload.user_id)
          .execute();
      } else {
        // Refused: the canister stored nothing, so neither does the bridge.
        await trx.deleteFrom('users').where('id', '=', op.payload.user_id).execute();
      }
    },
    // Given up (or the client was told nothing was stored): the row goes, and the canister account a
    // lost reply may have created goes too.
    compensate: (trx, op, reason) =>
      removeUnverifiedUser(outbox, trx, { id: op.payload.user_id, principal: op.payload.principal }, reason),
    after: async (op, r) =>
      'Ok' in r ? d.sendVerification(op.payload, r.Ok.verification_token, r.Ok.expires_at) : false,
  });

  outbox.register<CreateConfirmedPayload, CreateAccountAnswer>(OP.createConfirmedAccount, {
    call: async (op) => {
      const { user_id: _id, verify_op_id: _v, request_id: _r, ...req } = op.payload;
      return answer(await user.create_account(req, op.opId));
    },
    async apply(trx, op, r) {
      if ('Err' in r) {
        // Refused: the canister stored nothing, so neither does the bridge (the link dies with the row).
        await trx.deleteFrom('users').where('id', '=', op.payload.user_id).execute();
        return;
      }
      // In the transaction that records the account: the verification cannot be lost between the two.
      // The row keeps the link's token hash, so the link finds it until the verification clears it.
      await outbox.enqueue<VerifyPayload>(trx, {
        operation: OP.verifyEmail,
        opId: op.payload.verify_op_id,
        aggregate: userAggregate(op.payload.user_id),
        payload: { token: r.Ok.verification_token, request_id: op.payload.request_id },
      });
    },
    compensate: (trx, op, reason) =>
      removeUnverifiedUser(outbox, trx, { id: op.payload.user_id, principal: op.payload.principal }, reason),
  });

  outbox.register<VerifyPayload, VerifyAnswer>(OP.verifyEmail, {
    call: async (op) => answer(await user.verify_email(op.payload.token, op.opId)),
    async apply(trx, op, r) {
      if (!('Ok' in r)) return;
      const u = await trx
        .selectFrom('users')
        .select(['id', 'roles', 'email_encrypted'])
        .where('principal', '=', r.Ok.principal)
        .forUpdate()
        .executeTakeFirst();
      if (!u) return;
      const roles = await d.rolesOnVerification(u);
      const first = await trx
        .updateTable('users')
        .set({
          roles,
          email_verified_at: new Date(d.now()),
          verification_token_hash: null,
          verification_expires_at: null,
        })
        .where('id', '=', u.id)
        .where('email_verified_at', 'is', null)
        .returning('id')
        .executeTakeFirst();
      // The first verification only (the welcome email follows it, decision N13).
      if (first)
        await d.announceVerified(trx, u.id, {
          bootstrapAdmin: roles.includes('admin') && !u.roles.includes('admin'),
          requestId: op.payload.request_id,
        });
      else await trx.updateTable('users').set({ roles }).where('id', '=', u.id).execute();
    },
    after: async () => d.kickEvents(),
  });

  outbox.register<{ principal: string; reason: string }, CanisterResult<null>>(OP.removeUnverified, {
    // AccountNotFound is the goal reached (never created, or removed by an earlier attempt).
    call: async (op) => answer(await user.remove_unverified_account(op.payload.principal, op.opId)),
    apply: async () => undefined,
  });

  outbox.register<{ principal: string; password_hash: string }, CanisterResult<null>>(OP.setPasswordHash, {
    call: async (op) => answer(await user.set_password_hash(op.payload.principal, op.payload.password_hash, op.opId)),
    apply: async () => undefined,
  });
}

export type { OutboxOp };

/**
 * Decision B26: unverified registrations whose latest link has expired are removed from the database and,
 * through the outbox, from the user canister. Skipped: a user with a payment on record (escrow keeps its
 * user) or with an operation still pending (it finishes first). Returns how many were removed.
 */
export async function expireUnverifiedRegistrations(
  db: import('../db/schema.ts').Db,
  outbox: Outbox,
  now: number,
  limit = 500,
): Promise<number> {
  const due = await db
    .selectFrom('users')
    .select(['id', 'principal'])
    .where('email_verified_at', 'is', null)
    .where('verification_expires_at', '<=', new Date(now))
    .where(({ not, exists, selectFrom }) =>
      not(exists(selectFrom('payments').select('payments.id').whereRef('payments.user_id', '=', 'users.id'))),
    )
    .limit(limit)
    .execute();
  let removed = 0;
  for (const u of due) {
    if (await outbox.pending(userAggregate(u.id))) continue;
    await db
      .transaction()
      .execute((trx) =>
        removeUnverifiedUser(
          outbox,
          trx,
          u,
          'registration expired (its verification link was not used within 24 hours)',
        ),
      );
    removed++;
  }
  if (removed > 0) void outbox.reconcile().catch(() => undefined);
  return removed;
}
