// Decision B86: a registration confirmed by someone who did not choose its password starts afresh.
// Whoever holds the mailbox but not the registration's password is not the registrant: nothing the
// registrant typed (name, date of birth and so is_minor, the terms they accepted, their password) is
// kept. The registration goes as a replaced one goes (decision B51: its row, and its user canister
// account through the outbox), and a new account is made from the owner's answers alone; create_account's
// answer enqueues the link's verification with the new account's token, so the owner's one
// confirmation verifies it. The membership canister holds nothing before a verification.
import { randomUUID } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { VerificationContext } from './context.ts';
import { readAnswers, type Answers } from './owner-answers.ts';
import { HttpError } from '../../core/http/errors.ts';
import { chosenAtJoin, defaultDisplayName, nameTaken } from '../../core/identity/display-names.ts';
import { reservedKeys } from '../../core/identity/display-name-rules.ts';
import { nameIndex } from '../../core/identity/registration-name-index.ts';
import { isUniqueViolation } from '../../core/db/errors.ts';
import { memberPrincipal } from '../../core/identity/member-identity.ts';
import { passwordProblem } from '@domdao/registration/password-policy';
import {
  OP,
  refusal,
  removeUnverifiedUser,
  tokenHash,
  userAggregate,
  verifyOpId,
  type CreateAccountAnswer,
  type CreateConfirmedPayload,
} from '../../core/outbox/user-operations.ts';

export interface Registration {
  id: string;
  principal: string;
  email_encrypted: string;
  verification_expires_at: Date | string | null;
}

const unavailable = (message: string) => new HttpError(503, 'VERIFICATION_UNAVAILABLE', message);

/** Replaces the link's registration by the owner's account; returns the new account's id once it exists. */
export async function startAfresh(
  ctx: VerificationContext,
  o: {
    token: string;
    registration: Registration;
    newPassword: string;
    answers: Answers;
    req: FastifyRequest;
    invalid: () => HttpError;
  },
): Promise<{ userId: string }> {
  const { token, registration: old, req } = o;
  const answers = await readAnswers(ctx, o.answers);
  const email = (await ctx.opener.open('email', old.email_encrypted)).trim();
  const weak = passwordProblem(o.newPassword, email);
  if (weak) throw new HttpError(400, 'WEAK_PASSWORD', `${weak} (12 to 128 characters; long passphrases are welcome)`);
  // Decision F47: the owner's display name, by the profile's rules; the registration replaced does not hold it.
  const chosen =
    answers.display_name === undefined
      ? undefined
      : await chosenAtJoin(ctx.db, answers.display_name, reservedKeys(ctx.config.BRAND_DAO_NAME), old.id);
  if (chosen && 'refused' in chosen)
    throw new HttpError(chosen.refused.status, chosen.refused.code, chosen.refused.message);
  // A registration still being created, or an account of this link being made already, finishes first.
  if (await ctx.outbox.pending(userAggregate(old.id)))
    throw unavailable('a confirmation of this link is still being finished; open the link again in a few minutes');
  // Escrow keeps its user (decision B26): such a registration is not the owner's to discard.
  if (await ctx.db.selectFrom('payments').select('id').where('user_id', '=', old.id).executeTakeFirst())
    throw new HttpError(
      409,
      'CONFLICT',
      'this registration has a payment on record, so it cannot be started afresh; contact support',
    );

  const id = randomUUID();
  const principal = memberPrincipal(ctx.keys.memberIdentitySecret, id);
  const password_hash = await ctx.passwords.hash(o.newPassword);
  const createOp = `register:${id}`;
  const verifyOp = verifyOpId(token);
  await ctx.db
    .transaction()
    .execute(async (tx) => {
      // The registration, locked against a second start afresh of the same link.
      const still = await tx
        .selectFrom('users')
        .select('email_index')
        .where('id', '=', old.id)
        .where('email_verified_at', 'is', null)
        .where('verification_token_hash', '=', tokenHash(token))
        .forUpdate()
        .executeTakeFirst();
      if (!still) throw o.invalid();
      await removeUnverifiedUser(
        ctx.outbox,
        tx,
        old,
        'the mailbox owner chose a new password: the registration starts afresh from their answers (decision B86)',
      );
      // Under the registration's aggregate lock (taken by the enqueue above): a confirmation with its
      // password committed first is seen here; one after this commit finds the registration gone.
      const earlier = await tx
        .selectFrom('bridge_outbox')
        .select('state')
        .where('op_id', '=', verifyOp)
        .executeTakeFirst();
      if (earlier?.state === 'pending')
        throw unavailable('a confirmation of this link is still being finished; open the link again in a few minutes');
      // Finished without verifying (the user canister refused this link): the link is dead.
      if (earlier) throw o.invalid();
      await tx
        .insertInto('users')
        .values({
          id,
          principal,
          default_name: defaultDisplayName(principal),
          email_index: still.email_index,
          email_encrypted: old.email_encrypted,
          name_encrypted: answers.name_encrypted,
          dob_encrypted: answers.dob_encrypted,
          name_index: nameIndex(ctx.keys.blindIndexKey, answers.name),
          ...(chosen && { display_name: chosen.name, display_name_key: chosen.key }),
          password_hash,
          is_minor: answers.age < 18,
          roles: [],
          created_at: new Date(ctx.now()),
          // The link stays this account's until its verification clears it.
          verification_token_hash: tokenHash(token),
          verification_expires_at: old.verification_expires_at,
        })
        .execute();
      const payload: CreateConfirmedPayload = {
        user_id: id,
        principal,
        email_encrypted: old.email_encrypted,
        name_encrypted: answers.name_encrypted,
        dob_encrypted: answers.dob_encrypted,
        password_hash,
        tos_accepted_at: BigInt(ctx.now()) * 1_000_000n - 1n,
        is_age_verified_18_plus: answers.age >= 18,
        verify_op_id: verifyOp,
        request_id: req.id,
      };
      await ctx.outbox.enqueue(tx, {
        operation: OP.createConfirmedAccount,
        opId: createOp,
        aggregate: userAggregate(id),
        payload,
      });
    })
    .catch((e: unknown) => {
      // Another account took the name meanwhile (decision F47).
      if (isUniqueViolation(e) && (e as { constraint?: string }).constraint === 'users_display_name_key_unique') {
        const r = nameTaken(true);
        throw new HttpError(r.status, r.code, r.message);
      }
      throw e;
    });
  void ctx.outbox.run(`remove:${old.id}`).catch(() => undefined);
  req.log.info(
    { event: 'verification.started_afresh', user_id: id, replaced: old.id },
    "a registration was replaced by the mailbox owner's answers",
  );
  const created = await ctx.outbox.run<CreateAccountAnswer>(createOp);
  if (created.state === 'pending') {
    req.log.error({ event: 'canister.unavailable', canister: 'user', err: created.error }, 'create_account failed');
    // The account and its verification finish by themselves (the outbox tries again).
    throw unavailable(
      'your answers are saved, but we could not finish creating your account right now; open the link again in a few minutes',
    );
  }
  if (created.state === 'compensated')
    throw new HttpError(
      502,
      'ACCOUNT_NOT_CREATED',
      `the account could not be created (${created.error}); register again`,
    );
  if ('Err' in created.result)
    throw new HttpError(
      502,
      'ACCOUNT_NOT_CREATED',
      `the user canister refused the account (${refusal(created.result.Err)}); register again`,
    );
  return { userId: id };
}
