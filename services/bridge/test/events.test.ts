// The in-bridge event seam and the governance admin-event follower (decisions V1–V4):
// canister events become typed bridge events once, subscribers get them in order under a durable
// cursor, a failing handler is retried without losing or skipping, and two bridge instances on one
// PostgreSQL database copy and process each event exactly once.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { principalFromSeed } from '@domdao/canisters';
import { EmbeddedPlatform } from '@domdao/canisters/embedded';
import { openDatabase } from '../src/core/db/connect.ts';
import type { Db } from '../src/core/db/schema.ts';
import { openTemplateDatabase } from './embedded-template.ts';
import { EventLog, type BridgeEvent } from '../src/core/events/bus.ts';
import { GovernanceFollower } from '../src/core/events/governance-follower.ts';
import { Poller } from '../src/core/events/poller.ts';
import { freshPostgres } from './harness.ts';

const ADMIN = principalFromSeed('events-test-admin');
const HOUR = 3_600_000_000_000n;

async function platform() {
  let now = BigInt(Date.parse('2026-05-01T00:00:00Z')) * 1_000_000n;
  const p = await EmbeddedPlatform.open({ clock: () => now, admins: [ADMIN], schedulerMaxSleepMs: 5 });
  return { p, gov: p.as(ADMIN).governance, advance: (ns: bigint) => (now += ns) };
}

async function eventually(check: () => Promise<boolean> | boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('governance admin-event follower (decisions V1, V3)', () => {
  it('copies ProposalCreated and ProposalOpened once, typed, in order, and resumes from the stored log', async () => {
    const { p, gov, advance } = await platform();
    const database = await openTemplateDatabase();
    const events = new EventLog({ db: database.db, canisterSet: 'test' });
    const follower = new GovernanceFollower({ db: database.db, events, governance: gov, pollMs: 60_000 });
    try {
      const created = await gov.create_proposal({ title: 'Events', body: 'b', category: 'General' });
      assert.ok('Ok' in created);
      advance(HOUR);
      await eventually(
        async () => (await gov.list_admin_events(undefined, 10)).length === 2,
        'Created → Open by the scheduler',
      );
      assert.equal(await follower.follow(), 2);
      assert.equal(await follower.follow(), 0, 'the stored log is the cursor: nothing is copied twice');

      const seen: BridgeEvent[] = [];
      events.subscribe('test:all', '*', async (e) => void seen.push(e));
      await events.drain();
      assert.deepEqual(
        seen.map((e) => [e.type, e.id]),
        [
          ['ProposalCreated', 'governance:1'],
          ['ProposalOpened', 'governance:2'],
        ],
      );
      assert.deepEqual(seen[0]!.data, { proposal_id: String(created.Ok), category: 'General', proposed_by: ADMIN });
      assert.deepEqual(seen[1]!.data, { proposal_id: String(created.Ok), from: 'Created', to: 'Open' });
      assert.equal(seen[0]!.occurredAt.toISOString(), '2026-05-01T00:00:00.000Z');

      // A restarted bridge (a new EventLog on the same database) does not deliver them again.
      const again = new EventLog({ db: database.db, canisterSet: 'test' });
      const seenAgain: BridgeEvent[] = [];
      again.subscribe('test:all', '*', async (e) => void seenAgain.push(e));
      const opened: BridgeEvent[] = [];
      again.subscribe('test:opened', ['ProposalOpened'], async (e) => void opened.push(e));
      await again.drain();
      assert.deepEqual(seenAgain, []);
      assert.deepEqual(
        opened.map((e) => e.type),
        ['ProposalOpened'],
        'a type filter delivers only its types',
      );
      const status = await again.status();
      assert.deepEqual(
        status.map((s) => [s.subscriber, s.last_seq, s.failures]),
        [
          ['test:all', '2', 0],
          ['test:opened', '2', 0],
        ],
      );
      await again.close();
    } finally {
      await follower.close();
      await events.close();
      await database.close();
      p.close();
    }
  });
});

describe("the followers' passes (decision V3)", () => {
  it('a caller joins the pass under way; catchUp also runs one that starts after the call, so it sees a change the pass under way read before', async () => {
    let source = 1;
    const gates: Array<() => void> = [];
    const seen: number[] = [];
    const poller = new Poller({
      pass: async () => {
        const read = source; // what the pass reads, at its start
        await new Promise<void>((resolve) => gates.push(resolve));
        seen.push(read);
        return read;
      },
      pollMs: 60_000,
      events: { kick: () => undefined },
      failure: { event: 'test.failed', message: 'failed' },
    });
    const underWay = poller.run();
    source = 2; // changed after the pass under way read it
    const joined = poller.run();
    const caughtUp = poller.catchUp();
    gates.shift()!();
    assert.equal(await joined, 1, 'run() joins the pass under way: it read before the change');
    await new Promise((resolve) => setImmediate(resolve));
    gates.shift()!();
    assert.equal(await caughtUp, 1 + 2, 'catchUp: the joined pass, then one that read the change');
    assert.equal(await underWay, 1);
    assert.deepEqual(seen, [1, 2], 'two passes, one at a time');
  });
});

describe('event delivery (decisions V2, V4)', () => {
  it('a failing handler keeps its cursor, records the error, and gets the same event again; its transaction rolls back', async () => {
    const database = await openTemplateDatabase();
    const db: Db = database.db;
    await sql`create table handled (event_id text not null)`.execute(db);
    const events = new EventLog({ db, canisterSet: 'test', retryBaseMs: 1 });
    try {
      await events.publish('ConfigChanged', { proposal_id: '7' }, { source: 'test', sourceId: 'a' });
      assert.equal(
        await events.publish('ConfigChanged', { proposal_id: '7' }, { source: 'test', sourceId: 'a' }),
        false,
        'same source id: ignored',
      );
      let fail = true;
      events.subscribe('test:flaky', ['ConfigChanged'], async (e, trx) => {
        await sql`insert into handled values (${e.id})`.execute(trx);
        if (fail) throw new Error('downstream is down');
      });
      await events.drain();
      let [s] = await events.status();
      assert.deepEqual([s!.last_seq, s!.failures, s!.last_error], ['0', 1, 'downstream is down']);
      assert.equal(
        (await sql<{ n: number }>`select count(*)::int as n from handled`.execute(db)).rows[0]!.n,
        0,
        'the failed attempt wrote nothing',
      );
      fail = false;
      await new Promise((r) => setTimeout(r, 5));
      await events.drain();
      [s] = await events.status();
      assert.deepEqual([s!.last_seq, s!.failures, s!.last_error], ['1', 0, null]);
      assert.deepEqual((await sql<{ event_id: string }>`select event_id from handled`.execute(db)).rows, [
        { event_id: 'test:a' },
      ]);

      // Published inside a transaction that rolls back: the event never existed.
      await db
        .transaction()
        .execute(async (trx) => {
          await events.publish('ConfigChanged', { proposal_id: '8' }, { trx });
          throw new Error('caller aborts');
        })
        .catch(() => undefined);
      assert.equal((await sql<{ n: number }>`select count(*)::int as n from bridge_events`.execute(db)).rows[0]!.n, 1);
    } finally {
      await events.close();
      await database.close();
    }
  });

  it('two bridge instances on one PostgreSQL database: each canister event copied once and processed once', async () => {
    const pgdb = await freshPostgres('bridge_events');
    const { p, gov, advance } = await platform();
    const a = await openDatabase({ url: pgdb.url });
    const b = await openDatabase({ url: pgdb.url });
    await sql`create table handled (event_id text not null, instance text not null)`.execute(a.db);
    const logs = [new EventLog({ db: a.db, canisterSet: 'test' }), new EventLog({ db: b.db, canisterSet: 'test' })];
    const followers = [
      new GovernanceFollower({ db: a.db, events: logs[0]!, governance: gov, pollMs: 60_000 }),
      new GovernanceFollower({ db: b.db, events: logs[1]!, governance: gov, pollMs: 60_000 }),
    ];
    try {
      for (let i = 0; i < 12; i++)
        assert.ok('Ok' in (await gov.create_proposal({ title: `P${i}`, body: 'b', category: 'General' })));
      advance(HOUR);
      await eventually(
        async () => (await gov.list_admin_events(undefined, 100)).length === 24,
        'every proposal opened',
      );
      logs.forEach((log, i) =>
        log.subscribe('test:shared', '*', async (e, trx) => {
          await sql`insert into handled values (${e.id}, ${String(i)})`.execute(trx);
        }),
      );
      const copied = await Promise.all([followers[0]!.follow(), followers[1]!.follow()]);
      assert.equal(
        copied.reduce((x, y) => x + y, 0),
        24,
        'together they copied each canister event once',
      );
      await Promise.all([logs[0]!.drain(), logs[1]!.drain(), logs[0]!.drain(), logs[1]!.drain()]);
      await Promise.all(logs.map((l) => l.drain()));
      const { rows } = await sql<{
        event_id: string;
        n: number;
      }>`select event_id, count(*)::int as n from handled group by event_id order by min(instance)`.execute(a.db);
      assert.equal(rows.length, 24);
      assert.ok(
        rows.every((r) => r.n === 1),
        'no event processed twice',
      );
      const types = (
        await sql<{
          type: string;
          n: number;
        }>`select type, count(*)::int as n from bridge_events group by type order by type`.execute(a.db)
      ).rows;
      assert.deepEqual(types, [
        { type: 'ProposalCreated', n: 12 },
        { type: 'ProposalOpened', n: 12 },
      ]);
    } finally {
      await Promise.all(followers.map((f) => f.close()));
      await Promise.all(logs.map((l) => l.close()));
      await a.close();
      await b.close();
      p.close();
      await pgdb.drop();
    }
  });
});
