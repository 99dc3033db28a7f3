// Spec 2 "Membership token and status" and "States and transitions", through the core's public
// methods on the embedded host, with a controllable clock.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { isOk, type Result } from '@domdao/canister-kit';
import { EmbeddedHost } from '@domdao/canister-kit/embedded';
import { endOfYear } from '../core/expiry.ts';
import { ACTIVE_COUNT_STEP, MAX_QUERY_BATCH, membershipCore, type TokenRecord } from '../core/membership.ts';

const USER = 'user-canister';
const GOV = 'governance-canister';
const ADMIN = 'admin-principal';
const ALICE = 'alice-principal';
const BOB = 'bob-principal';
const at = (iso: string) => BigInt(Date.parse(iso)) * 1_000_000n;

const dirs: string[] = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function setup(dir?: string, initialise = true) {
  const host = EmbeddedHost.open(dir === undefined ? {} : { dir });
  const core = membershipCore({
    tokens: host.store('membership', 'tokens'),
    byOwner: host.store('membership', 'by_owner'),
    config: host.store('membership', 'config'),
    activeByExpiry: host.store('membership', 'active_by_expiry'),
  });
  let now = at('2026-03-10T12:00:00Z');
  const ctx = (caller: string) => ({ caller, now });
  const update = <T>(fn: () => T) => host.update('membership', fn);
  const query = <T>(fn: () => T) => host.query('membership', fn);
  const s = {
    host,
    core,
    ctx,
    update,
    query,
    setNow: (t: string | bigint) => (now = typeof t === 'bigint' ? t : at(t)),
    now: () => now,
    status: (p: string) => query(() => core.get_membership_status(ctx('anyone'), p)),
    mint: (p: string, caller = USER) => update(() => core.mint_membership_registered(ctx(caller), p, now - 1_000n)),
    upgrade: (p: string, caller = USER, proof = new Uint8Array([1, 2, 3])) =>
      update(() => core.upgrade_to_active(ctx(caller), p, proof)),
    active: () => query(() => core.count_active_members(ctx('anyone'))),
  };
  return {
    ...s,
    ready: initialise
      ? update(() => core.init({ user_canister: USER, governance_canister: GOV, admins: [ADMIN] })).then(() => s)
      : Promise.resolve(s),
  };
}

const err = (r: Result<unknown, string>) => (isOk(r) ? undefined : r.Err);

describe('mint_membership_registered', () => {
  it('none → Registered: token id stored, expiration_date 0, is_active false', async () => {
    const m = await setup().ready;
    const r = await m.mint(ALICE);
    assert.deepEqual(r, { Ok: 1n });
    const t = m.status(ALICE)!;
    assert.equal(t.status, 'Registered');
    assert.equal(t.token_id, 1n);
    assert.equal(t.expiration_date, 0n);
    assert.equal(t.is_active, false);
    assert.equal(t.owner, ALICE);
  });
  it('only the user canister may call it', async () => {
    const m = await setup().ready;
    assert.match(err(await m.mint(ALICE, ALICE))!, /only the user canister/);
    assert.match(err(await m.mint(ALICE, ADMIN))!, /only the user canister/);
    assert.equal(m.status(ALICE), undefined);
  });
  it('once per principal', async () => {
    const m = await setup().ready;
    await m.mint(ALICE);
    assert.match(err(await m.mint(ALICE))!, /already exists/);
    assert.deepEqual(await m.mint(BOB), { Ok: 2n });
  });
  it('tos_accepted_at must be in the past', async () => {
    const m = await setup().ready;
    assert.match(
      err(await m.update(() => m.core.mint_membership_registered(m.ctx(USER), ALICE, at('2030-01-01T00:00:00Z'))))!,
      /past/,
    );
  });
  it('the canister must be initialised, once', async () => {
    const m = await setup(undefined, false).ready;
    await assert.rejects(m.mint(ALICE), /not initialised/);
    await m.update(() => m.core.init({ user_canister: USER, governance_canister: GOV, admins: [] }));
    await assert.rejects(
      m.update(() => m.core.init({ user_canister: USER, governance_canister: GOV, admins: [] })),
      /already initialised/,
    );
  });
});

describe('upgrade_to_active', () => {
  it('Registered → Active until Dec 31 23:59:59 UTC; voting enabled (is_active)', async () => {
    const m = await setup().ready;
    await m.mint(ALICE);
    assert.deepEqual(await m.upgrade(ALICE), { Ok: null });
    const t = m.status(ALICE)!;
    assert.equal(t.status, 'Active');
    assert.equal(t.is_active, true);
    assert.equal(t.expiration_date, at('2026-12-31T23:59:59Z'));
    assert.equal(t.expiration_date, endOfYear(2026));
  });
  it('is refused for other callers, empty or huge proofs, unknown principals', async () => {
    const m = await setup().ready;
    await m.mint(ALICE);
    assert.match(err(await m.upgrade(ALICE, ALICE))!, /only the user canister/);
    assert.match(err(await m.upgrade(ALICE, USER, new Uint8Array()))!, /payment_proof/);
    assert.match(err(await m.upgrade(ALICE, USER, new Uint8Array(64 * 1024 + 1)))!, /payment_proof/);
    assert.match(err(await m.upgrade(BOB))!, /no Registered membership/);
    assert.equal(m.status(ALICE)!.status, 'Registered');
  });
  it('Active → Expired when Dec 31 23:59:59 UTC passes', async () => {
    const m = await setup().ready;
    await m.mint(ALICE);
    await m.upgrade(ALICE);
    m.setNow('2026-12-31T23:59:58Z');
    assert.equal(m.status(ALICE)!.status, 'Active');
    m.setNow('2026-12-31T23:59:59Z');
    assert.equal(m.status(ALICE)!.status, 'Expired');
    assert.equal(m.status(ALICE)!.is_active, false);
  });
  it('decision M2: renewal after expiry runs to the end of the new year; early renewal extends by a year', async () => {
    const m = await setup().ready;
    await m.mint(ALICE);
    await m.upgrade(ALICE);
    m.setNow('2027-02-01T00:00:00Z');
    assert.equal(m.status(ALICE)!.status, 'Expired');
    await m.upgrade(ALICE);
    assert.equal(m.status(ALICE)!.expiration_date, endOfYear(2027));
    m.setNow('2027-12-15T00:00:00Z');
    await m.upgrade(ALICE);
    assert.equal(m.status(ALICE)!.expiration_date, endOfYear(2028));
  });
});

describe('revoke_membership (decision M4)', () => {
  it('admin or governance revokes; Revoked is final and cannot be upgraded', async () => {
    const m = await setup().ready;
    await m.mint(ALICE);
    await m.mint(BOB);
    assert.match(err(await m.update(() => m.core.revoke_membership(m.ctx(ALICE), BOB)))!, /admin only/);
    assert.deepEqual(await m.update(() => m.core.revoke_membership(m.ctx(ADMIN), ALICE)), { Ok: null });
    assert.deepEqual(await m.update(() => m.core.revoke_membership(m.ctx(GOV), BOB)), { Ok: null });
    assert.equal(m.status(ALICE)!.status, 'Revoked');
    assert.match(err(await m.upgrade(ALICE))!, /revoked/);
    assert.match(err(await m.update(() => m.core.revoke_membership(m.ctx(ADMIN), ALICE)))!, /already revoked/);
    assert.match(err(await m.update(() => m.core.revoke_membership(m.ctx(ADMIN), 'nobody')))!, /no membership/);
  });
});

describe('membership history: voting_eligibility and active_member_snapshot (decision M8)', () => {
  const eligibility = (m: Awaited<ReturnType<typeof setup>['ready']>, p: string, t: bigint) =>
    m.query(() => m.core.voting_eligibility(m.ctx(GOV), p, t));

  it('a run of Active status counts from strictly after its start until its expiry: each end at the limit and one unit past it', async () => {
    const m = await setup().ready;
    await m.mint(ALICE);
    m.setNow('2026-04-01T00:00:00Z');
    const since = m.now();
    await m.upgrade(ALICE);
    const until = m.status(ALICE)!.expiration_date;
    m.setNow('2026-06-01T00:00:00Z');
    assert.deepEqual(
      eligibility(m, ALICE, since),
      { active_now: true, active_at: false },
      'made Active at that very instant: not yet',
    );
    assert.deepEqual(eligibility(m, ALICE, since + 1n), { active_now: true, active_at: true });
    assert.deepEqual(eligibility(m, ALICE, since - 1n), { active_now: true, active_at: false }, 'Registered then');
    m.setNow(until + 5n);
    assert.deepEqual(eligibility(m, ALICE, until - 1n), { active_now: false, active_at: true });
    assert.deepEqual(
      eligibility(m, ALICE, until),
      { active_now: false, active_at: false },
      'expired at its expiration_date (M3)',
    );
    assert.deepEqual(
      eligibility(m, ALICE, m.now() + 1n),
      { active_now: false, active_at: false },
      'the future is not known',
    );
    assert.deepEqual(eligibility(m, 'nobody', since + 1n), { active_now: false, active_at: false });
    await m.mint(BOB);
    assert.deepEqual(eligibility(m, BOB, m.now()), { active_now: false, active_at: false }, 'Registered is not Active');
  });

  it('the future is not known: while the run goes on, now is Active and one ns after now is not, nor any later instant of the run', async () => {
    const m = await setup().ready;
    await m.mint(ALICE);
    const since = m.now();
    await m.upgrade(ALICE);
    const until = m.status(ALICE)!.expiration_date;
    m.setNow('2026-06-01T00:00:00Z');
    assert.ok(m.now() < until, 'before expiry');
    assert.deepEqual(eligibility(m, ALICE, since + 1n), { active_now: true, active_at: true });
    assert.deepEqual(eligibility(m, ALICE, m.now()), { active_now: true, active_at: true }, 'now is known');
    assert.deepEqual(
      eligibility(m, ALICE, m.now() + 1n),
      { active_now: true, active_at: false },
      'one ns ahead is not',
    );
    assert.deepEqual(
      eligibility(m, ALICE, until - 1n),
      { active_now: true, active_at: false },
      'within the run, but ahead',
    );
  });

  it('an early renewal keeps the run; a renewal after a lapse starts a new one and keeps the previous', async () => {
    const m = await setup().ready;
    await m.mint(ALICE);
    const since = m.now();
    await m.upgrade(ALICE);
    m.setNow('2026-12-01T00:00:00Z');
    await m.upgrade(ALICE); // early: Active until the end of 2027 (M2)
    assert.equal(eligibility(m, ALICE, since + 1n).active_at, true, 'still one run since the first activation');
    m.setNow('2028-01-05T00:00:00Z'); // lapsed at the end of 2027
    const renewed = m.now();
    await m.upgrade(ALICE);
    const lapsedAt = at('2027-12-31T23:59:59Z');
    m.setNow('2028-01-06T00:00:00Z');
    assert.deepEqual(eligibility(m, ALICE, lapsedAt - 1n), { active_now: true, active_at: true }, 'the previous run');
    assert.equal(eligibility(m, ALICE, lapsedAt).active_at, false, 'the lapse');
    assert.equal(eligibility(m, ALICE, renewed).active_at, false);
    assert.equal(eligibility(m, ALICE, renewed + 1n).active_at, true, 'the new run');
  });

  it('a revocation ends the run at its instant', async () => {
    const m = await setup().ready;
    await m.mint(ALICE);
    const since = m.now();
    await m.upgrade(ALICE);
    m.setNow('2026-05-01T00:00:00Z');
    const revoked = m.now();
    await m.update(() => m.core.revoke_membership(m.ctx(ADMIN), ALICE));
    assert.deepEqual(eligibility(m, ALICE, revoked - 1n), { active_now: false, active_at: true });
    assert.deepEqual(eligibility(m, ALICE, revoked), { active_now: false, active_at: false });
    assert.equal(eligibility(m, ALICE, since + 1n).active_at, true);
  });

  it('a token stored before the history (no active_since) is Active since its join_date; one revoked then is not known to have been Active', async () => {
    const m = await setup().ready;
    const tokens = m.host.store<bigint, TokenRecord>('membership', 'tokens');
    await m.mint(ALICE);
    await m.mint(BOB);
    const joined = m.now();
    await m.upgrade(ALICE);
    await m.upgrade(BOB);
    await m.update(() => {
      for (const id of [1n, 2n]) {
        const { active_since: _a, previous_term: _p, revoked_at: _r, ...legacy } = tokens.get(id)!;
        tokens.set(id, id === 2n ? { ...legacy, status: 'Revoked' } : legacy);
      }
    });
    m.setNow('2026-06-01T00:00:00Z');
    assert.deepEqual(eligibility(m, ALICE, joined), { active_now: true, active_at: false });
    assert.deepEqual(eligibility(m, ALICE, joined + 1n), { active_now: true, active_at: true });
    assert.deepEqual(eligibility(m, BOB, joined + 1n), { active_now: false, active_at: false });
    // Renewed after the lapse, the old run is kept from join_date.
    m.setNow('2027-02-01T00:00:00Z');
    await m.upgrade(ALICE);
    assert.equal(eligibility(m, ALICE, joined + 1n).active_at, true);
    assert.equal(m.status(ALICE)!.status, 'Active');
    assert.deepEqual(
      Object.keys(m.status(ALICE)!).sort(),
      ['expiration_date', 'is_active', 'join_date', 'owner', 'status', 'token_id', 'tos_accepted_at'],
      'get_membership_status shows no history fields',
    );
  });

  it('active_member_snapshot: the count of count_active_members and the instant it holds for', async () => {
    const m = await setup().ready;
    for (const p of ['a', 'b']) {
      await m.mint(p);
      await m.upgrade(p);
    }
    assert.deepEqual(
      m.query(() => m.core.active_member_snapshot(m.ctx(GOV))),
      { count: 2n, at: m.now() },
    );
  });
});

describe('count_active_members (the quorum snapshot governance takes)', () => {
  it('counts Active members only: not Registered, Expired or Revoked', async () => {
    const m = await setup().ready;
    for (const p of ['a', 'b', 'c', 'd']) await m.mint(p);
    await m.upgrade('a');
    await m.upgrade('b');
    await m.upgrade('c');
    await m.update(() => m.core.revoke_membership(m.ctx(ADMIN), 'c'));
    assert.equal(m.active(), 2n);
    m.setNow('2027-01-01T00:00:00Z');
    assert.equal(m.active(), 0n);
  });
});

describe('count_active_members from the count by expiry (decision M7)', () => {
  /** What the count must be: every owner's status in force now, one by one. */
  const scan = (m: Awaited<ReturnType<typeof setup>['ready']>, owners: string[]) =>
    BigInt(owners.filter((p) => m.status(p)?.is_active).length);

  it('stays equal to a scan of every token through mints, activations, renewals, revocations, policy and the turn of the year', async () => {
    const m = await setup().ready;
    const owners = Array.from({ length: 40 }, (_, i) => `member-${i}`);
    // A fixed pseudo-random sequence of operations (no flakiness), checked after each one.
    let seed = 7;
    const next = (n: number) => {
      // mulberry32
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) % n;
    };
    const days = ['2026-03-10', '2026-07-01', '2026-12-31', '2027-01-01', '2027-06-01', '2028-02-01'];
    const seen = new Set<bigint>();
    for (let step = 0; step < 400; step++) {
      const p = owners[next(owners.length)]!;
      const op = next(6);
      if (op === 0) await m.mint(p);
      else if (op <= 2) await m.upgrade(p);
      else if (op === 3 && next(4) === 0) await m.update(() => m.core.revoke_membership(m.ctx(ADMIN), p));
      else if (op === 4 && next(8) === 0)
        await m.update(() =>
          m.core.apply_policy(m.ctx(GOV), {
            add_admins: [],
            remove_admins: [],
            revoke: [p].filter((o) => m.status(o)),
          }),
        );
      else if (op === 5 && next(10) === 0)
        m.setNow(`${days[Math.min(days.length - 1, Math.floor(step / 70))]}T12:00:00Z`);
      assert.equal(m.active(), scan(m, owners), `after step ${step}`);
      seen.add(m.active());
    }
    assert.ok(seen.size >= 10, `the count went up and down: ${[...seen].join(', ')}`);
  });

  it('a store from before the count is counted by timer steps, and the answer is right before, during and after', async () => {
    const m = await setup(undefined, false).ready;
    const n = ACTIVE_COUNT_STEP * 2 + 37;
    const owners = Array.from({ length: n }, (_, i) => `old-${i}`);
    const expiry = endOfYear(2026);
    // What an earlier release stored: tokens and a config without `active_counted`, no counts.
    await m.update(() => {
      owners.forEach((owner, i) => {
        const token_id = BigInt(i + 1);
        const record: TokenRecord = {
          token_id,
          owner,
          join_date: 1n,
          status: i % 3 === 0 ? 'Registered' : i % 7 === 0 ? 'Revoked' : 'Active',
          tos_accepted_at: 1n,
          expiration_date: i % 3 === 0 ? 0n : expiry,
        };
        m.host.store<bigint, TokenRecord>('membership', 'tokens').set(token_id, record);
        m.host.store<string, bigint>('membership', 'by_owner').set(owner, token_id);
      });
      m.host.store('membership', 'config').set('config', {
        user_canister: USER,
        governance_canister: GOV,
        admins: [ADMIN],
        next_token_id: BigInt(n + 1),
      });
    });
    const expected = () => scan(m, owners);
    assert.equal(m.active(), expected(), 'before any step: the tokens not yet counted are scanned');
    assert.equal(m.query(() => m.core.count_active_due(m.ctx('timer'))) !== undefined, true, 'the timer has work');
    await m.update(() => m.core.count_active_step());
    // Mid-way: a write below the cursor moves the count, one above it is read by a later step.
    await m.upgrade(owners[1]!); // a renewal of a counted token
    await m.update(() => m.core.revoke_membership(m.ctx(ADMIN), owners[2]!));
    await m.update(() => m.core.revoke_membership(m.ctx(ADMIN), owners[n - 1]!)); // not counted yet
    assert.deepEqual(await m.mint('newcomer'), { Ok: BigInt(n + 1) });
    await m.upgrade('newcomer');
    owners.push('newcomer');
    assert.equal(m.active(), expected(), 'during the count');
    for (let i = 0; i < 5 && m.query(() => m.core.count_active_due(m.ctx('timer'))) !== undefined; i++)
      await m.update(() => m.core.count_active_step());
    assert.equal(
      m.query(() => m.core.count_active_due(m.ctx('timer'))),
      undefined,
      'done in a few bounded steps',
    );
    assert.equal(m.active(), expected(), 'after the count');
    m.setNow('2027-01-01T00:00:00Z');
    assert.equal(m.active(), expected(), 'the turn of the year ends the 2026 memberships and keeps the renewed one');
    assert.equal(m.active(), 1n);
  });
});

describe('ICRC-7 (soul-bound)', () => {
  it('balance_of, owner_of, tokens_of, total_supply and metadata', async () => {
    const m = await setup().ready;
    await m.mint(ALICE);
    await m.mint(BOB);
    const c = m.core;
    assert.deepEqual(
      m.query(() =>
        c.icrc7_balance_of(m.ctx('x'), [
          { owner: ALICE },
          { owner: 'nobody' },
          { owner: ALICE, subaccount: new Uint8Array(32).fill(1) },
        ]),
      ),
      [1n, 0n, 0n],
    );
    assert.deepEqual(
      m.query(() => c.icrc7_balance_of(m.ctx('x'), [{ owner: ALICE, subaccount: new Uint8Array(32) }])),
      [1n],
      'the all-zero subaccount is the default',
    );
    assert.deepEqual(
      m.query(() => c.icrc7_owner_of(m.ctx('x'), [2n, 99n])),
      [{ owner: BOB }, undefined],
    );
    assert.deepEqual(
      m.query(() => c.icrc7_tokens_of(m.ctx('x'), { owner: BOB })),
      [2n],
    );
    assert.deepEqual(
      m.query(() => c.icrc7_tokens_of(m.ctx('x'), { owner: BOB }, 2n)),
      [],
      'prev excludes',
    );
    assert.deepEqual(
      m.query(() => c.icrc7_tokens_of(m.ctx('x'), { owner: BOB }, undefined, 0n)),
      [],
    );
    assert.equal(
      m.query(() => c.icrc7_total_supply(m.ctx('x'))),
      2n,
    );
    assert.deepEqual(m.query(() => c.icrc7_token_metadata(m.ctx('x'), [1n]))[0]![0], [
      'status',
      { Text: 'Registered' },
    ]);
    assert.deepEqual(
      m.query(() => c.icrc10_supported_standards(m.ctx('x'))).map((s) => s.name),
      ['ICRC-7', 'ICRC-10'],
    );
  });
  it('every transfer is refused: membership tokens are soul-bound', async () => {
    const m = await setup().ready;
    await m.mint(ALICE);
    const [r] = await m.update(() => m.core.icrc7_transfer(m.ctx('x'), [{ token_id: 1n, to: { owner: BOB } }]));
    assert.match((r!.Err as { GenericError: { message: string } }).GenericError.message, /soul-bound/);
    assert.deepEqual(
      m.query(() => m.core.icrc7_owner_of(m.ctx('x'), [1n])),
      [{ owner: ALICE }],
    );
  });
  it('batches over the limit are refused', async () => {
    const m = await setup().ready;
    assert.throws(
      () =>
        m.query(() =>
          m.core.icrc7_owner_of(
            m.ctx('x'),
            Array.from({ length: MAX_QUERY_BATCH + 1 }, (_, i) => BigInt(i)),
          ),
        ),
      /at most/,
    );
    assert.throws(() => m.query(() => m.core.icrc7_tokens_of(m.ctx('x'), { owner: ALICE }, undefined, 101n)), /take/);
  });
});

describe('durability on the embedded host', () => {
  it('memberships survive a restart', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'membership-'));
    dirs.push(dir);
    const a = await setup(dir).ready;
    await a.mint(ALICE);
    await a.upgrade(ALICE);
    a.host.close();
    const b = await setup(dir, false).ready;
    assert.equal(b.status(ALICE)!.status, 'Active');
    assert.deepEqual(await b.mint(BOB), { Ok: 2n }, 'the token counter survived too');
    b.host.close();
  });
});
