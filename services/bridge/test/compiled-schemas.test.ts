// Decision B80: the bridge's route schemas are compiled once per process, by Fastify's own
// compilers, so a request is checked and an answer written exactly as without the memo.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { compiledSchemas } from '../src/core/http/compiled-schemas.ts';

function app(
  withMemo: boolean,
  headers: Record<string, unknown> = { 'x-api-token': { type: 'string' } },
): FastifyInstance {
  const f = Fastify(withMemo ? { schemaController: { compilersFactory: compiledSchemas } } : {});
  f.post(
    '/thing',
    {
      schema: {
        body: {
          type: 'object',
          required: ['n'],
          additionalProperties: false,
          properties: { n: { type: 'integer', minimum: 1 }, tag: { type: 'string', default: 'none' } },
        },
        querystring: { type: 'object', properties: { page: { type: 'integer' } } },
        headers: { type: 'object', required: Object.keys(headers), properties: headers },
        response: {
          200: {
            type: 'object',
            properties: { n: { type: 'integer' }, tag: { type: 'string' }, page: { type: 'integer' } },
          },
        },
      },
    },
    // `secret` is not in the answer's schema: the serializer leaves it out.
    async (req) => ({ ...(req.body as object), page: (req.query as { page?: number }).page, secret: 'x' }),
  );
  return f;
}

const requests = [
  { payload: { n: 2 }, url: '/thing?page=3', headers: { 'x-api-token': 't' } },
  { payload: { n: 2, extra: true }, url: '/thing', headers: { 'X-API-Token': 't' } },
  { payload: { n: 0 }, url: '/thing', headers: { 'x-api-token': 't' } },
  { payload: { n: '7' }, url: '/thing?page=x', headers: { 'x-api-token': 't' } },
  { payload: { n: 2 }, url: '/thing', headers: {} },
];

describe('decision B80: route schemas compiled once per process', () => {
  it('answers every request as Fastify does without the memo: coercion, defaults, refusals, the answer schema', async () => {
    const plain = app(false);
    const memo = app(true);
    for (const r of requests) {
      const [a, b] = await Promise.all([plain, memo].map((f) => f.inject({ method: 'POST', ...r })));
      assert.equal(b!.statusCode, a!.statusCode, JSON.stringify(r));
      assert.equal(b!.body, a!.body, JSON.stringify(r));
    }
    const ok = await memo.inject({ method: 'POST', ...requests[0]! });
    assert.deepEqual(ok.json(), { n: 2, tag: 'none', page: 3 });
    await Promise.all([plain.close(), memo.close()]);
  });

  it('a second app in the process gets the same compiled functions for the same schemas', () => {
    const options = { customOptions: {} };
    const route = {
      schema: { type: 'object', properties: { n: { type: 'integer' } } },
      method: 'POST',
      url: '/a',
      httpPart: 'body',
    } as const;
    const first = compiledSchemas.buildValidator!({}, options)(route);
    const second = compiledSchemas.buildValidator!(
      {},
      options,
    )({ ...route, schema: structuredClone(route.schema), url: '/b' });
    assert.equal(second, first, 'an equal schema is not compiled again');
    const other = compiledSchemas.buildValidator!(
      {},
      options,
    )({ ...route, schema: { type: 'object', properties: { n: { type: 'string' } } } });
    assert.notEqual(other, first, 'another schema is compiled');
    assert.notEqual(
      compiledSchemas.buildValidator!({}, { customOptions: { coerceTypes: false } })(route),
      first,
      "the compiler's options are in the key",
    );
    const answer = {
      schema: { type: 'object', properties: { n: { type: 'integer' } } },
      method: 'GET',
      url: '/a',
      httpStatus: '200',
    };
    assert.equal(
      compiledSchemas.buildSerializer!({}, {})(answer),
      compiledSchemas.buildSerializer!({}, {})({ ...answer, url: '/b' }),
    );
  });

  it('a header schema naming a header in capitals is refused when the app is built, with the route named', async () => {
    const f = app(true, { 'X-Api-Token': { type: 'string' } });
    await assert.rejects(
      async () => f.ready(),
      /POST \/thing: name the header "X-Api-Token" in lower case \(decision B80\)/,
    );
  });
});
