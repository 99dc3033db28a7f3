// The bridge's error body (decision B3): { error: CODE, message, request_id }, codes from spec 2 where it
// names them (COPPA_BLOCK, EMAIL_EXISTS, UNAUTHORIZED, VALIDATION_ERROR), documented ones otherwise.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { errorCode, type ErrorCode, type StatusOf } from './error-codes.ts';

/**
 * A refusal a route throws: only a code of the registry (core/http/error-codes.ts, decision B125),
 * with one of the statuses registered for it, so a new code is registered (and documented) first.
 */
export class HttpError<C extends ErrorCode = ErrorCode> extends Error {
  constructor(
    readonly status: StatusOf<C>,
    readonly code: C,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
  /** `instanceof` narrows to `HttpError` (every registered code), not to `HttpError<any>` as a generic class would. */
  static override [Symbol.hasInstance](value: unknown): value is HttpError {
    return Function.prototype[Symbol.hasInstance].call(this, value);
  }
  /**
   * A code the bridge passes on without knowing it in advance: a canister variant the registry does
   * not list yet (502, decisions V9, L21), a code read back from a stored record, a framework status.
   */
  /** `code` with its usual status (the registry's first). */
  static of<C extends ErrorCode>(code: C, message: string, headers: Record<string, string> = {}): HttpError<C> {
    return new HttpError<C>(errorCode(code).status[0] as StatusOf<C>, code, message, headers);
  }
  static passThrough(status: number, code: string, message: string, headers: Record<string, string> = {}): HttpError {
    return new HttpError(status as never, code as never, message, headers);
  }
  /** The signed-in user a refusal was given to (an admin route's 403), for the audit line (decision B61). */
  actor?: string;
}

export function sendError(req: FastifyRequest, reply: FastifyReply, e: HttpError): FastifyReply {
  for (const [k, v] of Object.entries(e.headers)) reply.header(k, v);
  return reply.code(e.status).send({ error: e.code, message: e.message, request_id: req.id });
}

/** Decision B55: Fastify's own 4xx (a body that is not JSON, an unsupported content type, a body
 *  over the limit) answered with the documented codes of decision B3, never Fastify's FST_ERR_* names. */
export function frameworkClientError(e: { statusCode?: number; code?: string; message: string }): HttpError {
  const status = e.statusCode ?? 400;
  if (status === 413) return new HttpError(413, 'PAYLOAD_TOO_LARGE', 'the request body is too large');
  if (status === 415)
    return new HttpError(415, 'UNSUPPORTED_MEDIA_TYPE', 'the body must be JSON (Content-Type: application/json)');
  if (e.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || e.code === 'FST_ERR_CTP_EMPTY_JSON_BODY')
    return new HttpError(
      400,
      'VALIDATION_ERROR',
      `body: ${e.code === 'FST_ERR_CTP_EMPTY_JSON_BODY' ? 'empty, though Content-Type is application/json' : 'not valid JSON (a "__proto__" or "constructor" key is refused too)'}`,
    );
  return HttpError.passThrough(status, 'VALIDATION_ERROR', e.message);
}

interface SchemaError {
  keyword: string;
  instancePath: string;
  message?: string;
  params: Record<string, unknown>;
}

/**
 * Decision B74: a validation refusal's message. A field that must be one of a list (a union of
 * literals) is said once, with the list (`querystring/event must be one of: a, b`), instead of Ajv's
 * "must be equal to constant" once per value and "must match a schema in anyOf"; every other
 * failure reads as Fastify words it (`body/amount must be >= 1`).
 */
export function validationMessage(context: string, errors: SchemaError[]): string {
  const allowed = new Map<string, string[]>();
  for (const e of errors)
    if (e.keyword === 'const')
      allowed.set(e.instancePath, [...(allowed.get(e.instancePath) ?? []), String(e.params.allowedValue)]);
  const parts: string[] = [];
  const said = new Set<string>();
  for (const e of errors) {
    const where = `${context}${e.instancePath}`;
    const values = allowed.get(e.instancePath);
    if (values && (e.keyword === 'const' || e.keyword === 'anyOf')) {
      if (!said.has(e.instancePath)) parts.push(`${where} must be one of: ${values.join(', ')}`);
      said.add(e.instancePath);
    } else parts.push(`${where} ${e.message ?? 'is not valid'}`);
  }
  return parts.join(', ');
}
