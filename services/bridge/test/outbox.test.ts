// The outbox seam (decisions B20–B23) on PGlite and PostgreSQL, with a stand-in
// "canister" that is idempotent under the op id (as the user canister is, decision U5): an operation
// exists iff its transaction commits; the fast path runs it and applies the answer once; a transient
// failure is retried with backoff; a crash at each step boundary (an injected fault) leaves a row the
// reconciler finishes after the lease; rows of one aggregate run in order; compensation when it
// cannot finish; two runners on one database apply an answer once.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { openDatabase } from '../src/core/db/connect.ts';
import type { Db } from '../src/core/db/schema.ts';
import { openTemplateDatabase } from './embedded-template.ts';
import { Outbox, OUTBOX_LEASE_MS } from '../src/core/outbox/queue.ts';
import type { FaultPoint, OperationHandler } from '../src/core/outbox/types.ts';
import { freshPostgres } from './harness.ts';

async function database(
  kind: 'pglite' | 'postgres',
): Promise<{ db: Db; second(): Promise<Db>; close(): Promise<void> }> {
  if (kind === 'pglite') {
    const d = await openTemplateDatabase();
    return { db: d.db, second: async () => d.db, close: () => d.close() };
  }
  const scratch = await freshPostgres('bridge_outbox');
  const url = new URL(scratch.url);
  const opened = [await openDatabase({ url: url.href })];
  return {
    db: opened[0]!.db,
    async second() {
      const d = await openDatabase({ url: url.href });
      opened.push(d);
      return d.db;
    },
    async close() {
      for (const d of opened) await d.close();
      await scratch.drop();
    },
  };
}

/** Runs a test body on a fresh database of that kind, closed whatever happens. */
async function onDatabase(
  kind: 'pglite' | 'postgres',
  body: (d: Awaited<ReturnType<typeof database>>) => Promise<void>,
): Promise<void> {
  const d = await database(kind);
  try {
    await body(d);
  } finally {
    await d.close();
  }
}

/** A canister stand-in: remembers op id → answer (U5); `fail` makes the next calls throw (unreachable). */
function fakeCanister() {
  const answers = new Map<string, { n: bigint }>();
  const state = { effects: 0, calls: 0, fail: 0, applied: [] as string[], compensated: [] as string[], after: 0 };
  const handler: OperationHandler<{ value: number }, { n: bigint }, string> = {
    async call(op) {
      state.calls++;
      if (state.fail > 0) {
        state.fail--;
        throw new Error('canister unreachable');
      }
      let a = answers.get(op.opId);
      if (!a) {
        state.effects++;
        a = { n: BigInt(op.payload.value) * 10n ** 20n };
        answers.set(op.opId, a);
      }
      return a;
    },
    async apply(trx, op, result) {
      assert.equal(typeof result.n, 'bigint');
      await trx
        .insertInto('webhook_events')
        .values({ event_id: op.opId, type: 'test', outcome: String(result.n) })
        .execute();
      state.applied.push(op.opId);
    },
    async compensate(trx, op, reason) {
      await trx
        .insertInto('webhook_events')
        .values({ event_id: op.opId, type: 'test', outcome: `compensated: ${reason}` })
        .execute();
      state.compensated.push(op.opId);
    },
    async after() {
      state.after++;
      return 'mailed';
    },
  };
  return { handler, state };
}

function outboxOn(db: Db, clock: { now: number }, faults?: (p: FaultPoint) => void, maxAttempts?: number) {
  const o = new Outbox({
    db,
    canisterSet: 'test',
    now: () => clock.now,
    reconcileMs: 0,
    ...(faults && { faults }),
    ...(maxAttempts && { maxAttempts }),
  });
  return o;
}

async function enqueue(db: Db, o: Outbox, opId: string, value = 1, aggregate = 'user:a') {
  await db
    .transaction()
    .execute((trx) => o.enqueue(trx, { operation: 'test.op', opId, aggregate, payload: { value } }));
}
const outcome = async (db: Db, opId: string) =>
  (await db.selectFrom('webhook_events').select('outcome').where('event_id', '=', opId).executeTakeFirst())?.outcome;

for (const kind of ['pglite', 'postgres'] as const) {
  describe(`outbox on ${kind} (decisions B20–B23)`, () => {
    it('an operation exists iff its transaction commits; the fast path calls, applies once (bigint answers kept) and reports the follow-up', () =>
      onDatabase(kind, async (d) => {
        const clock = { now: Date.parse('2026-11-23T22:00:00Z') };
        const o = outboxOn(d.db, clock);
        const c = fakeCanister();
        o.register('test.op', c.handler);
        await assert.rejects(
          d.db.transaction().execute(async (trx) => {
            await o.enqueue(trx, {
              operation: 'test.op',
              opId: 'rolled-back',
              aggregate: 'user:a',
              payload: { value: 1 },
            });
            throw new Error('the feature refused');
          }),
        );
        assert.deepEqual(await o.list(), []);
        await enqueue(d.db, o, 'op-1', 7);
        const r = await o.run('op-1');
        assert.deepEqual(r, { state: 'done', result: { n: 7n * 10n ** 20n }, after: 'mailed' });
        assert.deepEqual(
          await o.run('op-1'),
          { state: 'done', result: { n: 7n * 10n ** 20n } },
          'a done row answers its recorded result',
        );
        await enqueue(d.db, o, 'op-1', 99);
        assert.equal((await o.list())[0]!.state, 'done', 'the same op id asked for again keeps its row');
        assert.equal(c.state.calls, 1);
        assert.deepEqual(c.state.applied, ['op-1']);
        assert.equal(await outcome(d.db, 'op-1'), String(7n * 10n ** 20n));
      }));

    for (const point of ['before-call', 'after-call', 'after-apply'] as const) {
      it(`a crash at ${point}: the row waits for its lease, then the reconciler finishes it; the effect and the apply happen once`, () =>
        onDatabase(kind, async (d) => {
          const clock = { now: Date.parse('2026-11-23T22:00:00Z') };
          const c = fakeCanister();
          const crashing = outboxOn(d.db, clock, (p) => {
            if (p === point) throw new Error(`crash at ${p}`);
          });
          crashing.register('test.op', c.handler);
          await enqueue(d.db, crashing, 'op-c', 3);
          await assert.rejects(crashing.run('op-c'), new RegExp(`crash at ${point}`));
          const restarted = outboxOn(d.db, clock);
          restarted.register('test.op', c.handler);
          if (point !== 'after-apply') {
            assert.equal(await restarted.reconcile(), 0, 'the lease of the crashed runner still holds');
            assert.deepEqual(await restarted.run('op-c'), { state: 'pending' });
            clock.now += OUTBOX_LEASE_MS + 1;
            assert.equal(await restarted.reconcile(), 1);
          }
          assert.equal((await restarted.list())[0]!.state, 'done');
          assert.equal(c.state.effects, 1, 'the canister did the work once');
          assert.deepEqual(c.state.applied, ['op-c'], 'the database applied it once');
          assert.equal(await outcome(d.db, 'op-c'), String(3n * 10n ** 20n));
        }));
    }

    it('a transient failure is retried with backoff (5 s doubling) by the reconciler; after maxAttempts the handler compensates', () =>
      onDatabase(kind, async (d) => {
        const clock = { now: Date.parse('2026-11-23T22:00:00Z') };
        const o = outboxOn(d.db, clock, undefined, 3);
        const c = fakeCanister();
        o.register('test.op', c.handler);
        c.state.fail = 1;
        await enqueue(d.db, o, 'op-t');
        assert.deepEqual(await o.run('op-t'), { state: 'pending', error: 'canister unreachable' });
        assert.equal(await o.reconcile(), 0, 'not due before its backoff');
        clock.now += 5_000;
        assert.equal(await o.reconcile(), 1);
        assert.deepEqual(c.state.applied, ['op-t']);

        c.state.fail = 10;
        await enqueue(d.db, o, 'op-g', 1, 'user:g');
        await o.run('op-g');
        clock.now += 5_000;
        await o.reconcile();
        assert.equal((await o.list({ aggregate: 'user:g' }))[0]!.attempts, 2);
        clock.now += 10_000;
        assert.equal(await o.reconcile(), 1);
        const [row] = await o.list({ aggregate: 'user:g' });
        assert.equal(row!.state, 'compensated');
        assert.match(row!.last_error!, /^gave up after 3 attempts: canister unreachable/);
        assert.deepEqual(c.state.compensated, ['op-g']);
        assert.match((await outcome(d.db, 'op-g'))!, /^compensated: gave up after 3 attempts/);
      }));

    it('rows of one aggregate run in creation order; other aggregates are not held up; cancel compensates a row no one runs', () =>
      onDatabase(kind, async (d) => {
        const clock = { now: Date.parse('2026-11-23T22:00:00Z') };
        const o = outboxOn(d.db, clock);
        const c = fakeCanister();
        o.register('test.op', c.handler);
        c.state.fail = 1;
        await enqueue(d.db, o, 'first', 1, 'user:x');
        assert.equal((await o.run('first')).state, 'pending');
        await enqueue(d.db, o, 'second', 2, 'user:x');
        await enqueue(d.db, o, 'other', 3, 'user:y');
        assert.deepEqual(await o.run('second'), { state: 'pending' }, 'waits for the earlier row of its aggregate');
        assert.equal((await o.run('other')).state, 'done');
        assert.equal(await o.pending('user:x'), true);
        clock.now += 5_000;
        assert.equal(await o.reconcile(), 2);
        assert.deepEqual(c.state.applied, ['other', 'first', 'second']);

        c.state.fail = 1;
        await enqueue(d.db, o, 'doomed', 4, 'user:z');
        await o.run('doomed');
        assert.equal(await o.cancel('doomed', 'the client was told nothing was stored'), true);
        assert.equal(await o.cancel('doomed', 'again'), false);
        assert.deepEqual(await o.run('doomed'), {
          state: 'compensated',
          error: 'the client was told nothing was stored',
        });
        assert.deepEqual(c.state.compensated, ['doomed']);
      }));

    it('two runners (two bridge instances) racing on one row: one call applies, the other answers the same result', () =>
      onDatabase(kind, async (d) => {
        const clock = { now: Date.parse('2026-11-23T22:00:00Z') };
        const c = fakeCanister();
        const a = outboxOn(d.db, clock);
        const b = outboxOn(await d.second(), clock);
        a.register('test.op', c.handler);
        b.register('test.op', c.handler);
        for (let i = 0; i < 10; i++) await enqueue(d.db, a, `race-${i}`, i, `user:${i}`);
        const results = await Promise.all([
          ...Array.from({ length: 10 }, (_, i) => a.run(`race-${i}`)),
          ...Array.from({ length: 10 }, (_, i) => b.run(`race-${i}`)),
          a.reconcile(),
          b.reconcile(),
        ]);
        assert.equal(c.state.applied.length, 10, 'each row applied once');
        assert.equal(new Set(c.state.applied).size, 10);
        assert.equal(c.state.effects, 10);
        for (const r of results.slice(0, 20))
          assert.ok(typeof r === 'object' && (r.state === 'done' || r.state === 'pending'));
        await a.reconcile();
        assert.equal((await a.list({ state: 'done' })).length, 10);
      }));
  });
}
