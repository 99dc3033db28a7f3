// What the gateway answers on /notify itself is shaped as the notification service answers (spec 3
// Errors, decisions D1–D3): `{ error, request_id }`, with `details` where a field is to blame. A caller
// cannot tell the edge's 401 from the service's, and need not.
import type { FastifyReply } from 'fastify';

export type NotifyErrorCode =
  'unauthorized' | 'forbidden' | 'payload_too_large' | 'service_unavailable' | 'internal_error';

export function notifyError(
  reply: FastifyReply,
  status: number,
  error: NotifyErrorCode,
  details?: Array<{ field: string; message: string }>,
): FastifyReply {
  return reply
    .code(status)
    .header('cache-control', 'no-store')
    .send({ error, request_id: reply.request.id, ...(details && { details }) });
}
