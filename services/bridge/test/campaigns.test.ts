// Decisions L20–L23: members receive development DOM, create campaigns,
// contribute in DOM or USD (the bridge approves and contributes as the member), see progress in DOM
// and USD, their balance, contributions and refunds, the treasury's balance and payouts; canister
// errors as documented HTTP codes; the faucet refused in production and off by default.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Principal } from '@icp-sdk/core/principal';
import { ConfigError } from '@domdao/config';
import { loadBridgeConfig } from '../src/config.ts';
import { bridge, type Bridge, type Jar } from './harness.ts';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const E8S = 100_000_000n;
const FEE = 10_000n;
let h: Bridge;
let alice: { jar: Jar; user_id: string; principal: string };
let bob: { jar: Jar; user_id: string; principal: string };

async function principalOf(userId: string) {
  return (await h.opened.db.selectFrom('users').select('principal').where('id', '=', userId).executeTakeFirstOrThrow())
    .principal;
}

/** A SetDomPrice ratified on the embedded canisters (the governance gateway's own tests cover it through HTTP). */
async function ratifyPrice(price: number) {
  const platform = h.opened.canisters.platform!;
  const c = h.opened.canisters.clients;
  const voter = await principalOf(alice.user_id);
  if ((await c.membership.get_membership_status(voter))!.status !== 'Active') {
    assert.ok('Ok' in (await c.user.record_kyc(voter, true)));
    assert.ok(
      'Ok' in
        (await c.user.upgrade_membership_to_active({
          principal: voter,
          kyc_proof: new Uint8Array([1]),
          payment_proof: new Uint8Array([2]),
        })),
    );
  }
  const r = await c.governance.create_proposal({
    title: 'price',
    body: 'b',
    category: 'SetDomPrice',
    payload: { SetDomPrice: { price_usd: price } },
  });
  assert.ok('Ok' in r);
  h.advance(HOUR_MS + 1000);
  await platform.tick();
  assert.ok('Ok' in (await platform.as(voter).governance.cast_vote(r.Ok, 'Yes')));
  h.advance(3 * DAY_MS + 1000);
  await platform.tick();
  // Days passed: sign in again (sessions expire).
  alice.jar = (await h.login('alice-money@domdao.example')).jar;
  bob.jar = (await h.login('bob-money@domdao.example')).jar;
  return r.Ok;
}

before(async () => {
  h = await bridge(undefined, { DEV_FAUCET_DOM: '1000', EMBEDDED_TREASURY_DOM: '5000' });
  const a = await h.member('alice-money@domdao.example');
  const b = await h.member('bob-money@domdao.example');
  alice = { ...a, principal: await principalOf(a.user_id) };
  bob = { ...b, principal: await principalOf(b.user_id) };
});
after(() => h.close());

const post = (url: string, jar: Jar | undefined, payload: unknown, headers: Record<string, string> = {}) =>
  h.request({ method: 'POST', url, jar, payload: payload as object, headers });
const get = (url: string, jar?: Jar) => h.request({ method: 'GET', url, ...(jar && { jar }) });

describe('DOM through the bridge (decisions L20–L23)', () => {
  it('the development faucet gives a member DOM; the balance shows it; the treasury holds its initial DOM', async () => {
    assert.equal((await post('/api/dev/faucet', undefined, {})).statusCode, 401);
    const r = await post('/api/dev/faucet', alice.jar, {});
    assert.equal(r.statusCode, 200, r.body);
    assert.deepEqual(r.json(), {
      amount_e8s: String(1000n * E8S),
      block_index: (r.json() as { block_index: string }).block_index,
      balance_e8s: String(1000n * E8S),
    });
    assert.equal((await post('/api/dev/faucet', bob.jar, {})).statusCode, 200);
    const bal = (await get('/api/me/balance', alice.jar)).json() as {
      account: { owner: string; subaccount: null };
      balance_e8s: string;
      fee_e8s: string;
    };
    assert.deepEqual(bal, {
      account: { owner: alice.principal, subaccount: null },
      // ICRC-1 textual encoding: the principal itself without a subaccount (decision F29).
      account_text: alice.principal,
      balance_e8s: String(1000n * E8S),
      fee_e8s: String(FEE),
      faucet_e8s: String(1000n * E8S),
      // Decision B107: DEV_FAUCET_PER_DAY's default.
      faucet_per_day: 5,
    });
    const t = (await get('/api/treasury')).json() as { account: { owner: string }; balance_e8s: string };
    assert.deepEqual([t.account.owner, t.balance_e8s], [h.opened.canisters.ids.treasury, String(5000n * E8S)]);
    assert.deepEqual((await get('/api/treasury/payouts')).json(), { items: [] });
  });

  it('a USD-goal campaign: DOM contributions without a price, USD ones at the ratified tick; progress in DOM and USD', async () => {
    const deadline = new Date(h.now() + 10 * DAY_MS).toISOString();
    const created = await post('/api/campaigns', alice.jar, {
      title: 'Garden',
      description: 'Seeds',
      goal: { usd: 100 },
      deadline,
    });
    assert.equal(created.statusCode, 201, created.body);
    const c = created.json() as { id: string; progress: Record<string, unknown>; status: string };
    assert.deepEqual(
      c.progress,
      { goal_dom: '0', raised_dom: '0', raised_usd: null, goal_usd: 100, pct_complete: 0, price_tick_id: null },
      'no usable price: DOM only (G4)',
    );
    const usdNoPrice = await post(`/api/campaigns/${c.id}/contributions`, bob.jar, { amount: { usd: 5 } });
    assert.deepEqual([usdNoPrice.statusCode, usdNoPrice.json().error], [409, 'PriceUnavailable']);
    const dom = await post(
      `/api/campaigns/${c.id}/contributions`,
      bob.jar,
      { amount: { dom_e8s: String(10n * E8S) } },
      { 'idempotency-key': 'bob-1' },
    );
    assert.equal(dom.statusCode, 201, dom.body);
    assert.deepEqual(
      [dom.json().amount_e8s, dom.json().usd_value, dom.json().price_tick_id],
      [String(10n * E8S), null, null],
    );
    const again = await post(
      `/api/campaigns/${c.id}/contributions`,
      bob.jar,
      { amount: { dom_e8s: String(10n * E8S) } },
      { 'idempotency-key': 'bob-1' },
    );
    assert.deepEqual(
      [again.statusCode, again.json().seq, again.json().block_index],
      [201, dom.json().seq, dom.json().block_index],
      'a retried request is the same contribution',
    );
    const tick = await ratifyPrice(0.5);
    const usd = await post(`/api/campaigns/${c.id}/contributions`, bob.jar, { amount: { usd: 20 } });
    assert.equal(usd.statusCode, 201, usd.body);
    assert.deepEqual(
      [usd.json().amount_e8s, usd.json().usd_value, usd.json().price_tick_id],
      [String(40n * E8S), 20, String(tick)],
    );
    const view = (await get(`/api/campaigns/${c.id}`)).json() as {
      progress: Record<string, unknown>;
      contributions: string;
    };
    assert.deepEqual(view.progress, {
      goal_dom: String(200n * E8S),
      raised_dom: String(50n * E8S),
      raised_usd: 25,
      goal_usd: 100,
      pct_complete: 25,
      price_tick_id: String(tick),
    });
    assert.equal(view.contributions, '2');
    assert.deepEqual(
      ((await get(`/api/campaigns/${c.id}/contributions`)).json() as { items: Array<{ seq: string }> }).items.map(
        (x) => x.seq,
      ),
      ['1', '2'],
    );
    assert.ok(
      ((await get('/api/campaigns')).json() as { items: Array<{ id: string }> }).items.some((x) => x.id === c.id),
    );
  });

  it('cancelled: every contributor is refunded; my contributions show the refunds; my balance has them back', async () => {
    const deadline = new Date(h.now() + 2 * DAY_MS).toISOString();
    const c = (
      await post('/api/campaigns', alice.jar, {
        title: 'Stop',
        description: '',
        goal: { dom_e8s: String(500n * E8S) },
        deadline,
      })
    ).json() as {
      id: string;
    };
    const before = BigInt(((await get('/api/me/balance', bob.jar)).json() as { balance_e8s: string }).balance_e8s);
    assert.equal(
      (await post(`/api/campaigns/${c.id}/contributions`, bob.jar, { amount: { dom_e8s: String(3n * E8S) } }))
        .statusCode,
      201,
    );
    const notOwner = await post(`/api/campaigns/${c.id}/cancel`, bob.jar, {});
    assert.deepEqual([notOwner.statusCode, notOwner.json().error], [403, 'NotAuthorized']);
    const cancelled = await post(`/api/campaigns/${c.id}/cancel`, alice.jar, {});
    assert.equal(cancelled.statusCode, 200, cancelled.body);
    assert.deepEqual(
      [cancelled.json().status, cancelled.json().settled, cancelled.json().refunds],
      ['Cancelled', true, '1'],
    );
    const after = BigInt(((await get('/api/me/balance', bob.jar)).json() as { balance_e8s: string }).balance_e8s);
    assert.equal(after, before - 3n * FEE, 'back, less the approval, contribution and refund fees');
    const mine = (await get('/api/me/contributions', bob.jar)).json() as {
      items: unknown[];
      refunds: Array<{ campaign_id: string; amount_e8s: string }>;
    };
    assert.deepEqual(
      mine.refunds.map((r) => [r.campaign_id, r.amount_e8s]),
      [[c.id, String(3n * E8S - FEE)]],
    );
    const closed = await post(`/api/campaigns/${c.id}/contributions`, bob.jar, { amount: { dom_e8s: String(E8S) } });
    assert.deepEqual([closed.statusCode, closed.json().error], [409, 'CampaignClosed']);
  });

  it('at the deadline through HTTP: a funded campaign is released to its beneficiary, a short one refunds every contributor', async () => {
    const deadline = new Date(h.now() + 2 * HOUR_MS).toISOString();
    const funded = (
      await post('/api/campaigns', alice.jar, {
        title: 'Small',
        description: '',
        goal: { dom_e8s: String(2n * E8S) },
        deadline,
        beneficiary: alice.principal,
      })
    ).json() as { id: string };
    const short = (
      await post('/api/campaigns', alice.jar, {
        title: 'Large',
        description: '',
        goal: { dom_e8s: String(900n * E8S) },
        deadline,
      })
    ).json() as {
      id: string;
    };
    const aliceBefore = BigInt(
      ((await get('/api/me/balance', alice.jar)).json() as { balance_e8s: string }).balance_e8s,
    );
    assert.equal(
      (await post(`/api/campaigns/${funded.id}/contributions`, bob.jar, { amount: { dom_e8s: String(3n * E8S) } }))
        .statusCode,
      201,
    );
    assert.equal(
      (await post(`/api/campaigns/${short.id}/contributions`, bob.jar, { amount: { dom_e8s: String(4n * E8S) } }))
        .statusCode,
      201,
    );
    h.advance(3 * HOUR_MS);
    await h.opened.canisters.platform!.tick();
    alice.jar = (await h.login('alice-money@domdao.example')).jar;
    bob.jar = (await h.login('bob-money@domdao.example')).jar;
    const f = (await get(`/api/campaigns/${funded.id}`)).json() as {
      status: string;
      settled: boolean;
      released: { amount_e8s: string };
    };
    assert.deepEqual([f.status, f.settled, f.released.amount_e8s], ['Succeeded', true, String(3n * E8S - FEE)]);
    const aliceAfter = BigInt(
      ((await get('/api/me/balance', alice.jar)).json() as { balance_e8s: string }).balance_e8s,
    );
    assert.equal(aliceAfter - aliceBefore, 3n * E8S - FEE, 'the beneficiary received the escrow less the fee');
    const s2 = (await get(`/api/campaigns/${short.id}`)).json() as {
      status: string;
      settled: boolean;
      refunds: string;
    };
    assert.deepEqual([s2.status, s2.settled, s2.refunds], ['Failed', true, '1']);
    const mine = (await get('/api/me/contributions', bob.jar)).json() as {
      refunds: Array<{ campaign_id: string; amount_e8s: string }>;
    };
    assert.ok(mine.refunds.some((r) => r.campaign_id === short.id && r.amount_e8s === String(4n * E8S - FEE)));
  });

  it('errors: unauthenticated 401, bad input 400, unknown campaign 404, too little DOM 409 InsufficientFunds; a donation burn is recorded', async () => {
    const deadline = new Date(h.now() + 2 * DAY_MS).toISOString();
    assert.equal(
      (await post('/api/campaigns', undefined, { title: 'x', description: '', goal: { usd: 1 }, deadline })).statusCode,
      401,
    );
    for (const body of [
      { title: '', description: '', goal: { usd: 1 }, deadline },
      { title: 'x', description: '', goal: { dom_e8s: '1.5' }, deadline },
      { title: 'x', description: '', goal: { usd: -1 }, deadline },
    ]) {
      assert.equal((await post('/api/campaigns', alice.jar, body)).statusCode, 400);
    }
    const tooSoon = await post('/api/campaigns', alice.jar, {
      title: 'x',
      description: '',
      goal: { usd: 1 },
      deadline: new Date(h.now()).toISOString(),
    });
    assert.deepEqual([tooSoon.statusCode, tooSoon.json().error], [400, 'InvalidArgument']);
    assert.deepEqual((await get('/api/campaigns/999')).json().error, 'CampaignNotFound');
    assert.equal((await get('/api/campaigns/999')).statusCode, 404);
    const c = (
      await post('/api/campaigns', alice.jar, { title: 'Big', description: '', goal: { usd: 1 }, deadline })
    ).json() as { id: string };
    const poor = await post(`/api/campaigns/${c.id}/contributions`, bob.jar, {
      amount: { dom_e8s: String(1_000_000n * E8S) },
    });
    assert.deepEqual([poor.statusCode, poor.json().error], [409, 'InsufficientFunds']);
    assert.equal(
      (
        await post(
          `/api/campaigns/${c.id}/contributions`,
          bob.jar,
          { amount: { dom_e8s: '1' } },
          { 'idempotency-key': 'bad key!' },
        )
      ).statusCode,
      400,
    );
    const burn = await post('/api/donations', alice.jar, { amount: { usd: 1 } });
    assert.equal(burn.statusCode, 201, burn.body);
    assert.deepEqual([burn.json().amount_e8s, burn.json().usd_value], [String(2n * E8S), 1]);
    assert.equal(((await get('/api/donations')).json() as { items: unknown[] }).items.length, 1);
  });

  it('decision L25: ten parallel contributions with funds for three: three made, seven 409 InsufficientFunds that move nothing; fees only for the three; the same for donations', async () => {
    const dora = await h.member('dora-money@domdao.example');
    const owner = await principalOf(dora.user_id);
    const { platform, ids, clients } = h.opened.canisters;
    const A = E8S;
    // Each contribution costs its approval's fee and A + the transfer fee: funds for exactly three.
    assert.ok(
      'Ok' in
        (await platform!.as(ids.governance).ledger.icrc1_transfer({ to: { owner }, amount: 3n * (A + 2n * FEE) })),
    );
    const deadline = new Date(h.now() + 2 * DAY_MS).toISOString();
    const c = (
      await post('/api/campaigns', dora.jar, {
        title: 'Parallel',
        description: '',
        goal: { dom_e8s: String(100n * E8S) },
        deadline,
      })
    ).json() as {
      id: string;
    };
    /** dora's ledger blocks from `start` on, by type: each approval and transfer of hers is one. */
    const blocksOf = async (start: bigint) => {
      const owned = (v: unknown) =>
        JSON.stringify(v, (_k, x: unknown) =>
          x instanceof Uint8Array ? Buffer.from(x).toString('hex') : typeof x === 'bigint' ? String(x) : x,
        );
      const me = Buffer.from(Principal.fromText(owner).toUint8Array()).toString('hex');
      const { blocks } = await clients.ledger.icrc3_get_blocks([{ start, length: 1000n }]);
      const types: string[] = [];
      for (const { block } of blocks) {
        const map = new Map((block as { Map: Array<[string, unknown]> }).Map);
        const tx = new Map((map.get('tx') as { Map: Array<[string, unknown]> }).Map);
        if (owned(tx.get('from')).includes(me)) types.push((map.get('btype') as { Text: string }).Text);
      }
      return types.sort();
    };
    let start = (await clients.ledger.icrc3_get_blocks([])).log_length;
    const contributions = await Promise.all(
      Array.from({ length: 10 }, () =>
        post(`/api/campaigns/${c.id}/contributions`, dora.jar, { amount: { dom_e8s: String(A) } }),
      ),
    );
    const codes = contributions
      .map((r) => `${r.statusCode} ${r.statusCode === 201 ? '' : r.json().error}`.trim())
      .sort();
    assert.deepEqual(codes, [...Array(3).fill('201'), ...Array(7).fill('409 InsufficientFunds')]);
    const refused = contributions.find((r) => r.statusCode === 409)!;
    assert.match(refused.json().message, /"balance":"0","required":"100020000"/, 'the refusal says what is missing');
    assert.deepEqual(
      await blocksOf(start),
      ['2approve', '2approve', '2approve', '2xfer', '2xfer', '2xfer'],
      'one approval and one transfer per contribution made, nothing for the refused',
    );
    assert.equal(await clients.ledger.icrc1_balance_of({ owner }), 0n);
    assert.deepEqual(
      [
        (await get(`/api/campaigns/${c.id}`)).json().contributions,
        (await get(`/api/campaigns/${c.id}`)).json().progress.raised_dom,
      ],
      ['3', String(3n * A)],
    );

    // Donations: a burn charges no transfer fee, so each costs A + one approval fee.
    assert.ok(
      'Ok' in (await platform!.as(ids.governance).ledger.icrc1_transfer({ to: { owner }, amount: 3n * (A + FEE) })),
    );
    start = (await clients.ledger.icrc3_get_blocks([])).log_length;
    const donations = await Promise.all(
      Array.from({ length: 10 }, () => post('/api/donations', dora.jar, { amount: { dom_e8s: String(A) } })),
    );
    assert.deepEqual(
      donations.map((r) => `${r.statusCode} ${r.statusCode === 201 ? '' : r.json().error}`.trim()).sort(),
      [...Array(3).fill('201'), ...Array(7).fill('409 InsufficientFunds')],
    );
    assert.deepEqual(
      await blocksOf(start),
      ['1burn', '1burn', '1burn', '2approve', '2approve', '2approve'],
      'exactly one fee (the approval) per donation made',
    );
    assert.equal(await clients.ledger.icrc1_balance_of({ owner }), 0n);
  });

  it('decision L25: a refusal by the campaign canister costs no approval; an allowance left over is used without a new one', async () => {
    const erin = await h.member('erin-money@domdao.example');
    const owner = await principalOf(erin.user_id);
    const { platform, ids, clients } = h.opened.canisters;
    assert.ok('Ok' in (await platform!.as(ids.governance).ledger.icrc1_transfer({ to: { owner }, amount: 10n * E8S })));
    const deadline = new Date(h.now() + 2 * DAY_MS).toISOString();
    const c = (
      await post('/api/campaigns', erin.jar, {
        title: 'Refusals',
        description: '',
        goal: { dom_e8s: String(100n * E8S) },
        deadline,
      })
    ).json() as {
      id: string;
    };
    const supply = await clients.ledger.icrc1_total_supply();
    const dust = await post(`/api/campaigns/${c.id}/contributions`, erin.jar, { amount: { dom_e8s: String(FEE) } });
    assert.deepEqual(
      [dust.statusCode, dust.json().error],
      [400, 'InvalidArgument'],
      'at the fee: refused by the canister',
    );
    assert.equal(await clients.ledger.icrc1_balance_of({ owner }), 10n * E8S, 'no approval was made for it');
    assert.equal(await clients.ledger.icrc1_total_supply(), supply);
    // An allowance already there (approved elsewhere) is used: one transfer fee, no approval.
    assert.ok(
      'Ok' in (await platform!.as(owner).ledger.icrc2_approve({ spender: { owner: ids.campaign }, amount: E8S + FEE })),
    );
    const made = await post(`/api/campaigns/${c.id}/contributions`, erin.jar, { amount: { dom_e8s: String(E8S) } });
    assert.equal(made.statusCode, 201, made.body);
    assert.equal(
      await clients.ledger.icrc1_balance_of({ owner }),
      10n * E8S - FEE - E8S - FEE,
      'the approval made beforehand, then amount + fee',
    );
    assert.deepEqual(
      (await platform!.as(owner).ledger.icrc2_allowance({ account: { owner }, spender: { owner: ids.campaign } }))
        .allowance,
      0n,
    );
  });

  it('production refuses the faucet; without it the route answers 404', async () => {
    assert.throws(
      () => loadBridgeConfig({ NODE_ENV: 'production', DEV_FAUCET_DOM: '5' }),
      (e: unknown) =>
        e instanceof ConfigError && e.problems.some((p) => p.startsWith('DEV_FAUCET_DOM: development only')),
    );
    const plain = await bridge();
    try {
      const m = await plain.member('carol-money@domdao.example');
      const r = await plain.request({ method: 'POST', url: '/api/dev/faucet', jar: m.jar, payload: {} });
      assert.deepEqual([r.statusCode, r.json().error], [404, 'NOT_FOUND']);
    } finally {
      await plain.close();
    }
  });
});
