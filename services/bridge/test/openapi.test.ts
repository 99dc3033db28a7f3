// The bridge's OpenAPI document (decision B47): generated from the routes, served,
// committed and kept current; GET /api/docs renders it (decision S30), so no hand-kept table repeats it.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { BRIDGE_OPENAPI_FILE, generateBridgeOpenApi } from '../scripts/openapi.ts';
import { inlineRefs, SHARED_ERROR_SCHEMAS, withSharedComponents } from '../src/core/http/openapi-components.ts';
import { bridge, type Bridge } from './harness.ts';

type Operation = {
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  security?: Array<Record<string, string[]>>;
  responses?: Record<string, { description?: string }>;
};
type Doc = {
  openapi: string;
  info: { title: string; version: string };
  tags: Array<{ name: string }>;
  components: { securitySchemes: Record<string, { type: string; in?: string; name?: string; scheme?: string }> };
  paths: Record<string, Record<string, Operation>>;
};

const operations = (doc: Doc) =>
  Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => ({ key: `${method.toUpperCase()} ${path}`, op })),
  );

describe('the bridge OpenAPI document (decision B47)', () => {
  let h: Bridge;
  before(async () => {
    h = await bridge();
  });
  after(() => h.close());

  it('decision B47: served at GET /api/openapi.json without authentication, as OpenAPI 3', async () => {
    const r = await h.request({ method: 'GET', url: '/api/openapi.json' });
    assert.equal(r.statusCode, 200);
    assert.match(String(r.headers['content-type']), /^application\/json/);
    const doc = r.json() as Doc;
    assert.equal(doc.openapi, '3.0.3');
    assert.equal(doc.info.title, 'DOM DAO bridge');
    for (const path of ['/health', '/auth/login', '/api/auth/register', '/api/webhooks/payments', '/test-email', '/'])
      assert.ok(doc.paths[path], path);
  });

  it('decision B47: docs/api/bridge.openapi.json is current', async () => {
    const committed = readFileSync(BRIDGE_OPENAPI_FILE, 'utf8');
    const generated = await generateBridgeOpenApi();
    assert.ok(
      committed === generated,
      'docs/api/bridge.openapi.json is stale (a bridge route or its schema changed): run `npm run openapi:bridge`, then commit docs/api/bridge.openapi.json (GET /api/docs renders it)',
    );
  });

  it('decision B56: every operation has a unique lowerCamelCase operationId, a description, one declared tag and its security', async () => {
    const doc = (await h.request({ method: 'GET', url: '/api/openapi.json' })).json() as Doc;
    const where =
      "give it in the route's RouteDoc beside the handler (the feature's route-docs.ts, spread into the schema by routeSchema(): operationId, description, tag, security, decision B124), then run `npm run openapi:bridge`";
    const tags = new Set(doc.tags.map((t) => t.name));
    const schemes = doc.components.securitySchemes;
    const seen = new Map<string, string>();
    const missing: string[] = [];
    for (const { key, op } of operations(doc)) {
      const problems: string[] = [];
      if (!op.operationId) problems.push('no operationId');
      else if (!/^[a-z][A-Za-z0-9]*$/.test(op.operationId))
        problems.push(`operationId ${op.operationId} is not lowerCamelCase`);
      else if (seen.has(op.operationId))
        problems.push(`operationId ${op.operationId} is also ${seen.get(op.operationId)}'s`);
      else seen.set(op.operationId, key);
      if (!op.description?.trim()) problems.push('no description');
      if (op.tags?.length !== 1 || !tags.has(op.tags[0]!))
        problems.push(`tags ${JSON.stringify(op.tags)}: name exactly one of ${[...tags].join(', ')}`);
      if (!Array.isArray(op.security))
        problems.push(
          "no security: say who may call it (`security: []` when public, 'public' in a RouteDoc; sessionCookie, bearerToken, apiToken, paymentSignature)",
        );
      else
        for (const req of op.security)
          for (const name of Object.keys(req))
            if (!schemes[name]) problems.push(`security scheme ${name} is not declared`);
      if (problems.length) missing.push(`${key}: ${problems.join('; ')}`);
    }
    assert.deepEqual(missing, [], `operations missing what the document needs (${where}):\n${missing.join('\n')}`);
  });

  it('decision B56: the security schemes: sessionCookie is the real session cookie, bearerToken is HTTP bearer, X-API-Token and the webhook signature are header keys', async () => {
    const doc = (await h.request({ method: 'GET', url: '/api/openapi.json' })).json() as Doc;
    const s = doc.components.securitySchemes;
    assert.deepEqual(
      s.sessionCookie && { type: s.sessionCookie.type, in: s.sessionCookie.in, name: s.sessionCookie.name },
      {
        type: 'apiKey',
        in: 'cookie',
        name: 'session',
      },
    );
    assert.deepEqual(s.bearerToken && { type: s.bearerToken.type, scheme: s.bearerToken.scheme }, {
      type: 'http',
      scheme: 'bearer',
    });
    assert.deepEqual(s.apiToken && { in: s.apiToken.in, name: s.apiToken.name }, { in: 'header', name: 'X-API-Token' });
    assert.deepEqual(s.paymentSignature && { in: s.paymentSignature.in, name: s.paymentSignature.name }, {
      in: 'header',
      name: 'Payment-Signature',
    });
    const op = (path: string, method: string) => doc.paths[path]![method]!;
    assert.deepEqual(op('/test-email', 'post').security, [{ bearerToken: [] }]);
    // Decision B78: the token, or an admin's session (the console's button).
    assert.deepEqual(op('/api/admin/price/submit-proposal', 'post').security, [
      { apiToken: [] },
      { sessionCookie: [] },
    ]);
    assert.deepEqual(op('/api/ai/admin/reindex', 'post').security, [{ apiToken: [] }]);
    assert.deepEqual(op('/api/campaigns', 'post').security, [{ sessionCookie: [] }]);
    assert.deepEqual(op('/api/campaigns', 'get').security, []);
    assert.deepEqual(op('/health', 'get').security, []);
  });

  it('decision B47: every operation has a summary, a tag and described responses; decision S30: the page that renders them is one of them', async () => {
    const doc = inlineRefs((await h.request({ method: 'GET', url: '/api/openapi.json' })).json() as Doc);
    for (const { key, op } of operations(doc)) {
      assert.ok(op.summary, `${key}: no summary (add it to the route's RouteDoc, decision B124)`);
      assert.ok(op.tags?.length, `${key}: no tag`);
      const codes = Object.keys(op.responses ?? {});
      assert.ok(
        codes.some((c) => /^2\d\d$/.test(c)),
        `${key}: no success response documented`,
      );
      for (const c of codes) assert.ok(op.responses![c]!.description, `${key} ${c}: no description`);
    }
    assert.ok(
      operations(doc).some((o) => o.key === 'GET /api/docs'),
      'GET /api/docs, the rendered reference, is in the document',
    );
  });

  it('decision B127: each error body and each error answer two operations give is written once, under components, and $ref-ed', async () => {
    type Answers = Record<string, Record<string, unknown>>;
    const doc = (await h.request({ method: 'GET', url: '/api/openapi.json' })).json() as {
      paths: Record<string, Record<string, { responses: Answers }>>;
      components: { securitySchemes: unknown; schemas?: Record<string, unknown>; responses?: Answers };
    };
    assert.deepEqual(
      Object.keys(doc.components.schemas ?? {}).sort(),
      Object.keys(SHARED_ERROR_SCHEMAS).sort(),
      'the shared error bodies are components',
    );
    assert.ok(
      !JSON.stringify(doc.paths).includes('machine-readable code'),
      'no operation writes the error body out: it $refs components/schemas/ErrorBody',
    );
    const refs = new Map<string, number>();
    const inline = new Map<string, string>();
    for (const [path, ops] of Object.entries(doc.paths))
      for (const [method, op] of Object.entries(ops))
        for (const [status, answer] of Object.entries(op.responses)) {
          if (typeof answer.$ref === 'string') refs.set(answer.$ref, (refs.get(answer.$ref) ?? 0) + 1);
          else if (Number(status) >= 400) {
            const text = JSON.stringify(answer);
            assert.equal(
              inline.get(text),
              undefined,
              `${method.toUpperCase()} ${path} ${status} is also ${inline.get(text)}: one component`,
            );
            inline.set(text, `${method.toUpperCase()} ${path} ${status}`);
          }
        }
    const named = Object.keys(doc.components.responses ?? {});
    assert.ok(named.length >= 20, `repeated error answers are named (${named.length})`);
    for (const name of named)
      assert.ok((refs.get(`#/components/responses/${name}`) ?? 0) >= 2, `${name} is given by two operations or more`);
    // Written out and folded again, it is the same document: folding loses nothing an operation says.
    assert.deepEqual(withSharedComponents(inlineRefs(doc)), doc);
    const unfolded = { ...inlineRefs(doc), components: { securitySchemes: doc.components.securitySchemes } };
    const [size, full] = [doc, unfolded].map((d) => Buffer.byteLength(JSON.stringify(d, null, 2)));
    assert.ok(
      size! < full! * 0.75,
      `the document (${size} bytes) is well under the one with every answer in full (${full})`,
    );
  });
});
