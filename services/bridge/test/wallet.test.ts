// The member's wallet over HTTP (decisions B75, B76, L41, F29): a transfer to another member with
// every refusal (each changes nothing: no ledger block, no record, no balance moved), each limit at the
// limit and one past it; the Idempotency-Key; parallel requests; a crash or a lost reply between the
// record and the ledger's answer, then the reconciler, within the ledger's 24-hour window (Duplicate)
// and past it (TooOld settled from the index); the history from the ledger's blocks, newest first,
// paged, with counterparties' display names.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Principal } from '@icp-sdk/core/principal';
import { EMBEDDED_CANISTER_IDS, principalFromSeed } from '@domdao/canisters';
import type { FaultPoint } from '../src/core/outbox/types.ts';
import { OUTBOX_LEASE_MS } from '../src/core/outbox/queue.ts';
import { readBlock } from '../src/features/wallet/blocks.ts';
import { LedgerIndex } from '../src/features/wallet/ledger-index.ts';
import { BACKENDS, bridge, type Bridge, type Jar } from './harness.ts';

const E8S = 100_000_000n;
const FEE = 10_000n;
const NAT64_MAX = 2n ** 64n - 1n;
const DAY_MS = 86_400_000;

type Member = { jar: Jar; user_id: string; principal: string };
type Item = {
  block_index: string;
  kind: string;
  amount_e8s: string;
  fee_e8s: string;
  change_e8s: string;
  at: string;
  counterparty: { account: string; owner: string; display_name: string | null; label: string | null } | null;
  memo: string | null;
};
type History = {
  items: Item[];
  next_before: string | null;
  pending: Array<{ id: string; state: string }>;
  indexed_blocks: string;
  caught_up: boolean;
};

let keyN = 0;
const freshKey = () => `test-${++keyN}`;

async function join(h: Bridge, email: string, name?: string): Promise<Member> {
  const m = await h.member(email);
  const { principal } = (await h.request({ method: 'GET', url: '/api/me/profile', jar: m.jar })).json() as {
    principal: string;
  };
  if (name)
    assert.equal(
      (await h.request({ method: 'PUT', url: '/api/me/display-name', jar: m.jar, payload: { display_name: name } }))
        .statusCode,
      200,
    );
  return { ...m, principal };
}

function client(h: Bridge) {
  const send = (
    from: Member,
    body: Record<string, unknown>,
    key: string | null = freshKey(),
    extra: { origin?: string | null } = {},
  ) =>
    h.request({
      method: 'POST',
      url: '/api/me/transfers',
      jar: from.jar,
      payload: body,
      headers: key === null ? {} : { 'idempotency-key': key },
      ...extra,
    });
  const balance = async (m: Member) =>
    BigInt(await h.opened.canisters.clients.ledger.icrc1_balance_of({ owner: m.principal }));
  const blocks = async () => (await h.opened.canisters.clients.ledger.icrc3_get_blocks([])).log_length;
  const records = async () =>
    Number(
      (
        await h.opened.db
          .selectFrom('wallet_transfers')
          .select((e) => e.fn.countAll<string>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  const history = async (m: Member, query = '') => {
    const r = await h.request({ method: 'GET', url: `/api/me/transactions${query}`, jar: m.jar });
    assert.equal(r.statusCode, 200, r.body);
    return r.json() as History;
  };
  const faucet = async (m: Member) =>
    assert.equal(
      (await h.request({ method: 'POST', url: '/api/dev/faucet', jar: m.jar, payload: {} })).statusCode,
      200,
    );
  /** A refusal: the status and code, and nothing changed (no block, no record, no balance moved). */
  const refused = async (
    what: string,
    from: Member,
    body: Record<string, unknown>,
    status: number,
    code: string,
    key?: string | null,
    extra = {},
  ) => {
    const [b0, r0, bal0] = [await blocks(), await records(), await balance(from)];
    const r = await send(from, body, key === undefined ? freshKey() : key, extra);
    assert.deepEqual([r.statusCode, r.json().error], [status, code], `${what}: ${r.body}`);
    assert.deepEqual([await blocks(), await records(), await balance(from)], [b0, r0, bal0], `${what} changed nothing`);
    return r.json() as { message: string };
  };
  return { send, balance, blocks, records, history, faucet, refused };
}

describe('sending DOM to a member (decisions B75, L41)', () => {
  let h: Bridge;
  let c: ReturnType<typeof client>;
  let ada: Member;
  let bob: Member;
  before(async () => {
    h = await bridge(undefined, { DEV_FAUCET_DOM: '10' });
    c = client(h);
    ada = await join(h, 'ada-wallet@domdao.example', 'Ada Wallet');
    bob = await join(h, 'bob-wallet@domdao.example', 'Bob Wallet');
    await c.faucet(ada);
  });
  after(() => h?.close());

  it('decision F29: the balance answer carries the ICRC-1 textual account (the principal: no subaccount)', async () => {
    const r = (await h.request({ method: 'GET', url: '/api/me/balance', jar: ada.jar })).json() as {
      account_text: string;
      account: { owner: string };
    };
    assert.equal(r.account_text, ada.principal);
    assert.equal(r.account.owner, ada.principal);
  });

  it('decision B75: a transfer is made once, with the fee the member was shown; both histories show it by name', async () => {
    const before = [await c.balance(ada), await c.balance(bob)];
    const r = await c.send(
      ada,
      { to: bob.principal, amount_e8s: String(2n * E8S), fee_e8s: String(FEE) },
      'first-transfer',
    );
    assert.equal(r.statusCode, 201, r.body);
    const t = r.json() as {
      id: string;
      state: string;
      to: string;
      to_name: string;
      amount_e8s: string;
      fee_e8s: string;
      block_index: string;
    };
    assert.deepEqual(
      [t.state, t.to, t.to_name, t.amount_e8s, t.fee_e8s],
      ['done', bob.principal, 'Bob Wallet', String(2n * E8S), String(FEE)],
    );
    assert.match(t.block_index, /^[0-9]+$/);
    assert.deepEqual(
      [await c.balance(ada), await c.balance(bob)],
      [before[0]! - 2n * E8S - FEE, before[1]! + 2n * E8S],
    );
    // The sender's history holds the block as soon as the answer came (decision B76).
    const mine = await c.history(ada);
    assert.equal(mine.caught_up, true);
    assert.deepEqual(
      mine.items.map((i) => [i.kind, i.amount_e8s, i.fee_e8s, i.change_e8s, i.counterparty?.display_name ?? null]),
      [
        ['send', String(2n * E8S), String(FEE), String(-(2n * E8S + FEE)), 'Bob Wallet'],
        ['mint', String(10n * E8S), '0', String(10n * E8S), null],
      ],
      'newest first: the transfer, then the faucet',
    );
    assert.equal(mine.items[0]!.block_index, t.block_index);
    assert.equal(mine.items[0]!.memo, `dom-wallet:${t.id}`);
    const theirs = await c.history(bob);
    assert.deepEqual(
      theirs.items.map((i) => [
        i.kind,
        i.block_index,
        i.change_e8s,
        i.counterparty?.display_name,
        i.counterparty?.owner,
      ]),
      [['receive', t.block_index, String(2n * E8S), 'Ada Wallet', ada.principal]],
    );
    assert.ok(!JSON.stringify(theirs).includes('@'), 'never an email');
  });

  it('decision B75: the same Idempotency-Key answers the first transfer; with another body 422; without one 400; nothing moves again', async () => {
    const [b0, bal0] = [await c.blocks(), await c.balance(ada)];
    const again = await c.send(
      ada,
      { to: bob.principal, amount_e8s: String(2n * E8S), fee_e8s: String(FEE) },
      'first-transfer',
    );
    assert.equal(again.statusCode, 201);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    const first = (await c.history(ada)).items.find((i) => i.kind === 'send')!;
    assert.equal(again.json().block_index, first.block_index);
    assert.deepEqual([await c.blocks(), await c.balance(ada)], [b0, bal0], 'no second block');
    await c.refused(
      'another amount under the key',
      ada,
      { to: bob.principal, amount_e8s: String(3n * E8S) },
      422,
      'IDEMPOTENCY_KEY_REUSED',
      'first-transfer',
    );
    await c.refused(
      'the fee added under the key',
      ada,
      { to: bob.principal, amount_e8s: String(2n * E8S) },
      422,
      'IDEMPOTENCY_KEY_REUSED',
      'first-transfer',
    );
    await c.refused('no key', ada, { to: bob.principal, amount_e8s: '1' }, 400, 'VALIDATION_ERROR', null);
    await c.refused('a key with a space', ada, { to: bob.principal, amount_e8s: '1' }, 400, 'VALIDATION_ERROR', 'a b');
    await c.refused(
      'a key of 101 characters',
      ada,
      { to: bob.principal, amount_e8s: '1' },
      400,
      'VALIDATION_ERROR',
      'k'.repeat(101),
    );
    const at100 = await c.send(ada, { to: bob.principal, amount_e8s: '1' }, 'k'.repeat(100));
    assert.equal(at100.statusCode, 201, 'a key of 100 characters');
  });

  it('decision B75: the amount: 1 e8s at the least (0 refused), nat64 at the most (one past refused)', async () => {
    const one = await c.send(ada, { to: bob.principal, amount_e8s: '1' });
    assert.equal(one.statusCode, 201, one.body);
    assert.equal(one.json().amount_e8s, '1');
    const zero = await c.refused('amount 0', ada, { to: bob.principal, amount_e8s: '0' }, 400, 'VALIDATION_ERROR');
    assert.match(zero.message, /at least 1 e8s/);
    // The largest amount passes the amount's rule and meets the balance's.
    const max = await c.refused(
      'the largest amount',
      ada,
      { to: bob.principal, amount_e8s: String(NAT64_MAX) },
      409,
      'InsufficientFunds',
    );
    assert.match(max.message, /"required":"18446744073709561615"/);
    const past = await c.refused(
      'one past the largest',
      ada,
      { to: bob.principal, amount_e8s: String(NAT64_MAX + 1n) },
      400,
      'VALIDATION_ERROR',
    );
    assert.match(past.message, /at most 18446744073709551615/);
    await c.refused('a negative amount', ada, { to: bob.principal, amount_e8s: '-1' }, 400, 'VALIDATION_ERROR');
    await c.refused('a fraction', ada, { to: bob.principal, amount_e8s: '1.5' }, 400, 'VALIDATION_ERROR');
  });

  it('decision B75: the balance: amount + fee equal to it is sent, one e8s more is refused with balance and required', async () => {
    const cy = await join(h, 'cy-wallet@domdao.example');
    await c.faucet(cy);
    const all = await c.balance(cy);
    const over = await c.refused(
      'one e8s past the balance',
      cy,
      { to: bob.principal, amount_e8s: String(all - FEE + 1n) },
      409,
      'InsufficientFunds',
    );
    assert.match(over.message, new RegExp(`"balance":"${all}","pending":"0","required":"${all + 1n}"`));
    const exact = await c.send(cy, { to: bob.principal, amount_e8s: String(all - FEE) });
    assert.equal(exact.statusCode, 201, exact.body);
    assert.equal(await c.balance(cy), 0n);
    await c.refused('an empty account', cy, { to: bob.principal, amount_e8s: '1' }, 409, 'InsufficientFunds');
  });

  it("decision B75: the fee: the ledger's is accepted, one e8s either side refused (BadFee, with the fee)", async () => {
    const ok = await c.send(ada, { to: bob.principal, amount_e8s: '100', fee_e8s: String(FEE) });
    assert.equal(ok.statusCode, 201, ok.body);
    const more = await c.refused(
      'fee + 1',
      ada,
      { to: bob.principal, amount_e8s: '100', fee_e8s: String(FEE + 1n) },
      409,
      'BadFee',
    );
    assert.match(more.message, /10000 e8s/);
    await c.refused('fee - 1', ada, { to: bob.principal, amount_e8s: '100', fee_e8s: String(FEE - 1n) }, 409, 'BadFee');
    await c.refused('fee 0', ada, { to: bob.principal, amount_e8s: '100', fee_e8s: '0' }, 409, 'BadFee');
  });

  it('decision B75: the recipient must be another verified member', async () => {
    await c.refused('to oneself', ada, { to: ada.principal, amount_e8s: '100' }, 400, 'SELF_TRANSFER');
    await c.refused(
      'a principal no member has',
      ada,
      { to: principalFromSeed('nobody'), amount_e8s: '100' },
      404,
      'RECIPIENT_NOT_FOUND',
    );
    await c.refused(
      'a canister (the treasury)',
      ada,
      { to: EMBEDDED_CANISTER_IDS.treasury, amount_e8s: '100' },
      404,
      'RECIPIENT_NOT_FOUND',
    );
    assert.equal((await h.register('unverified-wallet@domdao.example')).statusCode, 201);
    const unverified = (
      await h.opened.db
        .selectFrom('users')
        .select('principal')
        .where('email_verified_at', 'is', null)
        .executeTakeFirstOrThrow()
    ).principal;
    await c.refused('an unverified account', ada, { to: unverified, amount_e8s: '100' }, 404, 'RECIPIENT_NOT_FOUND');
    await c.refused('not a principal', ada, { to: 'not-a-principal', amount_e8s: '100' }, 400, 'VALIDATION_ERROR');
    await c.refused('an empty recipient', ada, { to: '', amount_e8s: '100' }, 400, 'VALIDATION_ERROR');
  });

  it('decision B75: a session and a front-end origin are needed (401, 403)', async () => {
    const noSession = await h.request({
      method: 'POST',
      url: '/api/me/transfers',
      payload: { to: bob.principal, amount_e8s: '1' },
      headers: { 'idempotency-key': 'x' },
    });
    assert.deepEqual([noSession.statusCode, noSession.json().error], [401, 'UNAUTHORIZED']);
    await c.refused('another site', ada, { to: bob.principal, amount_e8s: '1' }, 403, 'CSRF_REJECTED', freshKey(), {
      origin: 'https://evil.example',
    });
    assert.equal((await h.request({ method: 'GET', url: '/api/me/transactions' })).statusCode, 401);
  });

  it('decision B75: parallel transfers with funds for two: two are made, the others refused before any record', async () => {
    const dee = await join(h, 'dee-wallet@domdao.example');
    await c.faucet(dee);
    const part = (await c.balance(dee)) / 2n - FEE;
    const [r0, b0] = [await c.records(), await c.blocks()];
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => c.send(dee, { to: bob.principal, amount_e8s: String(part) })),
    );
    assert.deepEqual(answers.map((r) => `${r.statusCode} ${r.json().error ?? r.json().state}`).sort(), [
      '201 done',
      '201 done',
      '409 InsufficientFunds',
      '409 InsufficientFunds',
      '409 InsufficientFunds',
    ]);
    assert.deepEqual([await c.records(), await c.blocks()], [r0 + 2, b0 + 2n], 'two records, two blocks');
    assert.equal(await c.balance(dee), 0n);
  });

  it('decision B76: the history is paged newest first by block index, and names contributions and approvals', async () => {
    // A contribution (an approval, then the campaign pulls into escrow) appears in the contributor's history.
    const deadline = new Date(h.now() + 7 * DAY_MS).toISOString();
    const camp = await h.request({
      method: 'POST',
      url: '/api/campaigns',
      jar: bob.jar,
      payload: { title: 'Well', description: 'Water', goal: { dom_e8s: '500000000' }, deadline },
    });
    assert.equal(camp.statusCode, 201, camp.body);
    const id = camp.json().id as string;
    const contribution = await h.request({
      method: 'POST',
      url: `/api/campaigns/${id}/contributions`,
      jar: ada.jar,
      payload: { amount: { dom_e8s: String(E8S) } },
    });
    assert.equal(contribution.statusCode, 201, contribution.body);
    const all = await c.history(ada, '?limit=100');
    assert.deepEqual(
      all.items.slice(0, 2).map((i) => [i.kind, i.counterparty?.label]),
      [
        ['contribution', `Campaign #${id}`],
        ['approve', 'Campaigns'],
      ],
    );
    assert.equal(all.items[0]!.change_e8s, String(-(E8S + FEE)));
    assert.equal(all.items[1]!.change_e8s, String(-FEE), 'an approval costs its fee only');
    const indexes = all.items.map((i) => BigInt(i.block_index));
    assert.deepEqual(
      indexes,
      [...indexes].sort((a, b) => (a < b ? 1 : -1)),
      'newest first',
    );
    assert.equal(all.next_before, null);
    // Pages of 2 walk the same list.
    const walked: string[] = [];
    let query = '?limit=2';
    for (;;) {
      const page = await c.history(ada, query);
      assert.ok(page.items.length <= 2);
      walked.push(...page.items.map((i) => i.block_index));
      if (page.next_before === null) break;
      query = `?limit=2&before=${page.next_before}`;
    }
    assert.deepEqual(
      walked,
      all.items.map((i) => i.block_index),
    );
    // The limit: 1 and 100 answer, 0 and 101 are refused; a cursor past a bigint is refused.
    assert.equal((await c.history(ada, '?limit=1')).items.length, 1);
    for (const q of ['?limit=0', '?limit=101', '?before=9223372036854775808', '?before=-1']) {
      const r = await h.request({ method: 'GET', url: `/api/me/transactions${q}`, jar: ada.jar });
      assert.deepEqual([r.statusCode, r.json().error], [400, 'VALIDATION_ERROR'], q);
    }
    const indexed = (await c.history(ada)).indexed_blocks;
    assert.equal(BigInt(indexed), await c.blocks(), 'the index has read the whole log');
  });
});

/**
 * After a restart: the dead process's lease runs out, then the reconciler runs (as its timer would).
 * Twice: the first call may join the pass the restart began before the lease ran out.
 */
async function reconcileAfterLease(h: Bridge) {
  h.advance(OUTBOX_LEASE_MS + 1);
  await h.app.outbox.reconcile();
  await h.app.outbox.reconcile();
}

/** Crashes once, at `point` of the first wallet transfer the outbox runs. */
function crashAt(point: FaultPoint) {
  let armed = true;
  return {
    outboxFaults: (p: FaultPoint, op: { operation: string }) => {
      if (armed && p === point && op.operation === 'wallet.transfer') {
        armed = false;
        throw new Error(`injected ${point}`);
      }
    },
  };
}

describe('a crash or a lost reply between the record and the ledger (decision L41)', () => {
  for (const point of ['before-call', 'after-call'] as FaultPoint[]) {
    it(`a crash at ${point}: after a restart the reconciler finishes the transfer, once`, async () => {
      const h = await bridge(undefined, { DEV_FAUCET_DOM: '10' }, crashAt(point));
      after(() => h.close());
      const c = client(h);
      const ada = await join(h, 'ada-crash@domdao.example');
      const bob = await join(h, 'bob-crash@domdao.example');
      await c.faucet(ada);
      const b0 = await c.blocks();
      assert.equal(
        (await c.send(ada, { to: bob.principal, amount_e8s: String(E8S) }, 'crash-key')).statusCode,
        500,
        'the process "died"',
      );
      assert.equal(await c.blocks(), point === 'before-call' ? b0 : b0 + 1n);
      await h.restart();
      await reconcileAfterLease(h);
      assert.equal(await c.blocks(), b0 + 1n, 'one block, whoever made it');
      assert.equal(await c.balance(bob), E8S);
      const ada2 = { ...ada, jar: (await h.login('ada-crash@domdao.example')).jar };
      const again = await c.send(ada2, { to: bob.principal, amount_e8s: String(E8S) }, 'crash-key');
      assert.deepEqual(
        [again.statusCode, again.json().state],
        [201, 'done'],
        'the retried request answers the transfer',
      );
      assert.equal(await c.blocks(), b0 + 1n);
      assert.deepEqual((await c.history(ada2)).pending, []);
    });
  }

  it('a lost reply: answered 202 pending, shown as pending; the same request again finds the block (Duplicate), never a second', async () => {
    const h = await bridge(undefined, { DEV_FAUCET_DOM: '10' }, crashAt('lost-reply'));
    after(() => h.close());
    const c = client(h);
    const ada = await join(h, 'ada-lost@domdao.example');
    const bob = await join(h, 'bob-lost@domdao.example');
    await c.faucet(ada);
    const b0 = await c.blocks();
    const r = await c.send(ada, { to: bob.principal, amount_e8s: String(E8S) }, 'lost-key');
    assert.deepEqual([r.statusCode, r.json().state, r.json().block_index], [202, 'pending', null]);
    assert.equal(await c.blocks(), b0 + 1n, 'the ledger made it');
    const h1 = await c.history(ada);
    assert.deepEqual(
      h1.pending.map((p) => p.id),
      [r.json().id],
    );
    // What is pending is not spendable again: the balance check counts it.
    const all = await c.balance(ada);
    const refusal = await c.refused(
      'the pending amount spent twice',
      ada,
      { to: bob.principal, amount_e8s: String(all - FEE - E8S) },
      409,
      'InsufficientFunds',
    );
    assert.match(refusal.message, /"pending":"100010000"/);
    const again = await c.send(ada, { to: bob.principal, amount_e8s: String(E8S) }, 'lost-key');
    assert.deepEqual([again.statusCode, again.json().state], [201, 'done']);
    assert.equal(await c.blocks(), b0 + 1n, 'Duplicate: no second block');
    assert.equal(again.json().block_index, String(b0));
    assert.deepEqual((await c.history(ada)).pending, []);
    assert.equal(await c.balance(bob), E8S);
  });

  for (const backend of [BACKENDS[0]!, BACKENDS[2]!])
    it(`past the 24-hour window (TooOld): a transfer the ledger made is recorded with its block; one it never saw fails and moves nothing (${backend.db})`, async () => {
      // Both transfers lose their first answer: one after the ledger made it, one before it was sent.
      const h = await bridge(
        backend,
        { DEV_FAUCET_DOM: '10' },
        {
          outboxFaults: (p, op) => {
            if (op.operation !== 'wallet.transfer') return;
            if (p === 'lost-reply' && op.opId === 'wallet-transfer:1') throw new Error('lost');
            if (p === 'before-call' && op.opId === 'wallet-transfer:2') throw new Error('crash');
          },
        },
      );
      after(() => h.close());
      const c = client(h);
      const ada = await join(h, 'ada-old@domdao.example');
      const bob = await join(h, 'bob-old@domdao.example');
      await c.faucet(ada);
      const b0 = await c.blocks();
      assert.equal((await c.send(ada, { to: bob.principal, amount_e8s: String(E8S) }, 'made')).statusCode, 202);
      assert.equal(
        (await c.send(ada, { to: bob.principal, amount_e8s: String(2n * E8S) }, 'never-sent')).statusCode,
        500,
      );
      assert.equal(await c.blocks(), b0 + 1n);
      // The ledger cannot be reached for a day and a minute: nothing the reconciler does can reach it.
      await h.restart();
      h.advance(DAY_MS + 2 * 60_000);
      await h.app.outbox.reconcile();
      await h.app.outbox.reconcile();
      const rows = await h.opened.db
        .selectFrom('wallet_transfers')
        .select(['idempotency_key', 'state', 'block_index', 'error_code'])
        .orderBy('id')
        .execute();
      assert.deepEqual(
        rows.map((r) => [
          r.idempotency_key,
          r.state,
          r.block_index === null ? null : String(r.block_index),
          r.error_code,
        ]),
        [
          ['made', 'done', String(b0), null],
          ['never-sent', 'failed', null, 'TooOld'],
        ],
      );
      assert.equal(await c.blocks(), b0 + 1n, 'nothing sent past the window');
      assert.equal(await c.balance(bob), E8S);
      const jar = (await h.login('ada-old@domdao.example')).jar;
      const retried = await c.send({ ...ada, jar }, { to: bob.principal, amount_e8s: String(2n * E8S) }, 'never-sent');
      assert.deepEqual(
        [retried.statusCode, retried.json().error],
        [409, 'TooOld'],
        'the retried request answers the recorded outcome',
      );
      assert.match(retried.json().message, /nothing was sent/);
    });
});

describe('on PostgreSQL (decisions B75, B76)', () => {
  it('a transfer, its replay, parallel transfers and both histories', async () => {
    const h = await bridge(BACKENDS[2], { DEV_FAUCET_DOM: '10' });
    after(() => h.close());
    const c = client(h);
    const ada = await join(h, 'ada-pg@domdao.example', 'Ada Postgres');
    const bob = await join(h, 'bob-pg@domdao.example', 'Bob Postgres');
    await c.faucet(ada);
    const part = (await c.balance(ada)) / 2n - FEE;
    const answers = await Promise.all(
      Array.from({ length: 3 }, (_, i) => c.send(ada, { to: bob.principal, amount_e8s: String(part) }, `pg-${i}`)),
    );
    assert.deepEqual(answers.map((r) => r.statusCode).sort(), [201, 201, 409]);
    const made = answers.find((r) => r.statusCode === 201)!;
    const key = ['pg-0', 'pg-1', 'pg-2'][answers.indexOf(made)]!;
    const again = await c.send(ada, { to: bob.principal, amount_e8s: String(part) }, key);
    assert.deepEqual([again.statusCode, again.json().block_index], [201, made.json().block_index]);
    const theirs = await c.history(bob);
    assert.deepEqual(
      theirs.items.map((i) => [i.kind, i.counterparty?.display_name, i.memo?.startsWith('dom-wallet:')]),
      [
        ['receive', 'Ada Postgres', true],
        ['receive', 'Ada Postgres', true],
      ],
    );
    assert.deepEqual(
      (await c.history(ada)).items.map((i) => i.kind),
      ['send', 'send', 'mint'],
    );
  });
});

describe('a history of more than 1 000 blocks through HTTP, from a ledger that archives (decisions B104, L43, L42)', () => {
  it('every block of the member, newest first in pages of 100, the archived ones read through the archive callback', async () => {
    // The embedded ledger in archive mode keeps 150 blocks of its own; the rest come by its callback.
    const h = await bridge(undefined, { CANISTERS_FSYNC: 'false' }, { ledgerArchive: { localBlocks: 150n } });
    after(() => h.close());
    const ada = await join(h, 'ada-long-history@domdao.example');
    const other = principalFromSeed('long-history-other');
    const minter = h.opened.canisters.platform!.as(EMBEDDED_CANISTER_IDS.governance).ledger;
    const mine: bigint[] = [];
    for (let i = 0; i < 1_100; i++) {
      const r = await minter.icrc1_transfer({ to: { owner: ada.principal }, amount: BigInt(i + 1) });
      assert.ok('Ok' in r);
      mine.push(r.Ok);
      // Blocks of someone else between hers, which her history leaves out.
      if (i % 10 === 0) assert.ok('Ok' in (await minter.icrc1_transfer({ to: { owner: other }, amount: 1n })));
    }
    const ledger = h.opened.canisters.clients.ledger;
    const { log_length } = await ledger.icrc3_get_blocks([]);
    assert.equal(log_length, 1_210n);
    assert.deepEqual(
      await ledger.icrc3_get_archives({}),
      [{ canister_id: EMBEDDED_CANISTER_IDS.ledger, start: 0n, end: 1_059n }],
      'the ledger archived all but 150',
    );

    const c = client(h);
    const listed: Item[] = [];
    let query = '?limit=100';
    for (let page = 0; page < 20; page++) {
      const r = await c.history(ada, query);
      assert.equal(r.caught_up, true);
      assert.ok(r.items.length <= 100);
      listed.push(...r.items);
      if (r.next_before === null) break;
      query = `?limit=100&before=${r.next_before}`;
    }
    assert.equal(listed.length, 1_100);
    assert.deepEqual(
      listed.map((i) => BigInt(i.block_index)),
      [...mine].reverse(),
      'each of her blocks once, newest first',
    );
    assert.deepEqual(
      listed.map((i) => [i.kind, i.amount_e8s, i.change_e8s]),
      Array.from({ length: 1_100 }, (_, i) => ['mint', String(1_100 - i), String(1_100 - i)]),
    );
    assert.ok(
      !h.logs.lines().some((l: { event?: string }) => l.event === 'wallet.ledger_blocks_archived'),
      'nothing skipped',
    );
  });
});

describe('the ledger blocks the index reads (decision B76)', () => {
  const owner = (p: string) => ({ Array: [{ Blob: Principal.fromText(p).toUint8Array() }] });
  const a = principalFromSeed('index-a');
  const b = principalFromSeed('index-b');

  it("DFINITY's legacy blocks (tx.op, decision L1) read as ICRC-3's block types; an unknown type is skipped", () => {
    const legacy = (op: string, tx: Array<[string, unknown]>, top: Array<[string, unknown]> = []) => ({
      Map: [
        ['ts', { Nat: 5_000_000_000n }],
        ...top,
        ['tx', { Map: [['op', { Text: op }], ['amt', { Nat: 7n }], ...tx] }],
      ],
    });
    const kinds = [
      legacy('mint', [['to', owner(a)]]),
      legacy('burn', [['from', owner(a)]]),
      legacy(
        'xfer',
        [
          ['from', owner(a)],
          ['to', owner(b)],
        ],
        [['fee', { Nat: 10_000n }]],
      ),
      legacy('xfer', [
        ['from', owner(a)],
        ['to', owner(b)],
        ['spender', owner(b)],
        ['fee', { Nat: 3n }],
      ]),
      legacy('approve', [
        ['from', owner(a)],
        ['spender', owner(b)],
      ]),
    ].map((v, i) => readBlock(BigInt(i), v));
    assert.deepEqual(
      kinds.map((k) => [k?.btype, k?.fee, k?.from?.text, k?.to?.text, k?.spender?.text]),
      [
        ['1mint', 0n, undefined, a, undefined],
        ['1burn', 0n, a, undefined, undefined],
        ['1xfer', 10_000n, a, b, undefined],
        ['2xfer', 3n, a, b, b],
        ['2approve', 0n, a, undefined, b],
      ],
    );
    assert.equal(
      readBlock(9n, {
        Map: [
          ['btype', { Text: '107feecol' }],
          ['ts', { Nat: 1n }],
          ['tx', { Map: [] }],
        ],
      }),
      undefined,
    );
    assert.equal(readBlock(9n, { Text: 'not a block' }), undefined);
  });

  const block = (i: bigint) => ({
    id: i,
    block: {
      Map: [
        ['btype', { Text: '1mint' }],
        ['ts', { Nat: 1_000_000n }],
        [
          'tx',
          {
            Map: [
              ['amt', { Nat: 1n }],
              ['to', owner(a)],
            ],
          },
        ],
      ],
    },
  });
  const ARCHIVE = principalFromSeed('index-archive');
  type Ask = { start: bigint; length: bigint };
  /**
   * A ledger of `length` blocks, the ones below `archivedBelow` in an archive. As DFINITY's ledger, it
   * cuts a range to 100 blocks and names the part below the boundary by the archive's callback; of its
   * own it answers at most `page`, the archive at most `archivePage` (short pages are theirs to choose).
   */
  function ledgerDouble(o: {
    length: bigint;
    page: bigint;
    archivedBelow: bigint;
    archivePage: bigint;
    archiveFails?: (r: Ask) => boolean;
  }) {
    const asked = { ledger: [] as Ask[], archive: [] as Ask[] };
    const ids = (from: bigint, to: bigint) =>
      Array.from({ length: Number(to > from ? to - from : 0n) }, (_, i) => from + BigInt(i));
    return {
      asked,
      ledger: {
        icrc3_get_blocks: async ([r]: Ask[]) => {
          asked.ledger.push(r!);
          const min = (...x: bigint[]) => x.reduce((p, q) => (p < q ? p : q));
          const end = min(r!.start + min(r!.length, 100n), o.length);
          const first = r!.start > o.archivedBelow ? r!.start : o.archivedBelow;
          const archivedEnd = min(end, o.archivedBelow);
          return {
            log_length: o.length,
            blocks: ids(first, min(end, first + o.page)).map(block) as never,
            archived_blocks:
              r!.start < archivedEnd
                ? [
                    {
                      args: [{ start: r!.start, length: archivedEnd - r!.start }],
                      callback: [ARCHIVE, 'icrc3_get_blocks'] as [string, string],
                    },
                  ]
                : [],
          };
        },
      },
      blocksCallback: async ([canister, method]: [string, string], [r]: Ask[]) => {
        assert.deepEqual([canister, method], [ARCHIVE, 'icrc3_get_blocks'], 'the callback the ledger named');
        asked.archive.push(r!);
        if (o.archiveFails?.(r!)) return { log_length: o.length, blocks: [], archived_blocks: [] };
        const end = [r!.start + (r!.length < o.archivePage ? r!.length : o.archivePage), o.archivedBelow].reduce(
          (x, y) => (x < y ? x : y),
        );
        return { log_length: o.length, blocks: ids(r!.start, end).map(block) as never, archived_blocks: [] };
      },
    };
  }

  it('decision B104: blocks the ledger archived come from the archive’s callback, short pages asked again from where they stopped, then the ledger’s own short pages', async () => {
    const h = await bridge();
    after(() => h.close());
    const d = ledgerDouble({ length: 250n, page: 40n, archivedBelow: 130n, archivePage: 30n });
    const index = new LedgerIndex({
      db: h.opened.db,
      now: h.now,
      pollMs: 60_000,
      log: h.app.log,
      cursor: 'archive-test',
      canisterSet: 'test:archive-test',
      ledgerId: 'archive-test',
      ledger: d.ledger,
      blocksCallback: d.blocksCallback,
    });
    assert.equal(await index.follow(), 250);
    assert.deepEqual([await index.indexed(), await index.skipped()], [250n, 0n]);
    assert.deepEqual(
      (await index.history(a, undefined, 300)).map((r) => Number(r.block_index)),
      Array.from({ length: 250 }, (_, i) => 249 - i),
      'every block, none skipped',
    );
    // The archive was asked for its range from where each short page stopped, never past the range's end.
    assert.deepEqual(
      d.asked.archive.map((r) => [r.start, r.length]),
      [
        [0n, 100n],
        [30n, 70n],
        [60n, 40n],
        [90n, 10n],
        [100n, 30n],
      ],
    );
    // The ledger: asked a page of 100 (DFINITY's most) from 0, then after each archived range, and from where its own
    // short pages stopped.
    assert.deepEqual(
      d.asked.ledger.map((r) => [r.start, r.length]),
      [0n, 100n, 130n, 170n, 210n].map((s) => [s, 100n]),
    );
    assert.ok(!h.logs.lines().some((l: { event?: string }) => l.event === 'wallet.ledger_blocks_archived'));
  });

  it('decision B104: an archive that does not answer the block asked for fails the pass (logged); nothing is skipped, and a later pass goes on from there', async () => {
    const h = await bridge();
    after(() => h.close());
    let failing = true;
    const d = ledgerDouble({
      length: 80n,
      page: 100n,
      archivedBelow: 50n,
      archivePage: 20n,
      archiveFails: (r) => failing && r.start === 20n,
    });
    const index = new LedgerIndex({
      db: h.opened.db,
      now: h.now,
      pollMs: 60_000,
      log: h.app.log,
      cursor: 'archive-gap',
      canisterSet: 'test:archive-gap',
      ledgerId: 'archive-gap',
      ledger: d.ledger,
      blocksCallback: d.blocksCallback,
    });
    await assert.rejects(index.follow(), /did not answer ledger block 20/);
    assert.deepEqual(
      [await index.indexed(), await index.skipped()],
      [20n, 0n],
      'the blocks before it are kept, none skipped',
    );
    failing = false;
    assert.equal(await index.follow(), 60);
    assert.deepEqual([await index.indexed(), await index.skipped()], [80n, 0n]);
  });

  it('decision B76: blocks a ledger answers neither itself nor by an archive are skipped, counted and logged; the index goes on after them', async () => {
    const h = await bridge();
    after(() => h.close());
    const index = new LedgerIndex({
      db: h.opened.db,
      now: h.now,
      pollMs: 60_000,
      log: h.app.log,
      // Beside the bridge's own index of the real ledger, in the same tables: another ledger, so another set's rows
      // (decision B103).
      canisterSet: 'test:archived-ledger',
      ledgerId: 'archived-ledger',
      cursor: 'archived-test',
      // Blocks 0–9 are gone without an archive; 10–11 are live.
      ledger: {
        icrc3_get_blocks: async ([r]) => ({
          log_length: 12n,
          blocks: [10n, 11n].filter((i) => i >= r!.start).map(block) as never,
          archived_blocks: [],
        }),
      },
      blocksCallback: () => Promise.reject(new Error('no archive')),
    });
    await index.follow();
    assert.deepEqual([await index.indexed(), await index.skipped()], [12n, 10n]);
    assert.deepEqual(
      (await index.history(a, undefined, 10)).map((r) => r.block_index),
      ['11', '10'],
    );
    assert.ok(h.logs.lines().some((l: { event?: string }) => l.event === 'wallet.ledger_blocks_archived'));

    // A pass is bounded (a new index reading a long log): 2 calls of 100 here; catching up says whether it reached the
    // tip.
    const d = ledgerDouble({ length: 1500n, page: 100n, archivedBelow: 0n, archivePage: 0n });
    const long = new LedgerIndex({
      db: h.opened.db,
      now: h.now,
      pollMs: 60_000,
      callsPerPass: 2,
      canisterSet: 'test:long-ledger',
      ledgerId: 'long-ledger',
      cursor: 'long-test',
      ledger: d.ledger,
      blocksCallback: d.blocksCallback,
    });
    assert.equal(await long.follow(), 200);
    assert.equal(await long.indexed(), 200n);
    assert.equal(await long.catchUp(), false, 'the pass under way and one more, of 2 calls each, do not reach the tip');
    assert.equal(await long.indexed(), 600n);
  });
});
