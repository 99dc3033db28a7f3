// test-lane: wasm (decision R17: one file on the built wasm at a time)
// Decision W4: instruction counting on the test replica and the IC's limits per message
// (update 40 B, query 5 B, install and upgrade 300 B; replies 2 MiB).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { principalFromSeed } from '../src/principals.ts';
import { CanisterCallError } from '../src/ic/index.ts';
import { ADMIN, BRIDGE } from './harness.ts';
import { meter, exportTableAndGlobals, u32, INSTRUCTION_LIMITS, limitOf, WasmReplica } from '@domdao/replica/host';
import { deployWasm } from '@domdao/replica';

const CONTROLLER = principalFromSeed('controller');

/**
 * (func (export "run") (param $n i32) (result i32) (local $i i32)
 *   block loop
 *     local.get $i local.get $n i32.ge_u br_if 1
 *     local.get $i i32.const 1 i32.add local.set $i br 0
 *   end end
 *   local.get $i)
 */
function countingLoop(): Uint8Array {
  return moduleOf([
    0x01, 0x01, 0x7f, 0x02, 0x40, 0x03, 0x40, 0x20, 0x01, 0x20, 0x00, 0x4f, 0x0d, 0x01, 0x20, 0x01, 0x41, 0x01, 0x6a,
    0x21, 0x01, 0x0c, 0x00, 0x0b, 0x0b, 0x20, 0x01, 0x0b,
  ]);
}

/**
 * A loop that opens `depth` nested blocks each turn, as QuickJS's interpreter does for each bytecode:
 * (func (export "run") (param $n i32) (result i32)
 *   loop
 *     block … block                                   ;; depth of them
 *       local.get $n i32.const 1 i32.sub local.tee $n br_if <the loop>
 *     end … end
 *   end
 *   local.get $n)
 */
function nestedBlocks(depth: number): Uint8Array {
  const blocks = Array.from({ length: depth }, () => [0x02, 0x40]).flat();
  const ends = Array.from({ length: depth }, () => 0x0b);
  return moduleOf([
    0x00,
    0x03,
    0x40,
    ...blocks,
    0x20,
    0x00,
    0x41,
    0x01,
    0x6b,
    0x22,
    0x00,
    0x0d,
    ...u32(depth),
    ...ends,
    0x0b,
    0x20,
    0x00,
    0x0b,
  ]);
}

/** A module of one function `run: (i32) -> i32` with this body (its locals, then its code). */
function moduleOf(body: number[]): Uint8Array {
  const section = (id: number, content: number[]) => [id, ...u32(content.length), ...content];
  return Uint8Array.from([
    ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
    ...section(1, [0x01, 0x60, 0x01, 0x7f, 0x01, 0x7f]),
    ...section(3, [0x01, 0x00]),
    ...section(7, [0x01, 0x03, 0x72, 0x75, 0x6e, 0x00, 0x00]),
    ...section(10, [0x01, ...u32(body.length), ...body]),
  ]);
}

/** The metered module, instantiated: its `run` and its counter. */
function metered(wasm: Uint8Array): { run: (n: number) => number; counter: WebAssembly.Global; adds: number } {
  const m = meter(wasm);
  const patched = exportTableAndGlobals(m.wasm);
  const instance = new WebAssembly.Instance(new WebAssembly.Module(patched.wasm));
  // The adds the pass put in: `i64.add global.set <counter>`, a sequence the bodies here have nowhere else.
  const tail = [0x7c, 0x24, ...u32(m.counter)];
  let adds = 0;
  for (let i = 0; i + tail.length <= m.wasm.length; i++) if (tail.every((b, k) => m.wasm[i + k] === b)) adds++;
  return {
    run: instance.exports.run as (n: number) => number,
    counter: instance.exports[`__host_global_${m.counter}`] as WebAssembly.Global,
    adds,
  };
}

describe('instruction counting (decision W4)', () => {
  it('the meter counts each executed run of instructions: a loop of n turns costs 10n + 8 here', () => {
    const { run, counter } = metered(countingLoop());
    for (const n of [0, 1, 7, 1000]) {
      const before = counter.value as bigint;
      assert.equal(run(n), n, 'the metered function computes what it did before');
      // Entry: block (1), loop (1); each turn: the test and br_if (4) and the body to br and end (6);
      // the last test (4); after the block: local.get and the function's end (2).
      assert.equal((counter.value as bigint) - before, BigInt(10 * n + 8));
    }
  });

  it("a block's start is no run of its own: 300 nested blocks a turn are counted exactly, with no add after each block", () => {
    const depth = 300;
    const { run, counter, adds } = metered(nestedBlocks(depth));
    // Runs: the entry (loop), each turn's (the blocks to br_if), past the br_if (the first end), after
    // each end (the next end, then local.get and the function's end). An add after each block too would
    // be 300 more, each run on every turn: what made QuickJS's dispatch 15 times slower metered.
    assert.equal(adds, depth + 4);
    for (const n of [1, 7, 1000]) {
      const before = counter.value as bigint;
      assert.equal(run(n), 0, 'the metered function computes what it did before');
      // Entry: loop (1); each turn: the blocks and five instructions to br_if; the last turn's ends
      // (depth + 1); local.get and the function's end (2).
      assert.equal((counter.value as bigint) - before, BigInt(n * (depth + 5) + 1 + depth + 1 + 2));
    }
  });

  it('every message of a deployment and a proposal is counted, and stays within its limit', async () => {
    const replica = new WasmReplica();
    const d = await deployWasm({ admins: [ADMIN], registrars: [BRIDGE], controller: CONTROLLER }, replica);
    const id = await d
      .as(BRIDGE)
      .governance.create_proposal({ title: 'Counted', body: 'every instruction', category: 'General' });
    assert.deepEqual(id, { Ok: 1n });
    await d.as(BRIDGE).governance.list_proposals({});
    const kinds = new Set(replica.counts.map((c) => c.kind));
    for (const kind of ['init', 'update', 'query']) assert.ok(kinds.has(kind as never), `${kind} messages counted`);
    for (const c of replica.counts) {
      assert.ok(c.instructions > 0n, `${c.method} counted`);
      const limit = limitOf(c.kind);
      assert.ok(c.instructions < limit, `${c.kind} ${c.method}: ${c.instructions} < ${limit}`);
    }
  });

  it('a message over its limit is stopped as the IC stops it: a trap, and nothing kept', async () => {
    const replica = new WasmReplica();
    const d = await deployWasm({ admins: [ADMIN], registrars: [BRIDGE], controller: CONTROLLER }, replica);
    // A limit below what create_proposal needs (about 10^8 here), above what list_proposals needs on an empty store.
    replica.limits.update = 1_000_000n;
    await assert.rejects(
      d.as(BRIDGE).governance.create_proposal({ title: 'Too long', body: 'for the limit', category: 'General' }),
      (e: Error) =>
        e instanceof CanisterCallError && e.rejectCode === 5 && /instruction limit exceeded/.test(e.message),
    );
    replica.limits.update = INSTRUCTION_LIMITS.update;
    assert.deepEqual(await d.as(BRIDGE).governance.list_proposals({}), []);
    assert.deepEqual(
      await d.as(BRIDGE).governance.create_proposal({ title: 'Within', body: 'the limit', category: 'General' }),
      { Ok: 1n },
    );
  });

  it('decision W4: set-up run unmetered keeps its state when metering resumes; unmetered messages are neither counted nor limited', async () => {
    const replica = new WasmReplica();
    const d = await deployWasm({ admins: [ADMIN], registrars: [BRIDGE], controller: CONTROLLER }, replica);
    const b = d.as(BRIDGE);
    const counted = replica.counts.length;
    replica.metering = false;
    // Metered, this limit stops create_proposal (the test above); unmetered it does not apply.
    replica.limits.update = 1_000_000n;
    assert.deepEqual(
      await b.governance.create_proposal({
        title: 'Unmetered',
        body: 'made while set-up ran unmetered',
        category: 'General',
      }),
      { Ok: 1n },
    );
    await replica.upgrade(d.ids.governance, d.initArg('governance'), CONTROLLER);
    assert.deepEqual(
      await b.governance.create_proposal({ title: 'After the upgrade', body: 'still unmetered', category: 'General' }),
      { Ok: 2n },
    );
    assert.equal(replica.counts.length, counted, 'nothing counted while unmetered');
    replica.metering = true;
    // The state moved into the metered instance: the limit applies again, and a stopped message keeps nothing.
    await assert.rejects(
      b.governance.create_proposal({ title: 'Too long', body: 'for the limit', category: 'General' }),
      /instruction limit exceeded/,
    );
    replica.limits.update = INSTRUCTION_LIMITS.update;
    assert.deepEqual(
      await b.governance.create_proposal({ title: 'Metered', body: 'counted again', category: 'General' }),
      { Ok: 3n },
    );
    assert.deepEqual(
      (await b.governance.list_proposals({})).map((p) => p.title),
      ['Metered', 'After the upgrade', 'Unmetered'],
      'newest first',
    );
    const mine = replica.counts.slice(counted);
    assert.deepEqual(
      mine.map((c) => [c.method, c.trapped]),
      [
        ['create_proposal', true],
        ['create_proposal', false],
        ['list_proposals', false],
      ],
    );
    assert.ok(mine.every((c) => c.instructions > 0n));
  });

  it('an upgrade whose post_upgrade is stopped at its limit is undone: stable memory byte for byte, the version, the old instance and its state', async () => {
    /** A deployment (restored from the process's image, decision W10) with one proposal, and its governance canister. */
    const governance = async () => {
      const replica = new WasmReplica();
      const d = await deployWasm({ admins: [ADMIN], registrars: [BRIDGE], controller: CONTROLLER }, replica);
      assert.deepEqual(
        await d
          .as(BRIDGE)
          .governance.create_proposal({ title: 'Kept', body: 'across a failed upgrade', category: 'General' }),
        { Ok: 1n },
      );
      const g = replica.canister(d.ids.governance);
      return { replica, d, g, stable: () => Buffer.from(g.stable.subarray(0, g.stablePages * 65_536)) };
    };
    // On one deployment, an upgrade that succeeds (Azle exports no canister_pre_upgrade): what its
    // post_upgrade costs, and that it writes stable memory.
    const measured = await governance();
    const first = measured.stable();
    await measured.replica.upgrade(measured.d.ids.governance, measured.d.initArg('governance'), CONTROLLER);
    const post = measured.replica.counts.find((c) => c.kind === 'post_upgrade')!.instructions;
    assert.ok(!measured.stable().equals(first), 'an upgrade writes stable memory');
    // On the same deployment again, a limit that post_upgrade does not fit: the IC stops it and keeps nothing.
    const { replica, d, g, stable } = await governance();
    const before = { stable: stable(), pages: g.stablePages, version: g.version, instance: g.instance };
    assert.ok(before.stable.equals(first));
    replica.limits.install = post / 2n;
    await assert.rejects(
      replica.upgrade(d.ids.governance, d.initArg('governance'), CONTROLLER),
      /post_upgrade of \S+ trapped: instruction limit exceeded/,
    );
    replica.limits.install = INSTRUCTION_LIMITS.install;
    assert.ok(stable().equals(before.stable), 'stable memory as before');
    assert.deepEqual([g.stablePages, g.version, g.instance === before.instance], [before.pages, before.version, true]);
    assert.deepEqual(
      (await d.as(BRIDGE).governance.list_proposals({})).map((p) => p.title),
      ['Kept'],
    );
    await replica.upgrade(d.ids.governance, d.initArg('governance'), CONTROLLER);
    assert.equal(g.version, before.version + 1n);
  });

  it('decision W5: after an upgrade nothing is rebuilt: the first update reading the votes costs what it cost before', async () => {
    const replica = new WasmReplica();
    const d = await deployWasm({ admins: [ADMIN], registrars: [BRIDGE], controller: CONTROLLER }, replica);
    const b = d.as(BRIDGE);
    const voters: string[] = [];
    for (let i = 0; i < 24; i++) {
      const principal = principalFromSeed(`w5-voter-${i}`);
      const created = await b.user.create_account({
        principal,
        email_encrypted: 'e',
        name_encrypted: 'n',
        dob_encrypted: 'd',
        password_hash: '$argon2id$v=19$m=19456,t=2,p=1$c29tZXNhbHQ$aGFzaGhhc2hoYXNo',
        tos_accepted_at: replica.time - 1n,
        is_age_verified_18_plus: true,
      });
      assert.ok('Ok' in created);
      assert.ok('Ok' in (await b.user.verify_email(created.Ok.verification_token)));
      assert.ok('Ok' in (await b.user.record_kyc(principal, true)));
      assert.ok(
        'Ok' in
          (await b.user.upgrade_membership_to_active({
            principal,
            kyc_proof: new Uint8Array([1]),
            payment_proof: new Uint8Array([2]),
          })),
      );
      voters.push(principal);
    }
    const created = await b.governance.create_proposal({
      title: 'W5',
      body: 'votes across an upgrade',
      category: 'General',
    });
    assert.ok('Ok' in created);
    replica.time += 3_600_000_000_000n;
    await replica.tick();
    for (const v of voters) assert.deepEqual(await d.as(v).governance.cast_vote(created.Ok, 'Yes'), { Ok: null });
    const repeated = async () => {
      const from = replica.counts.length;
      assert.ok('Err' in (await d.as(voters[0]!).governance.cast_vote(created.Ok, 'No')));
      return replica.counts.slice(from).find((c) => c.method === 'cast_vote')!.instructions;
    };
    const page = async () => {
      const from = replica.counts.length;
      assert.equal((await d.as(ADMIN).governance.list_votes_page(created.Ok, [...voters].sort()[10], 5)).length, 5);
      return replica.counts.slice(from).find((c) => c.method === 'list_votes_page')!.instructions;
    };
    const before = { vote: await repeated(), page: await page() };
    await replica.upgrade(d.ids.governance, d.initArg('governance'), CONTROLLER);
    const after = { vote: await repeated(), page: await page() };
    // With K5's heap index, the first read of the votes after an upgrade rebuilt it: ≈ 10 million
    // instructions per vote, several times these calls' own cost at 24 votes.
    assert.ok(
      after.vote < (before.vote * 3n) / 2n,
      `repeated vote: ${before.vote} before, ${after.vote} after the upgrade`,
    );
    assert.ok(
      after.page < (before.page * 3n) / 2n,
      `a page of 5: ${before.page} before, ${after.page} after the upgrade`,
    );
  });

  it('decision W6: list_proposals stops within the query instruction limit, and paging reaches every proposal', async () => {
    const replica = new WasmReplica();
    const d = await deployWasm({ admins: [ADMIN], registrars: [BRIDGE], controller: CONTROLLER }, replica);
    const g = d.as(BRIDGE).governance;
    const body = 'A proposal of some length. '.repeat(400); // 10,800 characters: ≈ 0.55 billion instructions to answer each
    const ids: bigint[] = [];
    for (let i = 0; i < 12; i++) {
      const r = await g.create_proposal({ title: `Proposal ${i}`, body, category: 'General' });
      assert.ok('Ok' in r);
      ids.push(r.Ok);
    }
    // All 12 in one answer would take ≈ 6.6 billion instructions, over the 5 billion a query may use.
    const seen: bigint[] = [];
    let from: bigint | undefined;
    for (;;) {
      const page = await g.list_proposals({ limit: 100, ...(from !== undefined && { from_id: from }) });
      if (page.length === 0) break;
      assert.ok(page.length < 12, `a page of ${page.length}`);
      seen.push(...page.map((p) => p.id));
      from = page.at(-1)!.id - 1n;
      if (from === 0n) break;
    }
    assert.deepEqual(seen, [...ids].reverse(), 'every proposal once, newest first');
    const listed = replica.counts.filter((c) => c.method === 'list_proposals');
    assert.ok(
      listed.every((c) => c.instructions < 4_000_000_000n),
      `pages used ${listed.map((c) => c.instructions).join(', ')} instructions`,
    );
  });
});
