// Confirming a verification link (decisions B25, B51, B86): the live, unverified account a link belongs
// to, the proof (the registered password, or a new one with the owner's own answers, start-afresh.ts),
// then the verification through the outbox; the earlier sessions end and the confirmer is signed in.
// routes.ts serves the link's pages and the JSON endpoint that call it.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { HttpError } from '../../core/http/errors.ts';
import { OP, tokenHash, userAggregate, verifyOpId, type VerifyAnswer } from '../../core/outbox/user-operations.ts';
import type { VerificationContext } from './context.ts';
import type { Answers } from './owner-answers.ts';
import { signInAfterVerification } from './sign-in.ts';
import { startAfresh } from './start-afresh.ts';

export type Proof = { password: string } | { new_password: string; answers: Answers };
export type Confirmed = {
  status: 'verified';
  membership_token_pending: boolean;
  password: 'confirmed' | 'chosen';
  signed_in: boolean;
};

export const invalidLink = () =>
  new HttpError(
    400,
    'VERIFICATION_LINK_INVALID',
    'this verification link is not valid or was already used; sign in, or ask for a new link',
  );

/** The unverified account a live link belongs to; the refusal otherwise (decision B51). */
export async function pendingAccount(ctx: VerificationContext, token: string) {
  const owner = await ctx.db
    .selectFrom('users')
    .select(['id', 'principal', 'password_hash', 'email_encrypted', 'verification_expires_at'])
    .where('verification_token_hash', '=', tokenHash(token))
    .where('email_verified_at', 'is', null)
    .executeTakeFirst();
  if (!owner) {
    // A link whose verification finished (the hash is cleared then) was used; anything else was never issued.
    const used = (await ctx.outbox.list({ opId: verifyOpId(token) }))[0]?.state === 'done';
    throw used
      ? new HttpError(
          400,
          'VERIFICATION_LINK_USED',
          'this verification link was already used: the address is verified; sign in',
        )
      : invalidLink();
  }
  if (owner.verification_expires_at !== null && new Date(owner.verification_expires_at).getTime() <= ctx.now()) {
    throw new HttpError(
      400,
      'VERIFICATION_LINK_EXPIRED',
      'this verification link has expired (links last 24 hours); ask for a new one from the sign-in page',
    );
  }
  return owner;
}

/** Every refusal of a confirmation is audited (the wrong password as its own event, below); never the token nor an answer (decision B61). */
export async function audited<T>(ctx: VerificationContext, req: FastifyRequest, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (e) {
    if (e instanceof HttpError && e.code !== 'INVALID_CREDENTIALS')
      await ctx.audit.record(req, { event: 'verification.refused', outcome: 'failure', detail: { error: e.code } });
    throw e;
  }
}

/** Checks the proof, then verifies through the outbox; every earlier session of the account ends (B51) and the confirmer is signed in (B105). */
export const confirmVerification = (
  ctx: VerificationContext,
  token: string,
  proof: Proof,
  req: FastifyRequest,
  reply: FastifyReply,
): Promise<Confirmed> => audited(ctx, req, () => confirmOnce(ctx, token, proof, req, reply));

async function confirmOnce(
  ctx: VerificationContext,
  token: string,
  proof: Proof,
  req: FastifyRequest,
  reply: FastifyReply,
): Promise<Confirmed> {
  const log = req.log;
  const owner = await pendingAccount(ctx, token);
  const opId = verifyOpId(token);
  let chosen = false;
  let accountId = owner.id;
  if ('password' in proof) {
    // Guesses are counted per link: only the mailbox holds it, and whoever does not know the password starts afresh
    // below.
    const key = `verify:${tokenHash(token).toString('hex')}`;
    const wait = await ctx.throttle.reserve([
      { key, limit: ctx.config.LOGIN_MAX_FAILURES, windowMs: ctx.config.LOGIN_WINDOW_MINUTES * 60_000 },
    ]);
    if (wait > 0)
      throw new HttpError(
        429,
        'TOO_MANY_ATTEMPTS',
        `too many wrong passwords; try again in ${wait} seconds, or choose a new password`,
        {
          'retry-after': String(wait),
        },
      );
    if (!(await ctx.passwords.verify(owner.password_hash, proof.password))) {
      await ctx.audit.record(req, {
        event: 'verification.password_refused',
        subject: owner.id,
        outcome: 'failure',
        detail: { error: 'INVALID_CREDENTIALS' },
      });
      throw new HttpError(
        401,
        'INVALID_CREDENTIALS',
        'this is not the password this account was registered with; if you did not choose it, choose a new password',
      );
    }
    await ctx.throttle.clear(key);
    // Decision B86: an account started afresh is verified by its own creation, once the canister answers.
    if (await ctx.outbox.pending(userAggregate(owner.id), OP.createConfirmedAccount))
      throw new HttpError(
        503,
        'VERIFICATION_UNAVAILABLE',
        'your account is still being created; open the link again in a few minutes',
      );
    await ctx.db.transaction().execute(async (tx) => {
      await ctx.outbox.enqueue(tx, {
        operation: OP.verifyEmail,
        opId,
        aggregate: userAggregate(owner.id),
        payload: { token, request_id: req.id },
      });
      // Under the aggregate's lock: a start afresh (B86) that removed the registration meanwhile wins.
      const still = await tx
        .selectFrom('users')
        .select('id')
        .where('id', '=', owner.id)
        .where('email_verified_at', 'is', null)
        .where('verification_token_hash', '=', tokenHash(token))
        .executeTakeFirst();
      if (!still) throw invalidLink();
    });
  } else {
    ({ userId: accountId } = await startAfresh(ctx, {
      token,
      registration: owner,
      newPassword: proof.new_password,
      answers: proof.answers,
      req,
      invalid: invalidLink,
    }));
    chosen = true;
  }
  const outcome = await ctx.outbox.run<VerifyAnswer>(opId);
  if (outcome.state !== 'done') {
    log.error({ event: 'canister.unavailable', canister: 'user', err: outcome.error }, 'verify_email failed');
    throw new HttpError(
      503,
      'VERIFICATION_UNAVAILABLE',
      'we could not verify your email right now; open the link again in a few minutes',
    );
  }
  const r = outcome.result;
  if ('Err' in r) {
    if ('TokenExpired' in r.Err)
      throw new HttpError(
        400,
        'VERIFICATION_LINK_EXPIRED',
        'this verification link has expired (links last 24 hours); ask for a new one from the sign-in page',
      );
    throw invalidLink();
  }
  // Whoever controls the mailbox is now in sole control: no session made before this moment lives on.
  const ended = await ctx.sessions.destroyAllFor(accountId);
  const session = await signInAfterVerification(ctx, req, reply, accountId);
  await ctx.audit.record(req, {
    event: 'verification.completed',
    actor: accountId,
    // Decision B86: the registration the owner's account replaced.
    ...(chosen && { subject: owner.id }),
    outcome: 'success',
    detail: {
      proof: chosen ? 'new_password' : 'registered_password',
      sessions_ended: ended,
      signed_in: session.signed_in,
      ...(!session.signed_in && { no_session: session.reason }),
      ...(chosen && { started_afresh: true }),
    },
  });
  return {
    status: 'verified',
    membership_token_pending: r.Ok.membership_token_id === undefined,
    password: chosen ? 'chosen' : 'confirmed',
    signed_in: session.signed_in,
  };
}
