// One contract (decision F12): what the bridge answers is what its OpenAPI document says, so the
// portal's types generated from the document (apps/portal/src/bridge-api.ts) are the answers' types.
// Every JSON answer the portal reads is validated against the document's schema for its status, with
// no field the document does not name (an object without `additionalProperties: true` is closed).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Ajv } from 'ajv';
import { readBridgeOpenApi } from '../scripts/openapi.ts';
import { ADMIN_EMAIL, bridge, type Bridge, type Jar } from './harness.ts';

type Schema = Record<string, unknown>;
type Doc = {
  paths: Record<
    string,
    Record<string, { responses: Record<string, { content?: Record<string, { schema: Schema }> }> }>
  >;
};
const doc = readBridgeOpenApi<Doc>();

/** The schema with every object that does not allow more fields closed to them. */
function closed(s: unknown): unknown {
  if (Array.isArray(s)) return s.map(closed);
  if (s === null || typeof s !== 'object') return s;
  const out: Schema = Object.fromEntries(
    Object.entries(s).map(([k, v]) => [
      k,
      k === 'properties' ? Object.fromEntries(Object.entries(v as Schema).map(([p, x]) => [p, closed(x)])) : closed(v),
    ]),
  );
  if (out.type === 'object' && out.properties && out.additionalProperties === undefined)
    out.additionalProperties = false;
  return out;
}

const ajv = new Ajv({ strict: false, validateFormats: false, allErrors: true });

describe('decision F12: the answers the portal reads match the OpenAPI document', () => {
  let h: Bridge;
  let jar: Jar;
  let proposalId: string;

  before(async () => {
    h = await bridge(undefined, { DEV_FAUCET_DOM: '10', DEV_CHECKOUT: 'true' });
    const signedIn = await h.member(ADMIN_EMAIL);
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
    ({ jar } = await h.login(ADMIN_EMAIL));
  });
  after(() => h?.close());

  async function check(
    method: 'GET' | 'POST' | 'PUT',
    url: string,
    template: string,
    payload?: object,
    headers?: Record<string, string>,
  ) {
    const r = await h.request({ method, url, jar, ...(payload && { payload }), ...(headers && { headers }) });
    const response = doc.paths[template]?.[method.toLowerCase()]?.responses[String(r.statusCode)];
    assert.ok(response, `${method} ${url}: status ${r.statusCode} is not documented for ${template}: ${r.body}`);
    const schema = response.content?.['application/json']?.schema;
    assert.ok(schema, `${method} ${template} ${r.statusCode}: no JSON schema documented`);
    const validate = ajv.compile(closed(schema) as Schema);
    const body = r.json() as unknown;
    assert.ok(
      validate(body),
      `${method} ${url} ${r.statusCode} does not match the document: ${ajv.errorsText(validate.errors)}\n${r.body}`,
    );
    return { status: r.statusCode, body: body as Record<string, unknown> };
  }

  it('decision F12: campaigns, contributions, balances, donations and the treasury (decision L21 views)', async () => {
    assert.equal((await check('POST', '/api/dev/faucet', '/api/dev/faucet', {})).status, 200);
    const deadline = new Date(h.now() + 7 * 86_400_000).toISOString();
    const created = await check('POST', '/api/campaigns', '/api/campaigns', {
      title: 'Garden',
      description: 'Seeds',
      goal: { usd: 100 },
      deadline,
    });
    assert.equal(created.status, 201);
    await check('POST', '/api/campaigns', '/api/campaigns', {
      title: 'Trees',
      description: 'Oaks',
      goal: { dom_e8s: '500000000' },
      deadline,
    });
    const id = String(created.body.id);
    assert.equal(
      (
        await check('POST', `/api/campaigns/${id}/contributions`, '/api/campaigns/{id}/contributions', {
          amount: { dom_e8s: '100000000' },
        })
      ).status,
      201,
    );
    for (const url of ['/api/campaigns', '/api/campaigns?limit=100']) await check('GET', url, '/api/campaigns');
    await check('GET', `/api/campaigns/${id}`, '/api/campaigns/{id}');
    await check('GET', `/api/campaigns/${id}/contributions?limit=100`, '/api/campaigns/{id}/contributions');
    await check('GET', '/api/me/balance', '/api/me/balance');
    await check('GET', '/api/me/contributions', '/api/me/contributions');
    assert.equal(
      (await check('POST', '/api/donations', '/api/donations', { amount: { dom_e8s: '1000000' } })).status,
      201,
    );
    await check('GET', '/api/donations', '/api/donations');
    await check('GET', '/api/treasury', '/api/treasury');
    await check('GET', '/api/treasury/payouts', '/api/treasury/payouts');
    assert.equal((await check('POST', `/api/campaigns/${id}/cancel`, '/api/campaigns/{id}/cancel', {})).status, 200);
    await check('GET', '/api/me/contributions', '/api/me/contributions');
    assert.equal((await check('GET', '/api/campaigns/999', '/api/campaigns/{id}')).status, 404);
  });

  it('decision F12: the wallet: a transfer, its replay, its refusals and the history (decisions B75, B76)', async () => {
    const other = await h.member('contract-wallet@example.org');
    const { principal: to } = (await h.request({ method: 'GET', url: '/api/me/profile', jar: other.jar })).json() as {
      principal: string;
    };
    assert.equal((await check('POST', '/api/dev/faucet', '/api/dev/faucet', {})).status, 200);
    const body = { to, amount_e8s: '100000', fee_e8s: '10000' };
    assert.equal(
      (await check('POST', '/api/me/transfers', '/api/me/transfers', body, { 'idempotency-key': 'contract-1' })).status,
      201,
    );
    assert.equal(
      (await check('POST', '/api/me/transfers', '/api/me/transfers', body, { 'idempotency-key': 'contract-1' })).status,
      201,
    );
    assert.equal(
      (
        await check(
          'POST',
          '/api/me/transfers',
          '/api/me/transfers',
          { ...body, amount_e8s: '1' },
          { 'idempotency-key': 'contract-1' },
        )
      ).status,
      422,
    );
    assert.equal(
      (
        await check(
          'POST',
          '/api/me/transfers',
          '/api/me/transfers',
          { ...body, fee_e8s: '1' },
          { 'idempotency-key': 'contract-2' },
        )
      ).status,
      409,
    );
    const history = await check('GET', '/api/me/transactions?limit=100', '/api/me/transactions');
    assert.ok((history.body.items as unknown[]).length >= 2);
    await check('GET', '/api/me/transactions?limit=1', '/api/me/transactions');
  });

  it('decision F12: proposals, votes, receipts, settings and the ratified price (decision V12 views)', async () => {
    const created = await check('POST', '/api/governance/propose', '/api/governance/propose', {
      title: 'Trees',
      body: 'Plant trees.',
      category: 'General',
    });
    assert.equal(created.status, 201);
    proposalId = String(created.body.proposal_id);
    h.advance(3_600_000);
    await h.opened.canisters.platform!.tick();
    ({ jar } = await h.login(ADMIN_EMAIL));
    await check('POST', '/api/governance/vote', '/api/governance/vote', { proposal_id: proposalId, vote: 'Yes' });
    await check('GET', '/api/governance/proposals?limit=100', '/api/governance/proposals');
    await check('GET', '/api/governance/proposals?status=Open&limit=5', '/api/governance/proposals');
    await check('GET', `/api/governance/proposals/${proposalId}`, '/api/governance/proposals/{id}');
    await check('GET', `/api/governance/proposals/${proposalId}/my-vote`, '/api/governance/proposals/{id}/my-vote');
    // Decisions V30, V31: the proposal page's timeline, the votes list (the admin signed in here), reasons; the
    // delegation page.
    await check('GET', `/api/governance/proposals/${proposalId}/timeline`, '/api/governance/proposals/{id}/timeline');
    await check(
      'GET',
      `/api/governance/proposals/${proposalId}/votes?limit=50`,
      '/api/governance/proposals/{id}/votes',
    );
    await check('GET', `/api/governance/proposals/${proposalId}/reasons`, '/api/governance/proposals/{id}/reasons');
    await check('GET', '/api/governance/delegation', '/api/governance/delegation');
    await check('GET', '/api/governance/delegation/delegators', '/api/governance/delegation/delegators');
    await check('GET', '/api/governance/my-receipts?take=100', '/api/governance/my-receipts');
    await check('GET', '/api/governance/settings', '/api/governance/settings');
    await check('GET', '/api/governance/price/history?limit=100', '/api/governance/price/history');
    assert.equal((await check('GET', '/api/governance/price', '/api/governance/price')).status, 404);
  });

  it('decision F12: the session, the member pages (activity, preferences, sessions, membership) and AI health', async () => {
    await check('GET', '/api/auth/session', '/api/auth/session');
    await check('GET', '/auth/session', '/auth/session');
    await check('GET', '/api/auth/registration-key', '/api/auth/registration-key');
    await check('GET', '/api/me/activity?limit=20', '/api/me/activity');
    await check('GET', '/api/me/notification-preferences', '/api/me/notification-preferences');
    await check('PUT', '/api/me/notification-preferences', '/api/me/notification-preferences', {
      digest_frequency: 'weekly',
    });
    await check('GET', '/api/me/sessions', '/api/me/sessions');
    await check('GET', '/api/me/membership-upgrade', '/api/me/membership-upgrade');
    await check('POST', '/api/dev/checkout', '/api/dev/checkout', {});
    await check('GET', '/api/ai/health', '/api/ai/health');
  });

  it('decision F12: the admin console reads (users, payments, notifications, job runs, emails, governance events)', async () => {
    for (const [url, template] of [
      ['/api/admin/users?limit=50', '/api/admin/users'],
      ['/api/admin/payments', '/api/admin/payments'],
      ['/api/admin/payments?status=applied', '/api/admin/payments'],
      ['/api/admin/notifications', '/api/admin/notifications'],
      ['/api/admin/jobs/runs', '/api/admin/jobs/runs'],
      ['/api/admin/jobs/runs/grouped', '/api/admin/jobs/runs/grouped'],
      ['/api/admin/jobs/runs/grouped?job=accounts:expire-unverified&limit=50', '/api/admin/jobs/runs/grouped'],
      ['/api/admin/emails', '/api/admin/emails'],
      ['/api/governance/admin/events', '/api/governance/admin/events'],
    ] as const)
      await check('GET', url, template);
    // Decision B78: the console's price button, with the admin's session (no price source here: 409 NO_AGGREGATE).
    const price = await check('POST', '/api/admin/price/submit-proposal', '/api/admin/price/submit-proposal');
    assert.deepEqual([price.status, price.body.error], [409, 'NO_AGGREGATE']);
  });
});
