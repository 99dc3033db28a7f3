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
}

export function sendError(req: FastifyRequest, reply: FastifyReply, e: HttpError): FastifyReply {
  for (const [k, v] of Object.entries(e.headers)) reply.header(k, v);
  return reply.code(e.status).send({ error: e.code, message: e.message, request_id: req.id });
}
