// The audit log's wiring (decisions B61–B67): refusals audited where every request's errors pass,
// the admin route, the retention job, escrow resolutions from the event log, and the secret check at start.
import type { FastifyInstance } from 'fastify';
import type { BridgeParts } from './parts.ts';
import type { Guards } from '../core/auth/guards.ts';
import { requestOrigin } from '../core/auth/csrf.ts';
import { SYSTEM, type AuditLog } from '../core/audit/log.ts';
import { defineAuditRetention } from '../core/audit/retention.ts';
import { noticeSecretRotations } from '../core/audit/secrets.ts';
import type { BridgeContext } from '../core/context.ts';
import { HttpError } from '../core/http/errors.ts';
import type { JobRunner } from '../core/jobs/runner.ts';
import type { BridgeKeys } from '../core/keys.ts';
import adminAudit from '../features/admin-audit/routes.ts';

/** Admin routes: the admin session's and the X-API-Token automation's. */
const ADMIN_ROUTE = /^\/api\/(ai\/)?admin\//;

/** The refusing origin as it may be logged: a well-formed origin, or what kind of thing it was. */
function originSeen(req: Parameters<typeof requestOrigin>[0]): string {
  const o = requestOrigin(req);
  if (o === undefined) return 'absent';
  if (o === 'null') return 'null';
  try {
    const u = new URL(o);
    return u.origin === o && o.length <= 200 ? o : 'malformed';
  } catch {
    return 'malformed';
  }
}

/**
 * Decision B61: a CSRF refusal anywhere, and a 401 or 403 at an admin route, are audited from the
 * one place every thrown refusal passes. Added before the routes, so it covers all of them.
 */
export function auditRefusals(app: FastifyInstance, audit: AuditLog): void {
  app.addHook('onError', async (req, _reply, err) => {
    if (!(err instanceof HttpError)) return;
    const route = req.routeOptions.url ?? '';
    if (err.code === 'CSRF_REJECTED') {
      await audit.record(req, {
        event: 'auth.csrf_refused',
        outcome: 'denied',
        detail: { method: req.method, route, origin: originSeen(req) },
      });
    } else if ((err.status === 401 || err.status === 403) && ADMIN_ROUTE.test(route)) {
      await audit.record(req, {
        event: 'admin.access_denied',
        actor: err.actor,
        outcome: 'denied',
        detail: { method: req.method, route, status: err.status, error: err.code },
      });
    }
  });
}

/** The secrets whose change is noticed at start (decision B66), by their variable names. */
function watchedSecrets(
  config: BridgeParts['config'],
  keys: BridgeKeys,
): Record<string, Uint8Array | string | undefined> {
  return {
    HPKE_PRIVATE_KEY: keys.hpkePrivateKey,
    BLIND_INDEX_KEY: keys.blindIndexKey,
    SESSION_DATA_KEY: keys.sessionDataKey,
    MEMBER_IDENTITY_SECRET: keys.memberIdentitySecret,
    // Text an operator pastes: the slow fingerprint (core/audit/secrets.ts).
    SIGNING_SECRET: keys.signingSecrets[0] && new TextDecoder().decode(keys.signingSecrets[0]),
    PAYMENT_WEBHOOK_SECRET: config.PAYMENT_WEBHOOK_SECRET,
    ACCESS_TOKEN: config.ACCESS_TOKEN,
    API_TOKEN: config.API_TOKEN,
    INFERENCE_API_KEY: config.INFERENCE_API_KEY,
  };
}

export async function registerAudit(
  app: FastifyInstance,
  {
    parts,
    ctx,
    guards,
    jobs,
    audit,
  }: { parts: BridgeParts; ctx: BridgeContext; guards: Guards; jobs: JobRunner; audit: AuditLog },
): Promise<void> {
  await app.register(adminAudit, { audit, guards });
  defineAuditRetention({
    jobs,
    audit,
    days: parts.config.AUDIT_RETENTION_DAYS,
    batch: parts.config.AUDIT_RETENTION_BATCH,
    now: ctx.now,
  });
  // A campaign's escrow is resolved by the campaign canister at its deadline; the funds follower
  // publishes CampaignSettled, recorded here in the subscriber's transaction (decision B68).
  ctx.events.subscribe('audit:escrow', ['CampaignSettled'], async (e, trx) => {
    await audit.record(
      undefined,
      {
        event: 'escrow.resolved',
        actor: SYSTEM,
        outcome: 'success',
        detail: {
          campaign_id: e.data.campaign_id,
          status: e.data.status,
          resolution: e.data.status === 'Succeeded' ? 'released' : 'refunded',
        },
      },
      trx,
    );
  });
  app.addHook('onReady', async () => {
    await noticeSecretRotations({
      db: parts.db,
      audit,
      secrets: watchedSecrets(parts.config, parts.keys),
      now: ctx.now,
    });
  });
}
