// Decision D39: the JSON body parser answers as Fastify's default one (secure-json-parse, `error` for
// prototype-poisoning keys) at less cost; the answers are checked over HTTP, the equivalence with
// secure-json-parse as a property.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import sjson from 'secure-json-parse';
import { isCleanBody, parseJsonBody } from '../src/http/json-body.ts';
import { makeService, validBody } from './harness.ts';

/** What Fastify's default parser does with a body's bytes (decoded as UTF-8): the value, or which error. */
function viaFastify(body: string): { value?: unknown; error?: string } {
  const text = Buffer.from(body).toString('utf8');
  if (text.length === 0) return { error: 'FST_ERR_CTP_EMPTY_JSON_BODY' };
  try {
    return { value: sjson.parse(text, null, { protoAction: 'error', constructorAction: 'error' }) };
  } catch {
    return { error: 'FST_ERR_CTP_INVALID_JSON_BODY' };
  }
}

function viaOurs(body: string): { value?: unknown; error?: string } {
  let out: { value?: unknown; error?: string } = {};
  parseJsonBody(undefined, Buffer.from(body), (err, value) => {
    out = err ? { error: (err as Error & { code: string }).code } : { value };
  });
  return out;
}

// Keys that poison (or nearly do), literally and with JSON escapes in every position.
const keys = fc.constantFrom(
  '__proto__',
  '\\u005f_proto__',
  '__pr\\u006Fto__',
  '\\u005F\\u005Fproto\\u005f\\u005f',
  'constructor',
  'c\\u006fnstructor',
  'prototype',
  'proto',
  '__proto',
  'a',
  'constructor ',
);
const values = fc.constantFrom(
  '{}',
  '[]',
  '1',
  'null',
  '"x"',
  '{"prototype":{}}',
  '{"prototype":1}',
  '{"prototype":null}',
  '{"a":{"prototype":{}}}',
  '[{"__proto__":{}}]',
);
const poisonish: fc.Arbitrary<string> = fc.letrec((tie) => ({
  node: fc.oneof(
    { depthSize: 'small' },
    values,
    fc
      .array(fc.tuple(keys, tie('node') as fc.Arbitrary<string>), { maxLength: 3 })
      .map((kv) => `{${kv.map(([k, v]) => `"${k}" :${v}`).join(',')}}`),
    fc.array(tie('node') as fc.Arbitrary<string>, { maxLength: 3 }).map((xs) => `[${xs.join(',')}]`),
  ),
})).node;

describe('the JSON body parser (D39)', () => {
  it('answers as secure-json-parse (Fastify default) on JSON, poisoning keys in every spelling, BOMs and broken text', () => {
    const bodies = fc.oneof(
      fc.json(),
      poisonish,
      poisonish.map((s) => `\ufeff${s}`),
      fc.json().map((s) => s.slice(0, Math.max(0, s.length - 1))),
      fc.string({ maxLength: 12 }),
      fc.string({ unit: 'binary', maxLength: 12 }).map((s) => JSON.stringify({ a: s })),
    );
    fc.assert(
      fc.property(bodies, (body) => {
        assert.deepEqual(viaOurs(body), viaFastify(body), JSON.stringify(body));
      }),
      { numRuns: 20000 },
    );
  });

  it('marks a body clean exactly when its text has no backslash, U+007F–U+009F, U+2028 or U+2029', () => {
    assert.equal(isCleanBody(viaOurs('{"a":"plain text é 😀"}').value), true);
    assert.equal(isCleanBody(viaOurs('{"a":"ascii only"}').value), true);
    for (const body of [
      '{"a":"line\\nbreak"}',
      '{"a":"\\u0041"}',
      '{"a":"\u0085"}',
      '{"a":"\u2028"}',
      '{"a":"\x7f"}',
      '{"a":"é\\n"}',
      '{"a":"é\u0085"}',
    ]) {
      assert.equal(isCleanBody(viaOurs(body).value), false, body);
    }
    assert.equal(isCleanBody(viaOurs('"x"').value), false);
  });
});

describe('the JSON body over HTTP (D3, D39)', () => {
  let svc: Awaited<ReturnType<typeof makeService>>;
  before(async () => {
    svc = await makeService();
  });
  after(() => svc.close());

  for (const body of [
    '{"constructor": {"prototype": {"admin": true}}, "type": "welcome"}',
    '{"\\u005f_proto__": {}, "type": "welcome"}',
    '{"data": [{"__proto__": 1}]}',
    '{"type": "welcome",',
  ]) {
    it(`${body}: 400 invalid_request, body is not valid JSON`, async () => {
      const res = await svc.send(body);
      assert.equal(res.statusCode, 400);
      assert.deepEqual(res.json().details, [{ field: 'body', message: 'is not valid JSON' }]);
    });
  }

  it('an empty body is 400 invalid_request, body must be a JSON object', async () => {
    const res = await svc.send('');
    assert.equal(res.statusCode, 400);
    assert.deepEqual(res.json().details, [{ field: 'body', message: 'must be a JSON object' }]);
  });

  it('a body with a byte order mark and one with a harmless constructor field are sent', async () => {
    assert.equal((await svc.send(`\ufeff${JSON.stringify(validBody('welcome'))}`)).statusCode, 200);
    assert.equal((await svc.send({ ...validBody('welcome'), constructor: { name: 'x' } })).statusCode, 200);
  });

  it('escaped control characters in a one-line field are still refused (the clean path does not apply)', async () => {
    const res = await svc.send(JSON.stringify(validBody('welcome', { data: { user_name: 'Ada\u0007' } })));
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().error, 'invalid_template_data');
    assert.equal(res.json().details[0].field, 'data.user_name');
  });
});
