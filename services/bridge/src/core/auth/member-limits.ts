// Per-member limits on what a member can make the bridge do many times over (decisions B92, B93, V35, V36, B107):
// proposals, delegation changes, member searches, the development faucet. Counted in the shared attempt counters
// (brute-force.ts, in the database: decision B52), so every bridge instance sees one count. An attempt is reserved
// before the work it guards and is not given back: a refused request costs the canister or the database as much as an
// accepted one.
import type { FastifyRequest } from 'fastify';
import type { AuditRecorder } from '../audit/log.ts';
import { HttpError } from '../http/errors.ts';
import type { Throttle } from './brute-force.ts';

export const MEMBER_LIMITS = {
  proposals: { key: 'propose', per: 'hour', windowMs: 3_600_000 },
  delegation_changes: { key: 'delegation', per: 'hour', windowMs: 3_600_000 },
  member_searches: { key: 'member-search', per: 'minute', windowMs: 60_000 },
  faucet_grants: { key: 'faucet', per: 'day', windowMs: 86_400_000 },
} as const;
export type MemberLimitName = keyof typeof MEMBER_LIMITS;

/** Reserves one of `name` for the member, or throws 429 RATE_LIMITED with Retry-After. */
export type MemberLimiter = (req: FastifyRequest, userId: string, name: MemberLimitName) => Promise<void>;

export function memberLimiter(o: {
  throttle: Throttle;
  audit: AuditRecorder;
  /** How many of each per member per window. */
  limits: Record<MemberLimitName, number>;
  /** Counts the refusal (decision B69). */
  refused?(name: MemberLimitName): void;
}): MemberLimiter {
  return async (req, userId, name) => {
    const l = MEMBER_LIMITS[name];
    const wait = await o.throttle.reserve([{ key: `${l.key}:${userId}`, limit: o.limits[name], windowMs: l.windowMs }]);
    if (wait === 0) return;
    o.refused?.(name);
    await o.audit.record(req, {
      event: 'member.rate_limited',
      actor: userId,
      outcome: 'denied',
      detail: { limit: name, max: o.limits[name], per: l.per, retry_after_seconds: wait },
    });
    throw new HttpError(
      429,
      'RATE_LIMITED',
      `at most ${o.limits[name]} ${name.replace('_', ' ')} per ${l.per}; try again in ${wait} seconds`,
      {
        'retry-after': String(wait),
      },
    );
  };
}
