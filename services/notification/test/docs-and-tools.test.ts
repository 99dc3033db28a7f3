// The OpenAPI document (served and committed) and the preview command.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { defaultOpenApiText, OPENAPI_PATH } from '../scripts/openapi.ts';
import { renderPreviews } from '../scripts/preview.ts';
import { templates } from '../src/templates/catalog.ts';
import { MULTI_LINE, NOT_LINE_BREAK_OR_CONTROL, SINGLE_LINE } from '../src/templates/template-schema.ts';
import { makeService, TEST_TOKEN } from './harness.ts';

describe('OpenAPI document', () => {
  let svc: Awaited<ReturnType<typeof makeService>>;
  before(async () => (svc = await makeService()));
  after(() => svc.close());

  it('is served at GET /api/v1/openapi.json behind the bearer token (Authentication rule 1)', async () => {
    assert.equal((await svc.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).statusCode, 401);
    const res = await svc.app.inject({
      method: 'GET',
      url: '/api/v1/openapi.json',
      headers: { authorization: `Bearer ${TEST_TOKEN}` },
    });
    assert.equal(res.statusCode, 200);
    const doc = res.json();
    assert.equal(doc.openapi, '3.1.0');
    assert.equal(doc.info.version, '1.5.0');
    const variants = doc.paths['/api/v1/send'].post.requestBody.content['application/json'].schema.oneOf;
    assert.equal(variants.length, 14);
    assert.deepEqual(variants[0], { $ref: '#/components/schemas/WelcomeRequest' });
    assert.deepEqual(Object.keys(doc.paths['/api/v1/send'].post.responses).sort(), [
      '200',
      '400',
      '401',
      '403',
      '409',
      '413',
      '415',
      '422',
      '500',
      '503',
    ]);
  });

  it('every variant’s example validates against its own schema (the examples are real requests)', async () => {
    const doc = JSON.parse(defaultOpenApiText());
    const ajv = new Ajv2020({ strict: false, validateFormats: false });
    for (const { $ref } of doc.paths['/api/v1/send'].post.requestBody.content['application/json'].schema.oneOf) {
      const v = doc.components.schemas[($ref as string).split('/').at(-1)!];
      const schema = { ...v, properties: { ...v.properties, to: { type: 'string' }, attachments: { type: 'array' } } };
      assert.ok(ajv.validate(schema, v.example), `${v.title}: ${JSON.stringify(ajv.errors)}`);
    }
  });

  it('the committed docs/api/notification.openapi.json is current (run `npm run openapi`)', () => {
    assert.equal(readFileSync(OPENAPI_PATH, 'utf8'), defaultOpenApiText());
  });
});

describe('OpenAPI patterns (decision D33; the linters run in scripts/test/openapi-lint.test.ts)', () => {
  it('decision D33: the published patterns mean the same with and without the u flag, on every code point', () => {
    for (const source of [SINGLE_LINE, MULTI_LINE]) {
      const plain = new RegExp(source);
      const unicode = new RegExp(source, 'u');
      const reference = new RegExp(source.replaceAll(NOT_LINE_BREAK_OR_CONTROL, '[^\\p{Cc}\\p{Zl}\\p{Zp}]'), 'u');
      for (let cp = 0; cp <= 0x10ffff; cp += cp < 0x3000 ? 1 : 97) {
        if (cp >= 0xd800 && cp <= 0xdfff) continue;
        for (const text of [`a${String.fromCodePoint(cp)}b`, String.fromCodePoint(cp)]) {
          const expected = reference.test(text);
          assert.equal(plain.test(text), expected, `U+${cp.toString(16)} without u`);
          assert.equal(unicode.test(text), expected, `U+${cp.toString(16)} with u`);
        }
      }
    }
  });

  it('decision D33: the committed document uses no \\p{…} escape (no pattern needs the u flag)', () => {
    assert.doesNotMatch(readFileSync(OPENAPI_PATH, 'utf8'), /\\\\p\{/);
  });

  it('GET /api/v1/openapi.json documents its 200 content and its 401, 403 and 503', () => {
    const doc = JSON.parse(defaultOpenApiText());
    const responses = doc.paths['/api/v1/openapi.json'].get.responses;
    assert.deepEqual(Object.keys(responses).sort(), ['200', '401', '403', '503']);
    assert.equal(responses['200'].content['application/json'].schema.type, 'object');
    assert.equal(responses['401'].content['application/json'].schema.$ref, '#/components/schemas/Error');
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
