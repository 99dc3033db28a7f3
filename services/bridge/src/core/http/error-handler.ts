// How the bridge answers an error no route answered itself, and its liveness (which says when it cannot store): the
// HttpError a route threw as it is; a failed embedded database, an unavailable session store or database as 503s with
// their codes; a framework refusal (validation, body size) as the API's error shape; anything else as 500, logged.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { SessionStoreUnavailable } from '../auth/session-store.ts';
import { CanisterSetRefused } from '../canister-set/refused.ts';
import { isDatabaseUnavailable, isEmbeddedDatabaseFailed } from '../db/errors.ts';
import { frameworkClientError, HttpError, sendError, validationMessage } from './errors.ts';
import { routeSchema } from './route-doc.ts';
import { getHealthDoc } from './health-docs.ts';

/** `databaseFailure`: the embedded database's failed sync, once there was one (decision P16). */
export function bridgeErrorHandler(databaseFailure: () => Error | undefined) {
  return (err: FastifyError | Error, req: FastifyRequest, reply: FastifyReply) => {
    if (err instanceof HttpError) return sendError(req, reply, err);
    // Decision P16: logged once (database.sync_failed), not per request; no retry helps before a restart.
    // The statement that met the failed sync fails with PostgreSQL's own error, wrapped by whichever
    // store ran it (the login throttle's SessionStoreUnavailable, say): once the database has failed,
    // every failure is that one.
    if (isEmbeddedDatabaseFailed(err) || databaseFailure())
      return sendError(
        req,
        reply,
        new HttpError(503, 'DATABASE_FAILED', 'the service cannot store anything safely until it is restarted'),
      );
    if (err instanceof SessionStoreUnavailable) {
      req.log.error({ event: 'session_store.unavailable', err: err.message }, 'session store unavailable');
      return sendError(
        req,
        reply,
        new HttpError(503, 'SESSION_STORE_UNAVAILABLE', 'sessions are temporarily unavailable; try again'),
      );
    }
    if (isDatabaseUnavailable(err)) {
      req.log.error({ event: 'database.unavailable', err: err.message }, 'database unavailable');
      return sendError(
        req,
        reply,
        new HttpError(503, 'DATABASE_UNAVAILABLE', 'the service is temporarily unavailable; try again', {
          'retry-after': '5',
        }),
      );
    }
    const fe = err as FastifyError;
    if (fe.validation)
      return sendError(
        req,
        reply,
        new HttpError(400, 'VALIDATION_ERROR', validationMessage(fe.validationContext ?? 'request', fe.validation)),
      );
    if (fe.statusCode === 413)
      return sendError(req, reply, new HttpError(413, 'PAYLOAD_TOO_LARGE', 'the request body is too large'));
    if (fe.statusCode !== undefined && fe.statusCode >= 400 && fe.statusCode < 500)
      return sendError(req, reply, frameworkClientError(fe));
    req.log.error({ event: 'request.failed', err: err.message, stack: err.stack }, 'unhandled error');
    return sendError(req, reply, new HttpError(500, 'INTERNAL', 'internal error'));
  };
}

/**
 * Decision B55: a URL the router cannot read (a malformed percent-escape, a path segment over 100
 * characters) is bad input like any other: 400 VALIDATION_ERROR in the bridge's error body. The
 * answer is sent here; the reply's thenable only reports when it is written (decision R19).
 */
export function unreadableUrl(err: FastifyError, req: FastifyRequest, reply: FastifyReply): void {
  const what =
    err.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? 'a path segment is longer than 100 characters'
      : 'not a valid URL (a malformed percent-escape)';
  void sendError(req, reply, new HttpError(400, 'VALIDATION_ERROR', `URL: ${what}`));
}

/**
 * GET /health, as spec 2 defines it, and 503 DATABASE_FAILED once the embedded database failed a sync
 * (decision P16) or another bridge took the database's embedded canisters (decision B101).
 */
export function livenessRoute(app: FastifyInstance, databaseFailure: () => Error | undefined): void {
  // Spec 2: 200 {"status":"ok"}. Decision P16: an embedded database that failed a sync refuses every
  // statement until a restart, so health says so and an orchestrator restarts the bridge.
  app.get('/health', { schema: routeSchema(getHealthDoc) }, async (req, reply) => {
    const failed = databaseFailure();
    if (!failed) return { status: 'ok' };
    return reply.code(503).send({
      status: 'unavailable',
      error: 'DATABASE_FAILED',
      // Decision B101: the database's embedded canisters are another bridge's now.
      message:
        failed instanceof CanisterSetRefused
          ? "another bridge holds this database's embedded canisters now and this one has stopped using them; stop one of the two, then restart this one"
          : 'the embedded database could not sync its files and refuses every statement; restart the bridge once the disk is sound',
      request_id: req.id,
    });
  });
}
