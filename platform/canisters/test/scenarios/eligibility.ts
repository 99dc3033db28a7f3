// Decisions G23 and M8 as a scenario run on both hosts (decision W3): only members Active when a
// proposal's window opened vote on it, so turnout never exceeds total_eligible; the instant itself
// and one nanosecond before it; a membership that lapses after the opening and is renewed; all of it
// kept across the restart (the embedded host reopened from disk, or every wasm canister upgraded).
import assert from 'node:assert/strict';
import type { CanisterClients } from '../../src/api.ts';
import { activeMember, DAY, HOUR, type JourneyHost } from './journey.ts';

function ok<T>(r: { Ok: T } | { Err: unknown }): T {
  if ('Err' in r)
    throw new Error(
      `expected Ok, got ${JSON.stringify(r, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))}`,
    );
  return r.Ok;
}

const at = (iso: string) => BigInt(Date.parse(iso)) * 1_000_000n;

export async function eligibilityJourney(host: JourneyHost): Promise<void> {
  const bridge = () => host.as(host.bridge);
  const vote = (p: string, id: bigint) => host.as(p).governance.cast_vote(id, 'Yes');
  const turnout = async (id: bigint) => {
    const t = (await bridge().governance.get_tally(id))!;
    return { cast: t.yes_votes + t.no_votes + t.abstentions, eligible: t.total_eligible };
  };
  const propose = async (category: Parameters<CanisterClients['governance']['create_proposal']>[0]['category']) =>
    ok(await bridge().governance.create_proposal({ title: 'Eligibility', body: 'Who votes', category }));

  const early = await activeMember(host, 'eligible-early');
  const second = await activeMember(host, 'eligible-second');
  host.advance(1n);
  const id = await propose('General');
  host.advance(HOUR);
  await host.tick();
  const opened = (await bridge().governance.get_proposal(id))!;
  assert.equal(opened.status, 'Open', 'the timer opened the vote and counted the members');
  ok(await vote(early, id));
  host.advance(1n);
  const late = await activeMember(host, 'eligible-late');
  assert.equal(await bridge().membership.count_active_members(), 3n);
  assert.deepEqual(
    await vote(late, id),
    { Err: { NotActiveWhenVotingOpened: { opened_at: opened.voting_opens } } },
    'made Active after the opening',
  );
  assert.deepEqual(await turnout(id), { cast: 1n, eligible: 2n });

  await host.restart();

  assert.deepEqual(
    await vote(late, id),
    { Err: { NotActiveWhenVotingOpened: { opened_at: opened.voting_opens } } },
    'the opening instant survives the restart',
  );
  ok(await vote(second, id));
  assert.deepEqual(await turnout(id), { cast: 2n, eligible: 2n }, 'turnout never exceeds total_eligible');

  // The instant itself: an EmergencyAction opens at creation. Active one nanosecond before votes;
  // made Active at the very instant (before the count) was counted but is refused (decision M8).
  const limit = await activeMember(host, 'eligible-limit');
  host.advance(1n);
  const instant = await activeMember(host, 'eligible-instant');
  const fast = await propose('EmergencyAction');
  const fastOpened = host.now();
  ok(await vote(limit, fast));
  assert.deepEqual(await vote(instant, fast), { Err: { NotActiveWhenVotingOpened: { opened_at: fastOpened } } });
  ok(await vote(late, fast));
  assert.deepEqual(
    await turnout(fast),
    { cast: 2n, eligible: 5n },
    'the member made Active at the instant was counted, as M8 says may happen',
  );

  // A membership that lapses after the opening: not Active now → NotAMember (spec 1 Authentication
  // rule 1); renewed, it votes, having been Active when the vote opened.
  host.advance(at('2026-12-31T12:00:00Z') - host.now());
  const yearEnd = await propose('EmergencyAction');
  host.advance(at('2027-01-01T09:00:00Z') - host.now()); // inside its 24-hour window
  assert.deepEqual(await vote(early, yearEnd), { Err: { NotAMember: null } }, 'expired on Dec 31 23:59:59 UTC');
  ok(
    await bridge().user.upgrade_membership_to_active({
      principal: early,
      kyc_proof: new Uint8Array([1]),
      payment_proof: new Uint8Array([2]),
    }),
  );
  ok(await vote(early, yearEnd));
  const renewedLate = await activeMember(host, 'eligible-new-year');
  assert.deepEqual(await vote(renewedLate, yearEnd), {
    Err: { NotActiveWhenVotingOpened: { opened_at: at('2026-12-31T12:00:00Z') } },
  });
  assert.deepEqual(await turnout(yearEnd), { cast: 1n, eligible: 5n });
  host.advance(DAY);
  await host.tick();
}
