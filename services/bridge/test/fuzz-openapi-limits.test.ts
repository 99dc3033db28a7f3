// Decision B126: every operation of the bridge's OpenAPI document is sent a body over the limit, a body
// that is not JSON, and (where it takes them) a malformed path parameter and query, as a signed-in
// admin who is a member (with the bearer token, API token or webhook signature it asks for), and
// the answer's status must be one the operation lists, in a content type that status lists.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { signPayload } from '../src/features/payments/signature.ts';
import { readBridgeOpenApi } from '../scripts/openapi.ts';
import { ACCESS_TOKEN, ADMIN_EMAIL, WEBHOOK_SECRET, bridge, type Bridge, type Jar } from './harness.ts';

type Schema = { type?: string; maxLength?: number; enum?: unknown[]; anyOf?: Schema[]; pattern?: string };
type Operation = {
  security?: Array<Record<string, string[]>>;
  parameters?: Array<{ in: string; name: string; schema: Schema }>;
  requestBody?: unknown;
  responses: Record<string, { content?: Record<string, unknown> }>;
};
const doc = readBridgeOpenApi<{ paths: Record<string, Record<string, Operation>> }>();
const operations = Object.entries(doc.paths).flatMap(([path, ops]) =>
  Object.entries(ops).map(([method, op]) => ({ method: method.toUpperCase(), path, op })),
);
const API_TOKEN = 'fuzz-api-token-0123456789abcdef';
const ENDS_SESSION = new Set(['POST /auth/logout', 'DELETE /api/me/sessions']);
/** Over every route's limit: the bridge's largest is 1 MiB (Fastify's default). */
const OVERSIZED = `{"x":"${'x'.repeat(1024 * 1024 + 16)}"}`;

/** A query value the parameter's schema refuses. */
function refusedValue(s: Schema): string {
  if (s.enum || s.anyOf) return 'not-one-of-them';
  if (s.type === 'integer' || s.type === 'number') return 'not-a-number';
  if (s.type === 'boolean') return 'maybe';
  return 'x'.repeat((s.maxLength ?? 10_000) + 1);
}

describe('decision B126: every operation documents the status and content type of its answers to an oversized, a malformed body and malformed parameters', () => {
  let h: Bridge;
  let admin: Jar;
  before(async () => {
    h = await bridge(undefined, { API_TOKEN });
    await h.member(ADMIN_EMAIL);
    ({ jar: admin } = await h.login(ADMIN_EMAIL));
  });
  after(async () => h?.close());

  async function send(method: string, path: string, op: Operation, url: string, payload?: string) {
    const security = Object.keys(op.security?.[0] ?? {})[0];
    const headers: Record<string, string> = {};
    if (payload !== undefined) headers['content-type'] = 'application/json';
    if (security === 'bearerToken') headers.authorization = `Bearer ${ACCESS_TOKEN}`;
    if (security === 'apiToken' || path === '/api/admin/price/submit-proposal') headers['x-api-token'] = API_TOKEN;
    if (security === 'paymentSignature')
      headers['payment-signature'] = signPayload(WEBHOOK_SECRET, Math.floor(h.now() / 1000), payload ?? '');
    const jar = ENDS_SESSION.has(`${method} ${path}`) ? (await h.login(ADMIN_EMAIL)).jar : admin;
    return h.request({
      method: method as 'GET',
      url,
      headers,
      jar,
      ...(payload !== undefined && { payload }),
      ...(method !== 'GET' && { origin: 'https://app.domdao.example' }),
    });
  }

  function documented(
    op: Operation,
    what: string,
    r: { statusCode: number; headers: Record<string, unknown>; body: string },
  ) {
    const answer = op.responses[String(r.statusCode)];
    const said = `${what} → ${r.statusCode} ${String(r.headers['content-type'])} ${r.body.slice(0, 200)}`;
    assert.ok(answer, `status not documented: ${said}`);
    const type = String((r.headers['content-type'] as string | undefined) ?? '')
      .split(';')[0]!
      .trim();
    const types = Object.keys(answer.content ?? {});
    assert.ok(
      types.includes(type),
      `content type not documented for ${r.statusCode} (documented: ${types.join(', ') || 'none'}): ${said}`,
    );
  }

  for (const { method, path, op } of operations) {
    if (op.responses['200']?.content?.['text/event-stream']) continue;
    const sample = path.replace(/\{(\w+)\}/g, '1');
    if (['POST', 'PUT', 'PATCH', 'DELETE'].includes(method)) {
      it(`decision B126: ${method} ${path} with a body over the limit answers a documented 413`, async () => {
        const r = await send(method, path, op, sample, OVERSIZED);
        assert.equal(r.statusCode, 413, `${method} ${path}: ${r.body.slice(0, 200)}`);
        documented(op, `${method} ${path} (oversized)`, r);
      });
      it(`decision B126: ${method} ${path} with a body that is not JSON answers a documented error`, async () => {
        const r = await send(method, path, op, sample, '{"x":');
        assert.ok(
          r.statusCode >= 400 && r.statusCode < 500,
          `${method} ${path}: ${r.statusCode} ${r.body.slice(0, 200)}`,
        );
        documented(op, `${method} ${path} (not JSON)`, r);
      });
    }
    const params = op.parameters ?? [];
    if (params.some((p) => p.in === 'path'))
      it(`decision B126: ${method} ${path} with a path segment the router cannot read answers a documented 400`, async () => {
        const r = await send(
          method,
          path,
          op,
          path.replace(/\{(\w+)\}/g, '%C0%80'),
          method === 'GET' ? undefined : '{}',
        );
        assert.equal(r.statusCode, 400, r.body);
        documented(op, `${method} ${path} (malformed path)`, r);
      });
    const query = params.filter((p) => p.in === 'query');
    if (query.length > 0)
      it(`decision B126: ${method} ${path} with a query its schema refuses answers a documented error`, async () => {
        for (const p of query) {
          const url = `${sample}?${encodeURIComponent(p.name)}=${encodeURIComponent(refusedValue(p.schema))}`;
          const r = await send(method, path, op, url, method === 'GET' ? undefined : '{}');
          if (r.statusCode < 400) continue; // a free-form parameter takes any text
          documented(op, `${method} ${url}`, r);
        }
      });
  }
});
