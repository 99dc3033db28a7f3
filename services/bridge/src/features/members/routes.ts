// Members by name (decision F22): the signed-in member's profile and chosen display name, and a search
// by name for choosing a payout recipient or a transfer's receiver. Other members only ever see a
// name and a principal, never an email. A chosen name must not pass for someone else's (decisions
// B89–B91): those refusals are audited, as an impersonation attempt is.
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { sql } from 'kysely';
import { SYSTEM, type AuditRecorder } from '../../core/audit/log.ts';
import type { Guards } from '../../core/auth/guards.ts';
import type { MemberLimiter } from '../../core/auth/member-limits.ts';
import type { Db } from '../../core/db/schema.ts';
import { isUniqueViolation } from '../../core/db/errors.ts';
import {
  isReserved,
  lookalikeKey,
  reservedKeys,
  type LookalikeRefusal,
} from '../../core/identity/display-name-rules.ts';
import { DISPLAY_NAME_MAX, normaliseDisplayName } from '../../core/identity/display-names.ts';
import { HttpError } from '../../core/http/errors.ts';
import type { BridgeApp } from '../../core/http/typed.ts';

export interface MembersOptions {
  db: Db;
  guards: Pick<Guards, 'requireSession'>;
  /** Decision B93: searches per member per minute. */
  limit: MemberLimiter;
  audit: AuditRecorder;
  /** BRAND_DAO_NAME: reserved, as Admin is (decision B91). */
  daoName: string;
}

export const SEARCH_MIN = 2;
export const SEARCH_MAX_RESULTS = 20;

const err = (description: string) => ({
  description,
  type: 'object',
  properties: { error: { type: 'string' }, message: { type: 'string' }, request_id: { type: 'string' } },
});
const Profile = Type.Object({
  user_id: Type.String(),
  principal: Type.String({ description: "the member's principal on the canisters" }),
  display_name: Type.String({ description: 'the name other members see: the chosen one, else the default' }),
  default_name: Type.String({
    description: 'the friendly default derived from the principal, e.g. "Amber Otter #3f2a"',
  }),
  chosen: Type.Boolean({ description: 'true when the member chose display_name' }),
});
const Member = Type.Object({ principal: Type.String(), display_name: Type.String() });
const session = [{ sessionCookie: [] }];

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

export default async function members(app: BridgeApp, opts: MembersOptions): Promise<void> {
  const reserved = reservedKeys(opts.daoName);
  // Decision B91: a name chosen before it was reserved (or before the DAO took that name) goes back to
  // the member's default at start-up, each with an audit row.
  const given = await opts.db
    .updateTable('users')
    .set({ display_name: null, display_name_key: null })
    .where('display_name_key', 'in', [...reserved])
    .returning('id')
    .execute();
  for (const u of given)
    await opts.audit.record(undefined, {
      event: 'members.display_name_reset',
      actor: SYSTEM,
      subject: u.id,
      outcome: 'success',
      detail: { reason: 'reserved' },
    });

  const refuse = async (
    req: FastifyRequest,
    userId: string,
    reason: LookalikeRefusal,
    error: HttpError,
  ): Promise<never> => {
    await opts.audit.record(req, {
      event: 'members.display_name_refused',
      actor: userId,
      outcome: 'denied',
      detail: { reason },
    });
    throw error;
  };

  const profile = async (userId: string) => {
    const u = await opts.db
      .selectFrom('users')
      .select(['id', 'principal', 'display_name', 'default_name'])
      .where('id', '=', userId)
      .executeTakeFirst();
    if (!u) throw new HttpError(401, 'UNAUTHORIZED', 'sign in first');
    return {
      user_id: u.id,
      principal: u.principal,
      display_name: u.display_name ?? u.default_name,
      default_name: u.default_name,
      chosen: u.display_name !== null,
    };
  };

  app.get(
    '/api/me/profile',
    {
      schema: {
        operationId: 'getMyProfile',
        summary: "The signed-in member's display name and principal (decision F22)",
        description:
          "The name other members see beside the member's proposals, votes, campaigns and contributions; the email is never shown to them.",
        tags: ['members'],
        security: session,
        response: { 200: Profile, 401: err('UNAUTHORIZED') },
      },
    },
    async (req, reply) => {
      const s = await opts.guards.requireSession(req);
      reply.header('cache-control', 'private, no-store');
      return profile(s.user_id);
    },
  );

  const nameBody = Type.Object(
    {
      // Null first: Ajv's type coercion would otherwise turn null into "" for the string branch.
      display_name: Type.Union([Type.Null(), Type.String({ maxLength: 4 * DISPLAY_NAME_MAX })], {
        description:
          "3–32 letters, digits, spaces and . - _ ' (at least one letter), unique ignoring case and by look: no invisible characters, at most 4 combining marks on a letter, not a reserved name (Admin, Administrator, Moderator, the DAO's); null goes back to the default",
      }),
    },
    { additionalProperties: false },
  );
  app.put(
    '/api/me/display-name',
    {
      bodyLimit: 1024,
      schema: {
        operationId: 'setMyDisplayName',
        summary: 'Choose the name other members see (decision F22)',
        description:
          "Trimmed, inner spaces collapsed and NFC-normalised before it is checked. `#` and `@` are refused, so a chosen name never looks like a default name or an email address. Decisions B89–B91: default-ignorable characters (U+034F, Hangul fillers, zero-width and bidi controls), more than 4 combining marks on one letter (or the same mark twice, or a mark on no letter) and reserved names (Admin, Administrator, Moderator and the DAO's own name, in any case, script or spacing) are 400 VALIDATION_ERROR; a name that looks like another member's (same UTS #39 skeleton, case, i/l and spacing aside) is 409 NAME_TAKEN. Those refusals are audited (`members.display_name_refused`).",
        tags: ['members'],
        security: session,
        body: nameBody,
        response: {
          200: Profile,
          400: err('VALIDATION_ERROR'),
          401: err('UNAUTHORIZED'),
          403: err('CSRF_REJECTED'),
          409: err('NAME_TAKEN: another member chose this name or one that looks the same'),
        },
      },
    },
    async (req, reply) => {
      const s = await opts.guards.requireSession(req);
      let name: string | null = null;
      let key: string | null = null;
      if (req.body.display_name !== null) {
        const n = normaliseDisplayName(req.body.display_name);
        if ('problem' in n) {
          const error = new HttpError(400, 'VALIDATION_ERROR', n.problem);
          if (n.refusal) await refuse(req, s.user_id, n.refusal, error);
          throw error;
        }
        if (isReserved(n.name, reserved)) {
          await refuse(
            req,
            s.user_id,
            'reserved',
            new HttpError(400, 'VALIDATION_ERROR', 'display_name: reserved for the DAO and its admins; choose another'),
          );
        }
        name = n.name;
        key = lookalikeKey(n.name);
      }
      try {
        await opts.db
          .updateTable('users')
          .set({ display_name: name, display_name_key: key })
          .where('id', '=', s.user_id)
          .execute();
      } catch (e) {
        if (!isUniqueViolation(e)) throw e;
        // The same name (case aside) is plainly taken; one that only looks the same is an attempt to pass for its
        // holder.
        const same = await opts.db
          .selectFrom('users')
          .select('id')
          .where(sql<boolean>`lower(display_name) = lower(${name})`)
          .where('id', '!=', s.user_id)
          .executeTakeFirst();
        if (same) throw new HttpError(409, 'NAME_TAKEN', 'another member already uses this name; choose another');
        await refuse(
          req,
          s.user_id,
          'lookalike',
          new HttpError(409, 'NAME_TAKEN', "another member's name looks the same as this one; choose another"),
        );
      }
      req.log.info({ event: 'member.display_name', user_id: s.user_id, chosen: name !== null }, 'display name set');
      reply.header('cache-control', 'private, no-store');
      return profile(s.user_id);
    },
  );

  const searchQuery = Type.Object(
    {
      q: Type.String({ minLength: SEARCH_MIN, maxLength: 64, description: 'part of a display name (case ignored)' }),
      limit: Type.Optional(Type.Integer({ minimum: 1, maximum: SEARCH_MAX_RESULTS, default: 10 })),
    },
    { additionalProperties: false },
  );
  app.get(
    '/api/members',
    {
      schema: {
        operationId: 'searchMembers',
        summary: 'Find members by display name (decision F22)',
        description:
          "For choosing a payout recipient or a transfer's receiver: verified members whose chosen or default name contains `q`, names starting with `q` first. Signed-in members only; answers names and principals, never emails.",
        tags: ['members'],
        security: session,
        querystring: searchQuery,
        response: {
          200: Type.Object({ items: Type.Array(Member) }),
          400: err('VALIDATION_ERROR'),
          401: err('UNAUTHORIZED'),
          429: err(
            'RATE_LIMITED, with Retry-After: MEMBER_SEARCH_LIMIT_PER_MINUTE searches per member per minute (decision B93)',
          ),
        },
      },
    },
    async (req, reply) => {
      const s = await opts.guards.requireSession(req);
      const q = req.query.q.normalize('NFC').trim().toLowerCase();
      if ([...q].length < SEARCH_MIN)
        throw new HttpError(400, 'VALIDATION_ERROR', `q: at least ${SEARCH_MIN} characters besides spaces`);
      await opts.limit(req, s.user_id, 'member_searches');
      const shown = sql<string>`coalesce(display_name, default_name)`;
      const rows = await opts.db
        .selectFrom('users')
        .select(['principal', shown.as('display_name')])
        .where('email_verified_at', 'is not', null)
        .where(sql<boolean>`lower(coalesce(display_name, default_name)) like ${`%${escapeLike(q)}%`} escape '\\'`)
        .orderBy(sql`lower(coalesce(display_name, default_name)) like ${`${escapeLike(q)}%`} escape '\\'`, 'desc')
        .orderBy(sql`lower(coalesce(display_name, default_name))`)
        .limit(req.query.limit ?? 10)
        .execute();
      reply.header('cache-control', 'private, no-store');
      return { items: rows.map((r) => ({ principal: r.principal, display_name: r.display_name })) };
    },
  );
}
