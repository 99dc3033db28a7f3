// The OpenAPI document (served and committed) and the preview command.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { defaultOpenApiText, OPENAPI_PATH } from '../scripts/openapi.ts';
import { renderPreviews } from '../scripts/preview.ts';
import { templates } from '../src/templates/index.ts';
import { makeService, TEST_TOKEN } from './helpers.ts';

describe('OpenAPI document', () => {
  let svc: Awaited<ReturnType<typeof makeService>>;
  before(async () => (svc = await makeService()));
  after(() => svc.close());

  it('is served at GET /api/v1/openapi.json behind the bearer token (Authentication rule 1)', async () => {
    assert.equal((await svc.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).statusCode, 401);
    const res = await svc.app.inject({ method: 'GET', url: '/api/v1/openapi.json', headers: { authorization: `Bearer ${TEST_TOKEN}` } });
    assert.equal(res.statusCode, 200);
    const doc = res.json();
    assert.equal(doc.openapi, '3.1.0');
    assert.equal(doc.info.version, '1.5.0');
    const variants = doc.paths['/api/v1/send'].post.requestBody.content['application/json'].schema.oneOf;
    assert.equal(variants.length, 14);
    assert.deepEqual(Object.keys(doc.paths['/api/v1/send'].post.responses).sort(), ['200', '400', '401', '403', '409', '413', '415', '422', '500', '503']);
  });

  it('every variant’s example validates against its own schema (the examples are real requests)', async () => {
    const doc = JSON.parse(defaultOpenApiText());
    const ajv = new Ajv2020({ strict: false, validateFormats: false });
    for (const v of doc.paths['/api/v1/send'].post.requestBody.content['application/json'].schema.oneOf) {
      const schema = { ...v, properties: { ...v.properties, to: { type: 'string' }, attachments: { type: 'array' } } };
      assert.ok(ajv.validate(schema, v.example), `${v.title}: ${JSON.stringify(ajv.errors)}`);
    }
  });

  it('the committed docs/api/notification.openapi.json is current (run `npm run openapi`)', () => {
    assert.equal(readFileSync(OPENAPI_PATH, 'utf8'), defaultOpenApiText());
  });
});

describe('preview command', () => {
  const dir = mkdtempSync(join(tmpdir(), 'previews-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('renders every template for every brand it allows, HTML and text, plus an index', () => {
    renderPreviews(dir, { NODE_ENV: 'development' });
    const files = readdirSync(dir);
    const both = Object.values(templates).filter((t) => t.brands === 'both').length;
    const daoOnly = Object.values(templates).length - both;
    assert.equal(files.filter((f) => f.endsWith('.html') && f !== 'index.html').length, both * 2 + daoOnly);
    assert.ok(files.includes('welcome.product.html'));
    assert.ok(!files.includes('membership-confirm.product.html'));
    assert.match(readFileSync(join(dir, 'index.html'), 'utf8'), /Email previews \(25\)/);
    assert.match(readFileSync(join(dir, 'welcome.dao.txt'), 'utf8'), /^Subject: Welcome to DOM DAO, Ada Lovelace/);
  });
});
