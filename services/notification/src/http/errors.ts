// Error bodies (spec 3 "Errors"): always `error` and `request_id`; `details[]` for validation errors.
// Stack traces and internal messages never leave the service.
import type { FastifyReply, FastifyRequest } from 'fastify';

export interface Detail {
  /** Where the problem is: `to`, `attachments[2].filename`, `data.items[0].title`, `Idempotency-Key`. */
  field: string;
  /** What is wrong, for a human reading the caller's logs. */
  message: string;
}

export type ErrorCode =
  | 'invalid_request'
  | 'invalid_template_data'
  | 'render_failed'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'idempotency_conflict'
  | 'idempotency_key_reused'
  | 'send_failed'
  | 'internal_error'
  | 'service_unavailable';

export interface ErrorBody {
  error: ErrorCode;
  request_id: string;
  details?: Detail[];
}

/** The error body every path of the service answers with (Fastify's routes, the front door, the send flow). */
export function errorBody(error: ErrorCode, requestId: string, details?: Detail[]): ErrorBody {
  const body: ErrorBody = { error, request_id: requestId };
  if (details) body.details = details;
  return body;
}

export function sendError(reply: FastifyReply, status: number, error: ErrorCode, details?: Detail[]): FastifyReply {
  return reply.code(status).send(errorBody(error, reply.request.id, details));
}

interface FastifyishError {
  code?: string;
  statusCode?: number;
  validation?: unknown;
}

/** Maps Fastify's own errors (body parsing, limits) to the contract's shapes; everything else is a 500. */
export function errorHandler(err: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const e = (err ?? {}) as FastifyishError;
  switch (e.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return sendError(reply, 413, 'payload_too_large');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return sendError(reply, 415, 'unsupported_media_type', [
        { field: 'Content-Type', message: 'must be application/json' },
      ]);
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return sendError(reply, 400, 'invalid_request', [{ field: 'body', message: 'must be a JSON object' }]);
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return sendError(reply, 400, 'invalid_request', [
        { field: 'Content-Length', message: 'does not match the body' },
      ]);
  }
  if (err instanceof SyntaxError || e.code === 'FST_ERR_CTP_INVALID_JSON_BODY') {
    return sendError(reply, 400, 'invalid_request', [{ field: 'body', message: 'is not valid JSON' }]);
  }
  if (typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) {
    request.log.info({ event: 'request.rejected', code: e.code, status: e.statusCode }, 'client error');
    return sendError(reply, 400, 'invalid_request', [{ field: 'request', message: 'malformed request' }]);
  }
  request.log.error({ event: 'request.failed', err }, 'unhandled error');
  return sendError(reply, 500, 'internal_error');
}
