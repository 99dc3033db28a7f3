// Bad input against every operation of the bridge's OpenAPI document (decision B55): path
// parameters, query parameters and bodies generated with fast-check from the document's own schemas
// (huge, negative and fractional numbers, numbers as text past nat64, wrong types, long strings, odd
// Unicode and malformed escapes, missing and extra fields, bodies that are not JSON), sent with a
// signed-in admin (who is also a member), the bearer token, the API token or a signed webhook so the
// input reaches validation. Every answer is below 500, and an error is documented: a status the
// operation lists (or one any route may answer), and a code the document names. Fixed seed, bounded
// runs (FUZZ_RUNS per operation, default 25). To explore: FUZZ_SEED=<n> FUZZ_RUNS=40, and
// FUZZ_REPORT=<file> to append every failure to the file (one line each) instead of stopping.
import assert from 'node:assert/strict';
import { appendFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { signPayload } from '../src/features/payments/signature.ts';
import { readBridgeOpenApi } from '../scripts/openapi.ts';
import { ACCESS_TOKEN, ADMIN_EMAIL, WEBHOOK_SECRET, bridge, type Bridge, type Jar } from './harness.ts';
import { startFakeInference, type FakeInference } from './fake-inference.ts';

type Schema = {
  type?: string;
  pattern?: string;
  format?: string;
  enum?: unknown[];
  anyOf?: Schema[];
  minimum?: number;
  maximum?: number;
  /** OpenAPI 3.0 (draft-04): `minimum` is excluded when true. */
  exclusiveMinimum?: boolean;
  minLength?: number;
  maxLength?: number;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  maxItems?: number;
};
type Parameter = { in: 'path' | 'query' | 'header'; name: string; required?: boolean; schema: Schema };
type Operation = {
  security?: Array<Record<string, string[]>>;
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema: Schema }> };
  responses: Record<string, { description?: string; content?: Record<string, unknown> }>;
};
type Doc = { paths: Record<string, Record<string, Operation>> };

const SEED = Number(process.env.FUZZ_SEED ?? 20260310);
const RUNS = Number(process.env.FUZZ_RUNS ?? 25);
const API_TOKEN = 'fuzz-api-token-0123456789abcdef';
const doc = readBridgeOpenApi<Doc>();

/** Statuses any route may answer whatever it documents: no route matched (a path parameter that is
 *  empty or too long), a body over the limit, a body that is not JSON. */
const ANY_ROUTE = new Set([404, 413, 415]);
// And a URL the router cannot read, or a body sent as JSON that is not: 400 VALIDATION_ERROR (422 in the
// AI scope) whose message starts "URL: " or "body: " (decision B55).
/** Documented answers that come from the test bridge's state, not from the input: no price source is
 *  configured, so the price is unavailable whatever is asked. */
const STATE: Record<string, number> = { 'GET /api/price/dom-usd': 503 };
/** Every code the document names in an error description (`UPPER_CASE` or a canister's `CamelCase`). */
const KNOWN = new Set<string>();
for (const ops of Object.values(doc.paths)) {
  for (const op of Object.values(ops)) {
    for (const [status, r] of Object.entries(op.responses)) {
      if (Number(status) < 400) continue;
      for (const m of (r.description ?? '').matchAll(/\b([A-Z][A-Z0-9_]{3,}|[A-Z][a-z]+(?:[A-Z][a-z]*)+)\b/g))
        KNOWN.add(m[1]!);
    }
  }
}

// ---- generators: a value for a schema, mostly bad ----

const ODD = [
  '',
  ' ',
  '\u0000',
  '\uD800',
  '\uDFFF',
  '\u202Eevil',
  'e\u0301',
  '\uFEFF1',
  '😀'.repeat(40),
  'ｆｕｌｌ',
  '１２３',
  '٣',
  '\n\r',
  '../../etc/passwd',
  '%00',
  '<script>',
  "' or 1=1 --",
  '{}',
  'null',
  'true',
];
const NUMBER_TEXT = [
  '99999999999999999999',
  '18446744073709551615',
  '18446744073709551616',
  '9223372036854775808',
  '9007199254740993',
  '1e20',
  '1e400',
  '-1',
  '-0',
  '0',
  '00',
  '01',
  '1.5',
  '0x10',
  ' 1',
  '1 ',
  '+1',
  'NaN',
  'Infinity',
  '-Infinity',
  '1_000',
];
const NUMBERS = [
  1e20,
  -1e20,
  -1,
  0,
  -0,
  1.5,
  2 ** 53,
  2 ** 53 + 2,
  2 ** 64,
  Number.MAX_VALUE,
  Number.MIN_VALUE,
  1e-300,
];
const WRONG_TYPES: unknown[] = [null, true, false, {}, [], [1], ['a'], { a: 1 }, [[[]]]];

const oddString = fc.oneof(
  fc.constantFrom(...ODD, ...NUMBER_TEXT),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.constantFrom(255, 256, 1025, 5000, 70_000).map((n) => 'x'.repeat(n)),
);

function good(s: Schema): fc.Arbitrary<unknown> {
  if (s.anyOf) return fc.oneof(...s.anyOf.map(good));
  if (s.enum) return fc.constantFrom(...s.enum);
  switch (s.type) {
    case 'string':
      if (s.pattern) return fc.stringMatching(new RegExp(s.pattern));
      if (s.format === 'date-time')
        return fc
          .date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true })
          .map((d) => d.toISOString());
      if (s.format === 'uuid') return fc.uuid();
      return fc.string({ minLength: s.minLength ?? 0, maxLength: Math.min(s.maxLength ?? 30, 30) });
    case 'integer':
      return fc.integer({ min: Math.max(s.minimum ?? -1e6, -1e9), max: Math.min(s.maximum ?? 1e6, 1e9) });
    case 'number':
      return fc.double({
        min: s.minimum ?? -1e6,
        max: s.maximum ?? 1e6,
        noNaN: true,
        minExcluded: s.exclusiveMinimum === true,
      });
    case 'boolean':
      return fc.boolean();
    case 'array':
      return fc.array(s.items ? good(s.items) : fc.anything(), { maxLength: Math.min(s.maxItems ?? 3, 3) });
    case 'object':
      return object(s, true);
    default:
      return fc.anything({ maxDepth: 1 });
  }
}

function bad(s: Schema): fc.Arbitrary<unknown> {
  const edges: number[] = [...NUMBERS];
  for (const b of [s.minimum, s.maximum]) if (b !== undefined) edges.push(b - 1, b, b + 1, b + 0.5);
  const arbs: Array<fc.Arbitrary<unknown>> = [
    fc.constantFrom(...edges),
    fc.constantFrom(...NUMBER_TEXT),
    fc.constantFrom(...WRONG_TYPES),
    oddString,
  ];
  if (s.type === 'object' || s.properties) arbs.push(object(s, false));
  if (s.type === 'array')
    arbs.push(
      fc.array(s.items ? value(s.items) : fc.anything(), {
        minLength: (s.maxItems ?? 10) + 1,
        maxLength: (s.maxItems ?? 10) + 2,
      }),
    );
  if (s.maxLength !== undefined) arbs.push(fc.constant('y'.repeat(s.maxLength + 1)));
  return fc.oneof(...arbs);
}

/** One value for a schema: valid a third of the time, so that other fields' bad values are reached. */
const value = (s: Schema): fc.Arbitrary<unknown> =>
  fc.oneof({ arbitrary: good(s), weight: 1 }, { arbitrary: bad(s), weight: 2 });

/** An object: each property valid, bad or missing (required ones too), plus an unknown field now and then. */
function object(s: Schema, valid: boolean): fc.Arbitrary<Record<string, unknown>> {
  const props = Object.entries(s.properties ?? {});
  const required = new Set(s.required ?? []);
  const fields = props.map(([k, p]) => {
    const v = valid ? good(p) : value(p);
    const keep = valid && required.has(k) ? fc.constant(true) : fc.boolean();
    return fc.tuple(keep, v).map(([present, x]) => (present ? [[k, x] as const] : []));
  });
  const extra = valid
    ? fc.constant([])
    : fc
        .option(
          fc.tuple(fc.constantFrom('extra', '__proto__', 'constructor', 'id', ''), fc.anything({ maxDepth: 1 })),
          { nil: undefined },
        )
        .map((e) => (e ? [e] : []));
  return fc.tuple(fc.tuple(...fields), extra).map(([fs, ex]) => Object.fromEntries([...fs.flat(), ...ex]));
}

/** Query and path values are text: a generated value as it would be written in a URL. */
const asText = (v: unknown): string =>
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- what is left is a primitive, printed as itself
  typeof v === 'string' ? v : v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v);
/** Percent-encoding of the text's UTF-8 (lone surrogates become U+FFFD, as a browser sends them). */
const enc = (t: string) =>
  [...Buffer.from(t, 'utf8')]
    .map((b) =>
      /[A-Za-z0-9._~-]/.test(String.fromCharCode(b))
        ? String.fromCharCode(b)
        : `%${b.toString(16).toUpperCase().padStart(2, '0')}`,
    )
    .join('');
/** Ids of what the suite creates first (a campaign, a proposal), so that a cursor reaches a real list. */
const EXISTING = ['1', '2'];
/** Raw, possibly malformed escapes put into a URL as they are. */
const RAW = ['%', '%Z', '%FF', '%C0%80', '%E0%A4', '%2F', '%00', '..', '%2e%2e', '+', '%20'];

interface Input {
  path: Record<string, string>;
  query: Array<[string, string]>;
  rawQuery: string | undefined;
  body: { json: unknown } | { raw: string; type: string } | undefined;
}

function inputFor(op: Operation): fc.Arbitrary<Input> {
  const params = op.parameters ?? [];
  const pathParams = params.filter((p) => p.in === 'path');
  const queryParams = params.filter((p) => p.in === 'query');
  const path = fc
    .tuple(
      ...pathParams.map((p) =>
        fc.oneof(
          value(p.schema).map((v) => enc(asText(v))),
          fc.constantFrom(...RAW),
          fc.constantFrom(...EXISTING),
        ),
      ),
    )
    .map((vs) => Object.fromEntries(vs.map((v, i) => [pathParams[i]!.name, v])));
  const query = fc
    .tuple(
      ...queryParams.map((p) =>
        fc
          .option(fc.array(value(p.schema), { minLength: 1, maxLength: 2 }), { nil: undefined, freq: 3 })
          .map((vs) => (vs ?? []).map((v) => [p.name, asText(v)] as [string, string])),
      ),
      fc
        .option(fc.tuple(fc.constantFrom('extra', 'limit', '__proto__', 'a[b]'), oddString), {
          nil: undefined,
          freq: 2,
        })
        .map((e) => (e ? [e] : [])),
    )
    .map((groups) => groups.flat());
  const rawQuery = fc.option(
    fc
      .tuple(fc.constantFrom(...queryParams.map((p) => p.name), 'x'), fc.constantFrom(...RAW))
      .map(([k, v]) => `${k}=${v}`),
    { nil: undefined, freq: 5 },
  );
  const schema = op.requestBody?.content['application/json']?.schema;
  const junk = fc.oneof(
    fc
      .constantFrom('{', '{"a":', 'not json', '[1,2', '"', '\u0000', '{"__proto__": {"x": 1}}', '{"a": 1e999}')
      .map((raw) => ({ raw, type: 'application/json' })),
    fc.constantFrom(
      { raw: 'a=1&b=2', type: 'application/x-www-form-urlencoded' },
      { raw: 'hello', type: 'text/plain' },
      { raw: '<x/>', type: 'application/xml' },
    ),
  );
  const body: fc.Arbitrary<Input['body']> = schema
    ? fc.oneof(
        { arbitrary: value(schema).map((json) => ({ json })), weight: 6 },
        { arbitrary: junk, weight: 1 },
        { arbitrary: fc.constant(undefined), weight: 1 },
      )
    : fc.oneof(
        { arbitrary: fc.constant(undefined), weight: 2 },
        { arbitrary: fc.anything({ maxDepth: 2 }).map((json) => ({ json })), weight: 1 },
        { arbitrary: junk, weight: 1 },
      );
  return fc.record({ path, query, rawQuery, body });
}

// ---- the run ----

const operations = Object.entries(doc.paths).flatMap(([path, ops]) =>
  Object.entries(ops).map(([method, op]) => ({ method: method.toUpperCase(), path, op })),
);
/** Operations that end the session they are called with get a session of their own each time. */
const ENDS_SESSION = new Set(['POST /auth/logout', 'DELETE /api/me/sessions']);

describe('decision B55: bad input on every operation of the OpenAPI document answers a documented error, never a 5xx', () => {
  let h: Bridge;
  let fake: FakeInference;
  let admin: Jar;

  before(async () => {
    fake = await startFakeInference();
    h = await bridge(undefined, {
      INFERENCE_URL: fake.url,
      AI_RATE_LIMIT_PER_MINUTE: '100000',
      API_TOKEN,
      DEV_FAUCET_DOM: '10',
    });
    const signedIn = await h.member(ADMIN_EMAIL);
    // An Active member, so member-only operations (propose, vote) reach their input.
    const { principal } = await h.opened.db
      .selectFrom('users')
      .select('principal')
      .where('id', '=', signedIn.user_id)
      .executeTakeFirstOrThrow();
    assert.ok('Ok' in (await h.opened.canisters.clients.user.record_kyc(principal, true)));
    assert.ok(
      'Ok' in
        (await h.opened.canisters.clients.user.upgrade_membership_to_active({
          principal,
          kyc_proof: new Uint8Array([1]),
          payment_proof: new Uint8Array([2]),
        })),
    );
    ({ jar: admin } = await h.login(ADMIN_EMAIL));
    await h.member('member@example.org');
    const roles = (await h.request({ method: 'GET', url: '/auth/session', jar: admin })).json() as { roles: string[] };
    assert.ok(
      roles.roles.includes('admin') && roles.roles.includes('member'),
      'the fuzzing session is an admin and a member',
    );
    // Something to list: campaign 1 with a contribution, proposal 1 with a vote.
    const post = (url: string, payload: object) => h.request({ method: 'POST', url, payload, jar: admin });
    assert.equal((await post('/api/dev/faucet', {})).statusCode, 200);
    const campaign = await post('/api/campaigns', {
      title: 'Garden',
      description: 'Seeds',
      goal: { usd: 100 },
      deadline: new Date(h.now() + 7 * 86_400_000).toISOString(),
    });
    assert.equal(campaign.json().id, '1', campaign.body);
    assert.equal((await post('/api/campaigns/1/contributions', { amount: { dom_e8s: '100000000' } })).statusCode, 201);
    const proposal = await post('/api/governance/propose', {
      title: 'Trees',
      body: 'Plant trees.',
      category: 'General',
    });
    assert.equal(proposal.statusCode, 201, proposal.body);
    h.advance(3_600_000);
    await h.opened.canisters.platform!.tick();
    ({ jar: admin } = await h.login(ADMIN_EMAIL));
    assert.equal(
      (await post('/api/governance/vote', { proposal_id: proposal.json().proposal_id, vote: 'Yes' })).statusCode,
      200,
    );
  });
  after(async () => {
    await h?.close();
    await fake?.close();
  });

  /** A GET over a socket, its body read only when it is not a stream (then the stream is let go). */
  const streamed = async (url: string) => {
    const base = await listening();
    const ac = new AbortController();
    const res = await fetch(`${base}${url}`, { signal: ac.signal });
    const event = /^text\/event-stream/.test(res.headers.get('content-type') ?? '');
    const body = event ? '' : await res.text();
    ac.abort();
    return {
      statusCode: res.status,
      headers: { 'content-type': res.headers.get('content-type') ?? '' },
      body,
      json: () => JSON.parse(body) as unknown,
    };
  };
  let address: string | undefined;
  const listening = async () => (address ??= await h.app.listen({ port: 0, host: '127.0.0.1' }));
  const get = (url: string) => h.request({ method: 'GET', url, jar: admin });
  const expectRefused = async (url: string, field: string) => {
    const r = await get(url);
    assert.equal(r.statusCode, 400, `${url}: ${r.body}`);
    assert.equal(r.json().error, 'VALIDATION_ERROR', url);
    assert.match(r.json().message, new RegExp(field), url);
    assert.equal(typeof r.json().request_id, 'string');
  };
  const expectOk = async (url: string) => {
    const r = await get(url);
    assert.equal(r.statusCode, 200, `${url}: ${r.body}`);
  };

  it('decision B55: price history from, to and after_id stop at 2^53 − 1 (400 VALIDATION_ERROR past it, e.g. to=1e20, was a 500)', async () => {
    for (const p of ['from', 'to', 'after_id']) {
      await expectOk(
        `/api/price/dom-usd/history?${p}=${Number.MAX_SAFE_INTEGER}${p === 'from' ? `&to=${Number.MAX_SAFE_INTEGER}` : ''}`,
      );
      await expectRefused(`/api/price/dom-usd/history?${p}=${Number.MAX_SAFE_INTEGER + 1}`, p);
      await expectRefused(`/api/price/dom-usd/history?${p}=1e20`, p);
    }
  });

  it('decision B55: a number text that is not finite (Infinity, -Infinity, 1e400) is 400 VALIDATION_ERROR wherever a number is expected (Ajv let it through: a 500)', async () => {
    for (const url of [
      '/api/me/activity?limit=-Infinity',
      '/api/me/activity?limit=1e400',
      '/api/price/dom-usd/history?to=Infinity',
      '/api/admin/users?limit=-Infinity',
      '/api/campaigns?limit=Infinity',
    ]) {
      await expectRefused(url, 'must be a finite number');
    }
    await expectOk('/api/me/activity?limit=100');
    const ignored = await h.request({
      method: 'POST',
      url: '/api/dev/faucet',
      payload: '{"a": 1e999}',
      headers: { 'content-type': 'application/json' },
      jar: admin,
    });
    assert.equal(ignored.statusCode, 200, `a route without a body schema ignores its body whole: ${ignored.body}`);
  });

  it('decision B55: campaign ids and after_seq are nat64 (18446744073709551615 answers, one more and 99999999999999999999 are 400 VALIDATION_ERROR, was a 500)', async () => {
    await expectOk('/api/campaigns/1/contributions?after_seq=18446744073709551615');
    await expectOk('/api/campaigns/1/contributions?after_seq=0');
    await expectRefused('/api/campaigns/1/contributions?after_seq=18446744073709551616', 'after_seq');
    await expectRefused('/api/campaigns/1/contributions?after_seq=99999999999999999999', 'after_seq');
    assert.equal((await get('/api/campaigns/18446744073709551615')).json().error, 'CampaignNotFound');
    await expectRefused('/api/campaigns/18446744073709551616', 'id');
    await expectRefused('/api/donations?from_id=18446744073709551616', 'from_id');
  });

  it('decision B55: bigint cursors (activity, job runs, governance events) stop at 9223372036854775807 (one more is 400 VALIDATION_ERROR, was a 500)', async () => {
    for (const [path, p] of [
      ['/api/me/activity', 'before_id'],
      ['/api/admin/jobs/runs', 'before_id'],
      ['/api/governance/admin/events', 'after_seq'],
    ] as const) {
      await expectOk(`${path}?${p}=9223372036854775807`);
      await expectRefused(`${path}?${p}=9223372036854775808`, p);
    }
    const page = await get('/activity?before_id=9223372036854775808');
    assert.equal(page.statusCode, 400);
    assert.equal(page.json().error, 'VALIDATION_ERROR');
  });

  it('decision B55: what Fastify refuses itself answers in the bridge error body with documented codes', async () => {
    const badUrl = await get('/api/campaigns/%C0%80');
    assert.equal(badUrl.statusCode, 400);
    assert.equal(badUrl.json().error, 'VALIDATION_ERROR');
    assert.match(badUrl.json().message, /^URL: /);
    assert.equal(typeof badUrl.json().request_id, 'string');
    const longSegment = await get(`/api/campaigns/${'1'.repeat(101)}`);
    assert.deepEqual([longSegment.statusCode, longSegment.json().error], [400, 'VALIDATION_ERROR']);
    const notJson = await h.request({
      method: 'POST',
      url: '/api/campaigns',
      payload: '{"title":',
      headers: { 'content-type': 'application/json' },
      jar: admin,
    });
    assert.deepEqual([notJson.statusCode, notJson.json().error], [400, 'VALIDATION_ERROR']);
    const proto = await h.request({
      method: 'POST',
      url: '/api/campaigns',
      payload: '{"__proto__": {"x": 1}}',
      headers: { 'content-type': 'application/json' },
      jar: admin,
    });
    assert.deepEqual([proto.statusCode, proto.json().error], [400, 'VALIDATION_ERROR']);
    const xml = await h.request({
      method: 'POST',
      url: '/api/campaigns',
      payload: '<x/>',
      headers: { 'content-type': 'application/xml' },
      jar: admin,
    });
    assert.deepEqual([xml.statusCode, xml.json().error], [415, 'UNSUPPORTED_MEDIA_TYPE']);
    const ai = await h.request({
      method: 'POST',
      url: '/api/ai/embed',
      payload: '{"text":',
      headers: { 'content-type': 'application/json' },
      jar: admin,
    });
    assert.deepEqual(
      [ai.statusCode, ai.json().code],
      [422, 'VALIDATION_ERROR'],
      'the AI scope answers 422 for any bad body (decision A3)',
    );
  });

  it("decision B55: a donation below the ledger's minimum burn is 400 InvalidArgument (was a 502 LedgerError); the minimum itself burns", async () => {
    const fee = BigInt((await get('/api/me/balance')).json().fee_e8s as string);
    const below = await h.request({
      method: 'POST',
      url: '/api/donations',
      payload: { amount: { dom_e8s: String(fee - 1n) } },
      jar: admin,
    });
    assert.deepEqual([below.statusCode, below.json().error], [400, 'InvalidArgument'], below.body);
    const at = await h.request({
      method: 'POST',
      url: '/api/donations',
      payload: { amount: { dom_e8s: String(fee) } },
      jar: admin,
    });
    assert.equal(at.statusCode, 201, at.body);
  });

  it('the document lists operations to drive, and codes to expect', () => {
    assert.ok(operations.length > 50, String(operations.length));
    for (const code of ['VALIDATION_ERROR', 'NOT_FOUND', 'UNAUTHORIZED', 'CampaignNotFound'])
      assert.ok(KNOWN.has(code), code);
  });

  for (const { method, path, op } of operations) {
    const key = `${method} ${path}`;
    const hasInput = (op.parameters ?? []).some((p) => p.in !== 'header') || op.requestBody !== undefined;
    it(`decision B55: ${key}`, async () => {
      const security = Object.keys(op.security?.[0] ?? {})[0];
      const ai = path.startsWith('/api/ai/');
      const streams = op.responses['200']?.content?.['text/event-stream'] !== undefined;
      await fc.assert(
        fc.asyncProperty(inputFor(op), async (input) => {
          try {
            await one(input);
          } catch (e) {
            if (!process.env.FUZZ_REPORT) throw e;
            appendFileSync(process.env.FUZZ_REPORT, `${key}\t${(e as Error).message.split('\n')[0]}\n`);
          }
        }),
        { seed: SEED, numRuns: hasInput ? RUNS : Math.min(RUNS, 3), endOnFailure: true },
      );
      async function one(input: Input) {
        const url = path.replace(/\{(\w+)\}/g, (_, name: string) => input.path[name] ?? 'x');
        const qs = [
          ...input.query.map(([k, v]) => `${enc(k)}=${enc(v)}`),
          ...(input.rawQuery ? [input.rawQuery] : []),
        ].join('&');
        const headers: Record<string, string> = {};
        let payload: string | undefined;
        if (input.body && 'json' in input.body) {
          payload = JSON.stringify(input.body.json) ?? 'null';
          headers['content-type'] = 'application/json';
        } else if (input.body) {
          payload = input.body.raw;
          headers['content-type'] = input.body.type;
        }
        if (security === 'bearerToken') headers.authorization = `Bearer ${ACCESS_TOKEN}`;
        if (security === 'apiToken' || path === '/api/admin/price/submit-proposal') headers['x-api-token'] = API_TOKEN;
        if (security === 'paymentSignature')
          headers['payment-signature'] = signPayload(WEBHOOK_SECRET, Math.floor(h.now() / 1000), payload ?? '');
        const jar = ENDS_SESSION.has(key) ? (await h.login('member@example.org')).jar : admin;
        // An event stream (decision V32) never ends: it is asked over a socket and let go once its
        // status and headers have come; an injected request would wait for its end for ever.
        const r = streams
          ? await streamed(qs ? `${url}?${qs}` : url)
          : await h.request({
              method: method as 'GET',
              url: qs ? `${url}?${qs}` : url,
              headers,
              jar,
              ...(payload !== undefined && { payload }),
              ...(method !== 'GET' && { origin: 'https://app.domdao.example' }),
            });
        const what = `${method} ${url}${qs ? `?${qs}` : ''} ${payload === undefined ? '' : payload.slice(0, 300)} → ${r.statusCode} ${r.body.slice(0, 300)}`;
        if (STATE[key] === r.statusCode) return;
        assert.ok(r.statusCode < 500, `a 5xx: ${what}`);
        if (r.statusCode < 400) return;
        const json = /^application\/json/.test(String(r.headers['content-type']));
        const unreadable =
          r.statusCode === (ai ? 422 : 400) &&
          json &&
          /^(URL: |body: (not valid JSON|empty))/.test(
            String((r.json() as { message?: unknown; error?: unknown })[ai ? 'error' : 'message']),
          );
        assert.ok(
          op.responses[String(r.statusCode)] || ANY_ROUTE.has(r.statusCode) || unreadable,
          `status not documented for the operation: ${what}`,
        );
        if (!json) {
          assert.match(String(r.headers['content-type']), /^text\/html/, `neither JSON nor a page: ${what}`);
          return;
        }
        const body = r.json() as { error?: unknown; code?: unknown; request_id?: unknown };
        const code = ai && typeof body.code === 'string' ? body.code : body.error;
        assert.equal(typeof code, 'string', `no error code: ${what}`);
        assert.ok(KNOWN.has(code as string), `${String(code)} is not a code the document names: ${what}`);
        if (!ai) assert.equal(typeof body.request_id, 'string', `no request_id: ${what}`);
      }
    });
  }
});
