// The bridge's error body (decision B3): { error: CODE, message, request_id }, codes from spec 2 where it
// names them (COPPA_BLOCK, EMAIL_EXISTS, UNAUTHORIZED, VALIDATION_ERROR), documented ones otherwise.
import type { FastifyReply, FastifyRequest } from 'fastify';

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
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
  if (status === 415) return new HttpError(415, 'UNSUPPORTED_MEDIA_TYPE', 'the body must be JSON (Content-Type: application/json)');
  if (e.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || e.code === 'FST_ERR_CTP_EMPTY_JSON_BODY')
    return new HttpError(
      400,
      'VALIDATION_ERROR',
      `body: ${e.code === 'FST_ERR_CTP_EMPTY_JSON_BODY' ? 'empty, though Content-Type is application/json' : 'not valid JSON (a "__proto__" or "constructor" key is refused too)'}`,
    );
  return new HttpError(status, 'VALIDATION_ERROR', e.message);
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
  for (const e of errors) if (e.keyword === 'const') allowed.set(e.instancePath, [...(allowed.get(e.instancePath) ?? []), String(e.params.allowedValue)]);
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
