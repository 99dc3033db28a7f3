// test-lane: wasm (decision R17: one file on the built wasm at a time)
// Decisions G29–G31 on the built wasm: one member, one vote under random sequences of delegations, revocations, direct
// votes and openings (a smaller run than the core's, on one deployment), and the cost of a delegate's vote and of
// counting what it carries: cast_vote by a delegate with DELEGATORS delegators (50 here, within the runner's 5 minutes;
// `DELEGATORS=1000` for the figure in decision G31) within the update limit, and every counting step after close within
// it too.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { expectedBallots, GOVERNANCE_TICK_SECONDS } from '@domdao/canister-governance';
import type { ProposalCategory, Vote } from '@domdao/canister-governance';
import { principalFromSeed } from '../src/principals.ts';
import { ADMIN, BRIDGE, HOUR, DAY, PASSWORD_HASH } from './harness.ts';
import { INSTRUCTION_LIMITS, WasmReplica } from '@domdao/replica/host';
import { deployWasm, type WasmDeployment } from '@domdao/replica';

const CONTROLLER = principalFromSeed('controller');
const DELEGATORS = Number(process.env.DELEGATORS ?? 50);

async function activate(d: WasmDeployment, label: string): Promise<string> {
  const b = d.as(BRIDGE);
  const principal = principalFromSeed(label);
  const created = await b.user.create_account({
    principal,
    email_encrypted: 'e',
    name_encrypted: 'n',
    dob_encrypted: 'd',
    password_hash: PASSWORD_HASH,
    tos_accepted_at: d.replica.time - 1n,
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
  return principal;
}

describe('liquid democracy on the built wasm (decisions G29–G31)', () => {
  it('one member, one vote: random delegations, revocations, direct votes and openings resolve as the oracle does', async () => {
    const replica = new WasmReplica();
    replica.metering = false;
    const d = await deployWasm({ admins: [ADMIN], registrars: [BRIDGE], controller: CONTROLLER }, replica);
    const members: string[] = [];
    for (let i = 0; i < 5; i++) members.push(await activate(d, `prop-${i}`));
    replica.time += 1_000n; // Active strictly before any opening (decision M8)
    const names = new Map(members.map((m, i) => [m, `m${i}`]));
    const live = new Map<string, string>(); // `m<i>|scope` → `m<j>`, kept across runs (one deployment)
    const scope = fc.constantFrom<'All' | ProposalCategory>('All', 'EmergencyAction', 'General');
    const op = fc.oneof(
      fc.record({ kind: fc.constant('delegate' as const), from: fc.nat(4), to: fc.nat(4), scope }),
      fc.record({ kind: fc.constant('revoke' as const), from: fc.nat(4), scope }),
      fc.record({ kind: fc.constant('vote' as const), by: fc.nat(4), proposal: fc.nat(1), vote: fc.nat(2) }),
    );
    const VOTES: Vote[] = ['Yes', 'No', 'Abstain'];
    await fc.assert(
      fc.asyncProperty(
        fc.array(op, { minLength: 1, maxLength: 12 }),
        fc.constantFrom<ProposalCategory>('EmergencyAction', 'General'),
        async (ops, category) => {
          const proposals: Array<{ id: bigint; fixed: Map<string, string>; direct: Map<string, Vote> }> = [];
          const open = async () => {
            const r = await d.as(BRIDGE).governance.create_proposal({ title: 'P', body: 'b', category });
            assert.ok('Ok' in r);
            if (category === 'General') {
              replica.time += HOUR;
              await replica.tick();
            }
            proposals.push({ id: r.Ok, fixed: new Map(live), direct: new Map() });
          };
          await open();
          for (const [i, o] of ops.entries()) {
            replica.time += 1_000n;
            if (i === Math.floor(ops.length / 2)) await open();
            if (o.kind === 'delegate') {
              const r = await d.as(members[o.from]!).governance.set_delegation({
                delegate: members[o.to]!,
                ...(o.scope !== 'All' && { category: o.scope }),
              });
              if (o.from === o.to) assert.deepEqual(r, { Err: { SelfDelegation: null } });
              else live.set(`m${o.from}|${o.scope}`, `m${o.to}`);
            } else if (o.kind === 'revoke') {
              const r = await d
                .as(members[o.from]!)
                .governance.revoke_delegation(o.scope === 'All' ? undefined : o.scope);
              assert.equal('Ok' in r, live.delete(`m${o.from}|${o.scope}`));
            } else {
              const p = proposals[o.proposal];
              if (!p) continue;
              const r = await d.as(members[o.by]!).governance.cast_vote(p.id, VOTES[o.vote]!);
              assert.equal('Ok' in r, !p.direct.has(`m${o.by}`), Object.keys('Err' in r ? r.Err : {}).join());
              if (!p.direct.has(`m${o.by}`)) p.direct.set(`m${o.by}`, VOTES[o.vote]!);
            }
          }
          replica.time += 8n * DAY;
          for (let i = 0; i < 3; i++) await replica.tick();
          for (const p of proposals) {
            const expected = expectedBallots(p.fixed, p.direct, category, ['m0', 'm1', 'm2', 'm3', 'm4']);
            const votes = await d.as(ADMIN).governance.list_votes(p.id);
            assert.deepEqual(
              new Map(
                votes.map((v) => [
                  names.get(v.voter)!,
                  { vote: v.vote, ...(v.delegate !== undefined && { delegate: names.get(v.delegate)! }) },
                ]),
              ),
              expected,
            );
            const t = (await d.as(ADMIN).governance.get_tally(p.id))!;
            assert.equal(t.yes_votes + t.no_votes + t.abstentions, BigInt(expected.size));
          }
        },
      ),
      { numRuns: 4 },
    );
    // Upgrades keep the delegations (new stable stores, decision G30): each member's, as the oracle has them.
    const before = await Promise.all(members.map((m) => d.as(m).governance.get_my_delegations()));
    await replica.upgrade(d.ids.governance, d.initArg('governance'), CONTROLLER);
    const after = await Promise.all(members.map((m) => d.as(m).governance.get_my_delegations()));
    assert.deepEqual(after, before);
    const shown = after.flatMap((ds, i) =>
      ds.map((x) => [`m${i}|${x.category ?? 'All'}`, names.get(x.delegate)!] as const),
    );
    assert.deepEqual(new Map(shown), live);
  });

  it(`cast_vote by a delegate with ${DELEGATORS} delegators costs what any vote costs; counting them after close takes bounded steps within the update limit`, async () => {
    const replica = new WasmReplica();
    replica.metering = false;
    const d = await deployWasm({ admins: [ADMIN], registrars: [BRIDGE], controller: CONTROLLER }, replica);
    const delegate = await activate(d, 'delegate');
    const plain = await activate(d, 'plain-voter');
    const started = Date.now();
    for (let i = 0; i < DELEGATORS; i++) {
      const m = await activate(d, `delegator-${i}`);
      replica.time += 1_000n;
      assert.deepEqual(await d.as(m).governance.set_delegation({ delegate }), { Ok: null });
    }
    const setupSeconds = (Date.now() - started) / 1000;
    replica.time += 1_000n;
    replica.metering = true;
    const created = await d
      .as(BRIDGE)
      .governance.create_proposal({ title: 'Counted', body: 'by delegates', category: 'EmergencyAction' });
    assert.ok('Ok' in created);
    const measure = async (who: string) => {
      const from = replica.counts.length;
      assert.deepEqual(await d.as(who).governance.cast_vote(created.Ok, 'Yes'), { Ok: null });
      return replica.counts.slice(from).find((c) => c.method === 'cast_vote')!.instructions;
    };
    const byPlain = await measure(plain);
    const byDelegate = await measure(delegate);
    replica.time += 2n * DAY;
    const from = replica.counts.length;
    let steps = 0;
    // The counting goes on at each run of the governance timer (every GOVERNANCE_TICK_SECONDS), as
    // on the IC: a step counts at most COUNT_BATCH (2,000) delegators.
    for (; steps < 500; steps++) {
      if (steps > 0) replica.time += BigInt(GOVERNANCE_TICK_SECONDS) * 1_000_000_000n;
      await replica.tick();
      const p = await d.as(ADMIN).governance.get_proposal(created.Ok);
      if (p?.status !== 'Tallied') break;
    }
    const timerCounts = replica.counts
      .slice(from)
      .filter((c) => c.kind === 'timer' || c.method === 'canister_global_timer');
    const largest = replica.counts
      .slice(from)
      .reduce((m, c) => (c.kind !== 'query' && c.instructions > m ? c.instructions : m), 0n);
    const t = (await d.as(ADMIN).governance.get_turnout(created.Ok))!;
    console.log(
      `FIGURES delegators=${DELEGATORS} cast_vote(plain)=${byPlain} cast_vote(delegate)=${byDelegate} counting: ${steps + 1} tick(s), ${timerCounts.length} timer message(s), largest update message ${largest} (limit ${INSTRUCTION_LIMITS.update}); set-up ${setupSeconds}s`,
    );
    assert.deepEqual(t, { direct: 2n, delegated: BigInt(DELEGATORS), delegated_counted: true });
    assert.ok(
      byDelegate < INSTRUCTION_LIMITS.update && byDelegate < (byPlain * 3n) / 2n,
      `delegate ${byDelegate} against plain ${byPlain}`,
    );
    assert.ok(largest < INSTRUCTION_LIMITS.update, `largest message ${largest}`);
    const p = (await d.as(ADMIN).governance.get_proposal(created.Ok))!;
    assert.equal(p.tally?.yes_votes, BigInt(DELEGATORS) + 2n);
  });
});
