// test-lane: wasm (decision R17: one file on the built wasm at a time)
// Decision W7: range reads of the IC Store at 100,000 entries, on the built wasm of a
// test-only canister (test/store-probe: one StableStore, the one the six canisters use) on the
// metered test replica. The store is grown unmetered as a release without the index left it (its
// data map alone); then, metered: a page at the start and at the end by position (decision W5, the
// end is beyond a query), the upgrade, the index built by timer steps within the update limit, and
// the same pages from the index, before and after a further upgrade, nearly equal and far below the
// query limit. Each count is of one message (replica.counts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { IDL } from '@icp-sdk/core/candid';
import { principalFromSeed } from '../src/principals.ts';
import { INSTRUCTION_LIMITS, WasmReplica } from '@domdao/replica/host';
import { probeWasm } from './store-probe/build.ts';

const N = 100_000;
const CONTROLLER = principalFromSeed('controller');
const PROBE = principalFromSeed('store-probe');
const Page = IDL.Record({ keys: IDL.Vec(IDL.Nat64), complete: IDL.Bool, size: IDL.Nat64 });
const NO_ARGS = new Uint8Array(IDL.encode([], []));

describe('range reads of the IC Store at 100,000 entries (decision W7)', () => {
  it('cost the same at the start and the end of the store, before and after an upgrade, once the index is built', async () => {
    const replica = new WasmReplica();
    await replica.install(PROBE, probeWasm(), NO_ARGS, CONTROLLER);
    const last = () => replica.counts[replica.counts.length - 1]!;
    const update = async (method: string, types: IDL.Type[], args: unknown[]) => {
      const r = await replica.update(CONTROLLER, PROBE, method, new Uint8Array(IDL.encode(types, args)));
      if (!('reply' in r)) throw new Error(r.rejectMessage);
      return replica.metering ? last().instructions : 0n;
    };
    /** Ten keys from `from` (keys are 0, 2, 4, …), and the instructions of the query. */
    const page = async (from: bigint | undefined, reverse = false) => {
      const r = await replica.query(
        CONTROLLER,
        PROBE,
        'page',
        new Uint8Array(
          IDL.encode([IDL.Opt(IDL.Nat64), IDL.Nat32, IDL.Bool], [from === undefined ? [] : [from], 10, reverse]),
        ),
      );
      if (!('reply' in r)) return { rejected: r.rejectMessage, instructions: last().instructions };
      const v = IDL.decode([Page], r.reply)[0] as unknown as { keys: bigint[]; complete: boolean; size: bigint };
      return { ...v, keys: [...v.keys], instructions: last().instructions };
    };
    const END = 2n * BigInt(N) - 21n; // the last ten keys: 2N - 20 … 2N - 2
    const lastTen = Array.from({ length: 10 }, (_, i) => 2n * BigInt(N) - 20n + 2n * BigInt(i));
    const firstTen = Array.from({ length: 10 }, (_, i) => 2n * BigInt(i));

    // Set-up, unmetered: the data map alone, 10,000 entries a message.
    replica.metering = false;
    for (let s = 0; s < N; s += 10_000)
      await update('fill', [IDL.Nat64, IDL.Nat32, IDL.Nat64, IDL.Bool], [2n * BigInt(s), 10_000, 2n, false]);
    replica.metering = true;

    // Without the index (decision W5): a page from the start is cheap, from the end it is beyond a query.
    const positional = { start: await page(0n), end: await page(END) };
    assert.deepEqual('keys' in positional.start && positional.start.keys, firstTen);
    assert.match(String('rejected' in positional.end && positional.end.rejected), /instruction limit exceeded/);
    assert.ok(positional.end.instructions >= INSTRUCTION_LIMITS.query);

    // The upgrade does no work in proportion to the store; the first build step is one timer message
    // within its budget, the rest of the build runs unmetered (it is the same step repeated).
    await replica.upgrade(PROBE, NO_ARGS, CONTROLLER);
    const upgrade = last();
    assert.equal(upgrade.kind, 'post_upgrade');
    // Azle's start of a fresh instance (≈ 1.2 billion at any size) and one read of the index's state.
    assert.ok(upgrade.instructions < 2_000_000_000n, `post_upgrade took ${upgrade.instructions}`);
    const before = replica.counts.length;
    await replica.tick();
    const step = replica.counts.slice(before).reduce((max, c) => (c.instructions > max ? c.instructions : max), 0n);
    assert.ok(step > 5_000_000_000n && step < 15_000_000_000n, `a build step took ${step} instructions`);
    const complete = async () => {
      const p = await page(undefined);
      return 'complete' in p && p.complete;
    };
    assert.equal(await complete(), false);
    replica.metering = false;
    for (let i = 0; i < 20 && !(await complete()); i++) await replica.tick();
    replica.metering = true;

    const reads = async () => ({
      start: await page(undefined),
      startFrom: await page(1n),
      end: await page(END),
      endReverse: await page(undefined, true),
    });
    const indexed = await reads();
    await replica.upgrade(PROBE, NO_ARGS, CONTROLLER);
    const afterUpgrade = await reads();
    const counts: Record<string, number> = {};
    for (const [when, r] of Object.entries({ indexed, afterUpgrade })) {
      for (const [where, p] of Object.entries(r)) {
        assert.ok('keys' in p, `${when} ${where}: ${'rejected' in p && p.rejected}`);
        assert.equal(p.complete, true);
        assert.equal(p.size, BigInt(N));
        counts[`${when} ${where}`] = Number(p.instructions);
      }
      assert.deepEqual('keys' in r.start && r.start.keys, firstTen);
      assert.deepEqual(
        'keys' in r.startFrom && r.startFrom.keys,
        firstTen.map((k) => k + 2n),
      );
      assert.deepEqual('keys' in r.end && r.end.keys, lastTen);
      assert.deepEqual('keys' in r.endReverse && r.endReverse.keys, [...lastTen].reverse());
    }
    const values = Object.values(counts);
    // Far below the 5 billion of a query, and the end costs what the start costs (within a logarithmic term).
    assert.ok(Math.max(...values) < 100_000_000, JSON.stringify(counts));
    assert.ok(Math.max(...values) < 2 * Math.min(...values), JSON.stringify(counts));
    assert.ok(
      counts['afterUpgrade end']! < 1.1 * counts['indexed end']! &&
        counts['afterUpgrade end']! > 0.9 * counts['indexed end']!,
    );

    // A new key and a removal at 100,000 keep the index: O(log n) point operations.
    const insert = await update('fill', [IDL.Nat64, IDL.Nat32, IDL.Nat64, IDL.Bool], [END, 1, 2n, true]);
    const remove = await update('remove', [IDL.Nat64], [END]);
    assert.ok(insert < 100_000_000n && remove < 100_000_000n, `insert ${insert}, remove ${remove}`);
    const end = await page(END);
    assert.ok('keys' in end);
    assert.deepEqual(end.keys, lastTen);
    console.log(
      JSON.stringify({
        positionalStart: Number(positional.start.instructions),
        positionalEnd: `> ${Number(positional.end.instructions)} (stopped)`,
        postUpgrade: Number(upgrade.instructions),
        buildStep: Number(step),
        ...counts,
        insert: Number(insert),
        remove: Number(remove),
      }),
    );
  });
});
