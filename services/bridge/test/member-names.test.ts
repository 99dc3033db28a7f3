// Decision F22: members are shown by a display name they choose (a friendly default until then), never
// an email; names come back beside proposers, voters, campaign creators and contributors; members find
// each other by name (the payout recipient, a transfer's receiver).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { defaultDisplayName, normaliseDisplayName } from '../src/core/identity/display-names.ts';
import { bridge, type Bridge, type Jar } from './harness.ts';

const DAY_MS = 86_400_000;
const E8S = 100_000_000n;
let h: Bridge;
let alice: { jar: Jar; user_id: string; principal: string };
let bob: { jar: Jar; user_id: string; principal: string };

async function principalOf(userId: string) {
  return (await h.opened.db.selectFrom('users').select('principal').where('id', '=', userId).executeTakeFirstOrThrow())
    .principal;
}
const get = (url: string, jar?: Jar) => h.request({ method: 'GET', url, ...(jar && { jar }) });
const setName = (jar: Jar | undefined, display_name: unknown, origin?: string | null) =>
  h.request({
    method: 'PUT',
    url: '/api/me/display-name',
    payload: { display_name } as object,
    ...(jar && { jar }),
    ...(origin !== undefined && { origin }),
  });

before(async () => {
  h = await bridge(undefined, { DEV_FAUCET_DOM: '1000' });
  const a = await h.member('alice-names@domdao.example');
  const b = await h.member('bob-names@domdao.example');
  alice = { ...a, principal: await principalOf(a.user_id) };
  bob = { ...b, principal: await principalOf(b.user_id) };
});
after(() => h.close());

describe('display names (decision F22)', () => {
  it('a default name is friendly, stable per principal and never the email', async () => {
    const r = await get('/api/me/profile', alice.jar);
    assert.equal(r.statusCode, 200, r.body);
    const p = r.json() as { principal: string; display_name: string; default_name: string; chosen: boolean };
    assert.equal(p.principal, alice.principal);
    assert.match(p.display_name, /^[A-Z][a-z]+ [A-Z][a-z]+ #[0-9a-f]{4}$/);
    assert.equal(p.display_name, defaultDisplayName(alice.principal), 'derived from the principal');
    assert.equal(p.chosen, false);
    assert.doesNotMatch(r.body, /alice-names/, 'no email in the profile');
    assert.equal((await get('/api/me/profile')).statusCode, 401);
  });

  it('choosing a name: normalised, 3 and 32 characters accepted, 2 and 33 refused, # and @ refused, unique ignoring case', async () => {
    let r = await setName(alice.jar, '  Ada   Lovelace ');
    assert.equal(r.statusCode, 200, r.body);
    assert.deepEqual([r.json().display_name, r.json().chosen], ['Ada Lovelace', true]);
    for (const ok of ['Ada', 'A'.repeat(32), 'Zoë Ñandú', "O'Brien-Smith_2"]) {
      r = await setName(bob.jar, ok);
      assert.equal(r.statusCode, 200, `${ok}: ${r.body}`);
    }
    for (const bad of ['Ab', 'A'.repeat(33), 'ada@example.org', 'Amber Otter #3f2a', '12345', '<b>x</b>']) {
      r = await setName(bob.jar, bad);
      assert.deepEqual([r.statusCode, r.json().error], [400, 'VALIDATION_ERROR'], bad);
    }
    assert.deepEqual(
      normaliseDisplayName(' Jose\u0301  Ruiz '),
      { name: 'Jos\u00e9 Ruiz' },
      'NFC: one code point for é',
    );
    r = await setName(bob.jar, 'ADA LOVELACE');
    assert.deepEqual([r.statusCode, r.json().error], [409, 'NAME_TAKEN']);
    assert.equal((await setName(undefined, 'Nobody')).statusCode, 401);
    assert.deepEqual(
      [(await setName(bob.jar, 'Cross Site', null)).json().error],
      ['CSRF_REJECTED'],
      'the Origin rule (decision B8)',
    );
    r = await setName(bob.jar, null);
    assert.deepEqual(
      [r.json().display_name, r.json().chosen],
      [defaultDisplayName(bob.principal), false],
      'null goes back to the default',
    );
  });

  it('search by name: signed-in only, 2 characters at least, chosen and default names, prefix first, no emails, wildcards literal', async () => {
    assert.equal((await get('/api/members?q=ada')).statusCode, 401);
    let r = await get('/api/members?q=a', bob.jar);
    assert.deepEqual([r.statusCode, r.json().error], [400, 'VALIDATION_ERROR'], 'one character is too short');
    r = await get('/api/members?q=%20%20', bob.jar);
    assert.equal(r.statusCode, 400, 'spaces alone are not a search');
    r = await get('/api/members?q=lovel', bob.jar);
    assert.equal(r.statusCode, 200, r.body);
    assert.deepEqual(r.json().items, [{ principal: alice.principal, display_name: 'Ada Lovelace' }]);
    assert.doesNotMatch(r.body, /@domdao/);
    const bobDefault = defaultDisplayName(bob.principal);
    r = await get(`/api/members?q=${encodeURIComponent(bobDefault.slice(0, 8).toLowerCase())}`, alice.jar);
    assert.ok(
      (r.json().items as Array<{ principal: string }>).some((m) => m.principal === bob.principal),
      'a default name is found',
    );
    assert.deepEqual(
      (await get('/api/members?q=%25%25', bob.jar)).json().items,
      [],
      '% is a character, not a wildcard',
    );
    await setName(bob.jar, 'Lovelace Fan');
    r = await get('/api/members?q=love', alice.jar);
    assert.deepEqual(
      (r.json().items as Array<{ display_name: string }>).map((m) => m.display_name),
      ['Lovelace Fan', 'Ada Lovelace'],
      'names starting with the query first',
    );
    assert.equal((await get('/api/members?q=love&limit=1', alice.jar)).json().items.length, 1);
    assert.equal((await get('/api/members?q=love&limit=21', alice.jar)).statusCode, 400, 'at most 20 results');
    await h.register('carol-unverified@domdao.example');
    const carol = await h.opened.db
      .selectFrom('users')
      .select(['default_name'])
      .where('email_verified_at', 'is', null)
      .executeTakeFirstOrThrow();
    assert.deepEqual(
      (await get(`/api/members?q=${encodeURIComponent(carol.default_name)}`, alice.jar)).json().items,
      [],
      'unverified accounts are not offered',
    );
  });

  it('names beside proposers, campaign creators and contributors; a canister principal has none', async () => {
    const c = h.opened.canisters.clients;
    assert.ok('Ok' in (await c.user.record_kyc(alice.principal, true)));
    assert.ok(
      'Ok' in
        (await c.user.upgrade_membership_to_active({
          principal: alice.principal,
          kyc_proof: new Uint8Array([1]),
          payment_proof: new Uint8Array([2]),
        })),
    );
    let r = await h.request({
      method: 'POST',
      url: '/api/governance/propose',
      jar: alice.jar,
      payload: { title: 'Names', body: 'b', category: 'General' },
    });
    assert.equal(r.statusCode, 201, r.body);
    const id = r.json().proposal_id as string;
    assert.equal((await get(`/api/governance/proposals/${id}`)).json().proposed_by_name, 'Ada Lovelace');
    const listed = (await get('/api/governance/proposals')).json().items as Array<{
      id: string;
      proposed_by_name: string;
    }>;
    assert.equal(listed.find((p) => p.id === id)!.proposed_by_name, 'Ada Lovelace');

    assert.equal(
      (await h.request({ method: 'POST', url: '/api/dev/faucet', jar: bob.jar, payload: {} })).statusCode,
      200,
    );
    const deadline = new Date(h.now() + 2 * DAY_MS).toISOString();
    r = await h.request({
      method: 'POST',
      url: '/api/campaigns',
      jar: alice.jar,
      payload: { title: 'Trees', description: '', goal: { dom_e8s: String(50n * E8S) }, deadline },
    });
    assert.equal(r.statusCode, 201, r.body);
    assert.deepEqual([r.json().owner_name, r.json().beneficiary_name], ['Ada Lovelace', 'Ada Lovelace']);
    const cid = r.json().id as string;
    r = await h.request({
      method: 'POST',
      url: `/api/campaigns/${cid}/contributions`,
      jar: bob.jar,
      payload: { amount: { dom_e8s: String(2n * E8S) } },
    });
    assert.equal(r.statusCode, 201, r.body);
    assert.equal(r.json().contributor_name, 'Lovelace Fan');
    assert.equal((await get(`/api/campaigns/${cid}/contributions`)).json().items[0].contributor_name, 'Lovelace Fan');
    assert.equal((await get(`/api/campaigns/${cid}`)).json().owner_name, 'Ada Lovelace');
    assert.equal(
      (await get('/api/campaigns')).json().items.find((c: { id: string }) => c.id === cid).owner_name,
      'Ada Lovelace',
    );
    const treasury = (await get('/api/treasury')).json() as { account: { owner: string } };
    r = await h.request({
      method: 'POST',
      url: '/api/campaigns',
      jar: alice.jar,
      payload: {
        title: 'To the treasury',
        description: '',
        goal: { dom_e8s: String(E8S) },
        deadline,
        beneficiary: treasury.account.owner,
      },
    });
    assert.equal(r.statusCode, 201, r.body);
    assert.equal(r.json().beneficiary_name, null, 'a canister is no member: no name');
  });
});
