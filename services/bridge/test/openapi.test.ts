// The bridge's OpenAPI document (decision B47): generated from the routes, served,
// committed and kept current; the README's endpoint table lists exactly the same operations.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { BRIDGE_OPENAPI_FILE, generateBridgeOpenApi } from '../scripts/openapi.ts';
import { bridge, type Bridge } from './harness.ts';

type Operation = { summary?: string; tags?: string[]; responses?: Record<string, { description?: string }> };
type Doc = { openapi: string; info: { title: string; version: string }; paths: Record<string, Record<string, Operation>> };

const operations = (doc: Doc) =>
  Object.entries(doc.paths).flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => ({ key: `${method.toUpperCase()} ${path}`, op })));

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
    for (const path of ['/health', '/auth/login', '/api/auth/register', '/api/webhooks/payments', '/test-email', '/']) assert.ok(doc.paths[path], path);
  });

  it('decision B47: docs/api/bridge.openapi.json is current', async () => {
    const committed = readFileSync(BRIDGE_OPENAPI_FILE, 'utf8');
    const generated = await generateBridgeOpenApi();
    assert.ok(
      committed === generated,
      'docs/api/bridge.openapi.json is stale (a bridge route or its schema changed): run `npm run openapi:bridge`, then commit docs/api/bridge.openapi.json; also update the README "Bridge endpoints" table',
    );
  });

  it('decision B47: every operation has a summary, a tag and described responses; the README table lists exactly these operations', async () => {
    const doc = (await h.request({ method: 'GET', url: '/api/openapi.json' })).json() as Doc;
    for (const { key, op } of operations(doc)) {
      assert.ok(op.summary, `${key}: no summary (add it to ROUTE_DOCS in services/bridge/src/core/http/route-docs/ or to the route's schema)`);
      assert.ok(op.tags?.length, `${key}: no tag`);
      const codes = Object.keys(op.responses ?? {});
      assert.ok(
        codes.some((c) => /^2\d\d$/.test(c)),
        `${key}: no success response documented`,
      );
      for (const c of codes) assert.ok(op.responses![c]!.description, `${key} ${c}: no description`);
    }
    const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
    const section = readme.slice(readme.indexOf('### Bridge endpoints'), readme.indexOf('### Canister clients on an IC network'));
    const rows = [...section.matchAll(/^\| `([A-Z]+)` \| `([^`]+)` \|/gm)].map((m) => `${m[1]} ${m[2]}`).sort();
    assert.deepEqual(
      rows,
      operations(doc)
        .map((o) => o.key)
        .sort(),
      'the README "Bridge endpoints" table and the OpenAPI document list the same operations',
    );
  });
});
