// Conditional GETs for cacheable JSON reads (decision V23): a weak ETag from the body's hash on every
// 200 GET of the scope it is added to, and 304 with no body when If-None-Match names it. The body
// is still computed (the canister is still asked); what is saved is the transfer and the client's parse.
import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';

export function matchesIfNoneMatch(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === '*') return true;
  const weak = (t: string) => t.trim().replace(/^W\//, '');
  return header.split(',').some((t) => weak(t) === weak(etag));
}

export function addEtags(app: FastifyInstance): void {
  app.addHook('onSend', async (req, reply, payload) => {
    if ((req.method !== 'GET' && req.method !== 'HEAD') || reply.statusCode !== 200 || typeof payload !== 'string')
      return payload;
    const etag = `W/"${createHash('sha256').update(payload).digest('base64url').slice(0, 27)}"`;
    reply.header('etag', etag);
    if (!matchesIfNoneMatch(req.headers['if-none-match'], etag)) return payload;
    reply.code(304);
    reply.removeHeader('content-length');
    return '';
  });
}
