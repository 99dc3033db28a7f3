// Spec 2 registration: GET /api/auth/registration-key, POST /api/auth/register.
// Rules in the spec's order: decrypt (400), age 13+ (COPPA_BLOCK, nothing stored or logged), email
// not registered (EMAIL_EXISTS, by blind index; an expired unverified registration no longer counts,
// decision B26), password strength (WEAK_PASSWORD); then the user row and the create_account operation
// in one transaction, the canister call after the commit through the outbox (decisions B20, B24), and
// the verification email (a send failure never fails it). Every refusal but COPPA_BLOCK is audited
// (decision B85).
import { randomUUID } from 'node:crypto';
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { memberPrincipal } from '../../core/identity/member-identity.ts';
import { HOUR_MS, tooMany } from '../../core/auth/brute-force.ts';
import { clientNetwork } from '../../core/auth/client-network.ts';
import type { RegistrationContext } from './context.ts';
import type { AuditDetail } from '../../core/audit/log.ts';
import { mailBudget } from '../../core/email/budget.ts';
import { HttpError } from '../../core/http/errors.ts';
import { canonicalEmail, emailBlindIndex } from '../../core/identity/email.ts';
import { passwordProblem } from '@domdao/registration/password-policy';
import { SUITE, UndecryptableError } from '../../core/identity/sealed-fields.ts';
import { ageOn, displayNameProblem } from '../../core/identity/registration-rules.ts';
import { isUniqueViolation } from '../../core/db/errors.ts';
import {
  OP,
  removeUnverifiedUser,
  userAggregate,
  type CreateAccountAnswer,
  type CreateAccountPayload,
} from '../../core/outbox/user-operations.ts';
import type { BridgeApp } from '../../core/http/typed.ts';
import { chosenAtJoin, defaultDisplayName, nameTaken } from '../../core/identity/display-names.ts';
import { reservedKeys } from '../../core/identity/display-name-rules.ts';
import { nameIndex } from '../../core/identity/registration-name-index.ts';
import { routeSchema } from '../../core/http/route-doc.ts';
import { getRegistrationKeyDoc, registerDoc } from './route-docs.ts';

const Cipher = Type.String({ minLength: 1, maxLength: 16_500 });
const RegisterBody = Type.Object(
  {
    email_encrypted: Cipher,
    name_encrypted: Cipher,
    dob_encrypted: Cipher,
    password: Type.String({ minLength: 1, maxLength: 1024 }),
    tos_accepted: Type.Literal(true),
    // Decision F47: the name other members see, in plain text (it is public); absent: the random default.
    display_name: Type.Optional(
      Type.String({
        maxLength: 128,
        description:
          'the name other members see, plain text (it is public), held to the profile\'s rules (decisions F22, B89–B91); absent: a random default such as "Amber Otter #3f2a" (decision F47)',
      }),
    ),
  },
  { additionalProperties: false },
);

export interface RegistrationOptions {
  ctx: RegistrationContext;
}

export default async function registration(app: BridgeApp, { ctx }: RegistrationOptions): Promise<void> {
  const reserved = reservedKeys(ctx.config.BRAND_DAO_NAME);
  /** What an audit row says of a refusal beyond its code: which address rule or which limit. */
  const refusalDetail = new WeakMap<HttpError, AuditDetail>();
  const refusal = (e: HttpError, detail: AuditDetail) => (refusalDetail.set(e, detail), e);

  app.get('/api/auth/registration-key', { schema: routeSchema(getRegistrationKeyDoc) }, async () => ({
    public_key: ctx.opener.publicKey,
    ...SUITE,
    info: 'domdao registration v1',
    aad: 'the field name: email, name or dob',
  }));

  app.post(
    '/api/auth/register',
    { schema: { ...routeSchema(registerDoc), body: RegisterBody } },
    async (req, reply) => {
      try {
        return await register(req, req.body, reply);
      } catch (e) {
        // Decision B85: a log line and an audit row for every refusal; an under-13 one leaves nothing (spec 2 rule 1).
        if (e instanceof HttpError && e.status < 500 && e.code !== 'COPPA_BLOCK')
          await ctx.audit.record(req, {
            event: 'registration.refused',
            outcome: e.status === 429 ? 'denied' : 'failure',
            detail: { error: e.code, ...refusalDetail.get(e) },
          });
        throw e;
      }
    },
  );

  async function register(req: FastifyRequest, body: Static<typeof RegisterBody>, reply: FastifyReply) {
    // Decision B33: per client address (an IPv6 one by its /64, B119) before any work (even decryption)...
    const byClient = await ctx.throttle.reserve([
      {
        key: `register-client:${clientNetwork(req.ip)}`,
        limit: ctx.config.REGISTRATION_LIMIT_PER_CLIENT,
        windowMs: HOUR_MS,
      },
    ]);
    if (byClient > 0) throw refusal(tooMany(byClient), { limit: 'client' });
    let typed: string, name: string, age: number;
    try {
      // The date of birth first (spec 2 rule 1): under 13 nothing else is even decrypted.
      const years = ageOn(await ctx.opener.open('dob', body.dob_encrypted), new Date(ctx.now()));
      if (years === undefined)
        throw new HttpError(400, 'VALIDATION_ERROR', 'dob must be a real date of birth, YYYY-MM-DD');
      if (years < 13) throw new HttpError(403, 'COPPA_BLOCK', 'registration requires an age of 13 or over');
      age = years;
      typed = await ctx.opener.open('email', body.email_encrypted);
      name = await ctx.opener.open('name', body.name_encrypted);
    } catch (e) {
      if (e instanceof UndecryptableError)
        throw new HttpError(
          400,
          'UNDECRYPTABLE',
          'an encrypted field could not be decrypted (tampered, or sealed to another key)',
        );
      throw e;
    }
    // Decisions B36 and B82: what the notification service would refuse is normalised or refused here,
    // so an account never exists without its verification email; the address is stored, compared and
    // mailed in one canonical form, and a look-alike of another address is refused.
    const canonical = canonicalEmail(typed);
    if (!('address' in canonical))
      throw refusal(new HttpError(400, 'VALIDATION_ERROR', canonical.message), { reason: canonical.refusal });
    const email = canonical.address;
    const nameProblem = displayNameProblem(name);
    if (nameProblem) throw refusal(new HttpError(400, 'VALIDATION_ERROR', nameProblem), { reason: 'name' });
    const index = emailBlindIndex(ctx.keys.blindIndexKey, email);
    // Decisions B26 and B51: only a verified account holds the address. An unverified registration is
    // replaced (its links die with it), so a registration made in someone else's name never keeps the
    // mailbox's owner out; one still being created (its operation pending) or with a payment on record
    // (escrow keeps its user) is left alone.
    const taken = await ctx.db
      .selectFrom('users')
      .select(['id', 'principal', 'email_verified_at', 'verification_expires_at'])
      .where('email_index', '=', index)
      .executeTakeFirst();
    const replaceable =
      taken !== undefined &&
      taken.email_verified_at === null &&
      !(await ctx.outbox.pending(userAggregate(taken.id))) &&
      !(await hasPayment(ctx, taken.id));
    if (taken && !replaceable) throw new HttpError(409, 'EMAIL_EXISTS', 'this email address is already registered');
    const weak = passwordProblem(body.password, email);
    if (weak) throw new HttpError(400, 'WEAK_PASSWORD', `${weak} (12 to 128 characters; long passphrases are welcome)`);
    // Decision F47: the name members will see, by the profile's rules; the registration replaced here does not hold it.
    const chosen =
      body.display_name === undefined
        ? undefined
        : await chosenAtJoin(ctx.db, body.display_name, reserved, replaceable ? taken.id : undefined);
    if (chosen && 'refused' in chosen) {
      const r = chosen.refused;
      throw refusal(new HttpError(r.status, r.code, r.message), {
        reason: r.refusal ? `display_name_${r.refusal}` : 'display_name',
      });
    }

    // ...and per (recipient, client) just before the one step that sends mail to it (decision B84).
    const byRecipient = await ctx.throttle.reserve([mailBudget(index, req.ip, ctx.config.EMAIL_LIMIT_PER_RECIPIENT)]);
    if (byRecipient > 0) throw refusal(tooMany(byRecipient), { limit: 'recipient' });
    // The account keeps the address it is known by: what the client sealed, or the canonical form sealed
    // to the bridge's own key when the typed one differs (decision B82).
    const email_encrypted = email === typed ? body.email_encrypted : await ctx.opener.seal('email', email);

    const id = randomUUID();
    // The self-authenticating principal of the member's derived key (decision V5): the bridge can sign as it on the IC.
    const principal = memberPrincipal(ctx.keys.memberIdentitySecret, id);
    const password_hash = await ctx.passwords.hash(body.password);
    const opId = `register:${id}`;
    try {
      // The user row and the create_account operation commit together (decision B24); the canister is
      // called after the commit, never inside the transaction.
      await ctx.db.transaction().execute(async (tx) => {
        if (taken && replaceable)
          await removeUnverifiedUser(
            ctx.outbox,
            tx,
            taken,
            isExpiredRegistration(taken, ctx.now())
              ? 'registration expired; the address was registered again'
              : 'unverified registration replaced by a new registration of the address (decision B51)',
          );
        await tx
          .insertInto('users')
          .values({
            id,
            principal,
            default_name: defaultDisplayName(principal),
            email_index: index,
            email_encrypted,
            name_encrypted: body.name_encrypted,
            dob_encrypted: body.dob_encrypted,
            // Decision B106: the admins' search finds the registration name by its words.
            name_index: nameIndex(ctx.keys.blindIndexKey, name),
            ...(chosen && { display_name: chosen.name, display_name_key: chosen.key }),
            password_hash,
            is_minor: age < 18,
            roles: [],
            // The bridge's clock, as every other time it keeps for the user (decision B81), not the database's.
            created_at: new Date(ctx.now()),
          })
          .execute();
        const payload: CreateAccountPayload = {
          user_id: id,
          principal,
          email_encrypted,
          name_encrypted: body.name_encrypted,
          dob_encrypted: body.dob_encrypted,
          password_hash,
          tos_accepted_at: BigInt(ctx.now()) * 1_000_000n - 1n,
          is_age_verified_18_plus: age >= 18,
        };
        await ctx.outbox.enqueue(tx, { operation: OP.createAccount, opId, aggregate: userAggregate(id), payload });
      });
    } catch (e) {
      // A registration of the same name committed meanwhile (decision F47).
      if (isUniqueViolation(e) && (e as { constraint?: string }).constraint === 'users_display_name_key_unique') {
        const r = nameTaken(true);
        throw refusal(new HttpError(r.status, r.code, r.message), { reason: 'display_name' });
      }
      if (isUniqueViolation(e)) throw new HttpError(409, 'EMAIL_EXISTS', 'this email address is already registered');
      throw e;
    }
    if (taken && replaceable) {
      void ctx.outbox.run(`remove:${taken.id}`).catch(() => undefined);
      req.log.info(
        { event: 'registration.replaced', user_id: taken.id, by: id },
        'an unverified registration of the address was replaced',
      );
    }
    let outcome = await ctx.outbox.run<CreateAccountAnswer, boolean>(opId);
    if (outcome.state === 'pending') {
      // The canister did not answer: tell the client nothing was stored, and make it true (the row goes;
      // an account a lost reply may have created is removed through the outbox).
      req.log.error({ event: 'registration.failed', user_id: id, err: outcome.error }, 'registration failed');
      if (
        await ctx.outbox.cancel(
          opId,
          `registration answered 503: ${outcome.error ?? 'the user canister did not answer'}`,
        )
      ) {
        throw new HttpError(
          503,
          'REGISTRATION_UNAVAILABLE',
          'registration is temporarily unavailable; nothing was stored',
        );
      }
      outcome = await ctx.outbox.run<CreateAccountAnswer, boolean>(opId);
    }
    if (outcome.state !== 'done')
      throw new HttpError(
        503,
        'REGISTRATION_UNAVAILABLE',
        'registration is temporarily unavailable; nothing was stored',
      );
    if ('Err' in outcome.result)
      throw new HttpError(
        502,
        'ACCOUNT_NOT_CREATED',
        `the user canister refused the account: ${Object.keys(outcome.result.Err)[0]}`,
      );
    const sent = outcome.after === true;
    if (!sent)
      req.log.warn({ event: 'registration.verification_email_failed', user_id: id }, 'verification email not sent');
    // Decision B63: no age band either, only that an account exists.
    await ctx.audit.record(req, {
      event: 'registration.created',
      subject: id,
      outcome: 'success',
      detail: { link_sent: sent },
    });
    return reply.code(201).send({ user_id: id, status: 'verification_pending', verification_email_sent: sent });
  }
}

async function hasPayment(ctx: RegistrationContext, userId: string): Promise<boolean> {
  return (
    (await ctx.db.selectFrom('payments').select('id').where('user_id', '=', userId).executeTakeFirst()) !== undefined
  );
}

/** Decision B26: unverified, and its latest link has expired. */
export function isExpiredRegistration(
  u: { email_verified_at: unknown; verification_expires_at: Date | string | null },
  now: number,
): boolean {
  return (
    u.email_verified_at === null &&
    u.verification_expires_at !== null &&
    new Date(u.verification_expires_at).getTime() <= now
  );
}
