// `npm run bench wasm` (decision W4): the built canisters on the test replica. Members are made
// the real way (account, verification, KYC, payment), then each votes on one proposal. The stores are
// filled unmetered (about twice as fast) and the last BENCH_WASM_SAMPLE members and votes, the reads
// after each upgrade and the closing step are metered, so every figure is taken at the full size.
// Prints each method's instructions at that size against the IC's limit, the wasm sizes, and what
// grows with the stores, measured at two sizes and extrapolated to 100,000.
// BENCH_WASM_MEMBERS=10000 (the size) takes about 20 minutes on this machine.
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { encodeArgs } from '../platform/canisters/src/ic/index.ts';
import { METHOD_TABLES } from '../platform/canisters/src/tables.ts';
import { principalFromSeed } from '../platform/canisters/src/principals.ts';
import { limitOf, WasmReplica, type InstructionCount } from '@domdao/replica/host';
import { deployWasm } from '@domdao/replica';
import { root, table } from './lib.ts';
import { makeMember, ok } from './members.ts';
import { costSurvey, E8S } from './wasm-cost.ts';

const MEMBERS = Number(process.env.BENCH_WASM_MEMBERS ?? 300);
const LIST_VOTES_MAX = 300;
const SAMPLE = Math.min(MEMBERS, Number(process.env.BENCH_WASM_SAMPLE ?? 60));
// BENCH_WASM_COST=<file.json>: the cost survey at the end (decision W21, bench/wasm-cost.ts).
const COST = process.env.BENCH_WASM_COST;
const SURVEY_QUERY_LIMIT = 200_000_000_000n;
// BENCH_WASM_COST_ONLY=refresh_price,state_status,…: the survey measures only these methods (decision W32).
const ONLY = process.env.BENCH_WASM_COST_ONLY?.split(',')
  .map((m) => m.trim())
  .filter(Boolean);
const progress = (what: string, i: number, n: number, t0: number) => {
  if (i > 0 && i % 1000 === 0)
    console.error(`bench wasm: ${what} ${i}/${n} (${((Date.now() - t0) / 1000).toFixed(0)} s)`);
};
const HOUR = 3_600_000_000_000n;
const billions = (n: bigint) => (Number(n) / 1e9).toFixed(3);

export async function benchWasm(): Promise<string> {
  const admin = principalFromSeed('admin');
  const bridge = principalFromSeed('bridge');
  // The cost survey measures an export page the IC would stop at its 5 B query limit (decision W32):
  // the replica runs it to the end so the doc can say by how much, and compares it with 5 B itself.
  const limits = COST ? { query: SURVEY_QUERY_LIMIT } : {};
  const replica = new WasmReplica({ limits });
  const started = Date.now();
  // For the cost survey the first and the last member hold 100 DOM. Not every member: the ledger's init
  // costs about 100 M instructions a balance and traps past about 2,900 (the 300 B install limit).
  const initialBalances = COST
    ? [0, MEMBERS - 1].map((i) => [principalFromSeed(`wasm-bench-${i}`), 100n * E8S] as [string, bigint])
    : undefined;
  const options = {
    admins: [admin],
    registrars: [bridge],
    controller: principalFromSeed('controller'),
    initialBalances,
  };
  const d = await deployWasm(options, replica);
  const b = d.as(bridge);
  const members: string[] = [];
  const filling = Date.now();
  // Metered from the sample on: the last SAMPLE members and votes.
  const sampled = (i: number) => (replica.metering = i >= MEMBERS - SAMPLE);
  for (let i = 0; i < MEMBERS; i++) {
    sampled(i);
    progress('members', i, MEMBERS, filling);
    const principal = principalFromSeed(`wasm-bench-${i}`);
    await makeMember(b.user, principal, replica.time);
    members.push(principal);
  }
  const proposal = ok(
    await b.governance.create_proposal({ title: 'Bench', body: 'One vote per member', category: 'General' }),
  );
  replica.time += HOUR;
  await replica.tick();

  /**
   * Right after an upgrade of governance (nothing warmed): a page of 40 votes from the middle, a
   * repeated vote (an update reading the votes, refused), and the whole list_votes.
   */
  const afterUpgrade = async (voted: number) => {
    await replica.upgrade(d.ids.governance, d.initArg('governance'), d.controller);
    const from = replica.counts.length;
    const middle = [...members.slice(0, voted)].sort()[Math.floor(voted / 2)]!;
    await replica.query(
      admin,
      d.ids.governance,
      'list_votes_page',
      encodeArgs(METHOD_TABLES.governance, 'list_votes_page', [proposal, middle, 40]),
    );
    const again = await d.as(members[0]!).governance.cast_vote(proposal, 'Yes');
    if (!('Err' in again)) throw new Error('a repeated vote was accepted');
    // list_votes costs ≈ 16–19 million instructions a vote: past LIST_VOTES_MAX it is beyond the query
    // limit (V25: list_votes_page is the way), and metering 200 billion instructions takes minutes.
    const listed =
      voted <= LIST_VOTES_MAX
        ? await replica.query(
            admin,
            d.ids.governance,
            'list_votes',
            encodeArgs(METHOD_TABLES.governance, 'list_votes', [proposal]),
          )
        : undefined;
    const mine = replica.counts.slice(from);
    const of = (method: string) => mine.find((c) => c.method === method)?.instructions;
    return {
      page: of('list_votes_page')!,
      repeatedVote: of('cast_vote')!,
      list: of('list_votes'),
      listVotesBytes: listed && 'reply' in listed ? listed.reply.length : undefined,
    };
  };
  const third = Math.floor(MEMBERS / 3);
  const vote = (i: number) =>
    d
      .as(members[i]!)
      .governance.cast_vote(proposal, i % 2 ? 'No' : 'Yes')
      .then(ok);
  for (let i = 0; i < third; i++) {
    sampled(i);
    progress('votes', i, MEMBERS, filling);
    await vote(i);
  }
  replica.metering = true;
  const small = await afterUpgrade(third);
  for (let i = third; i < MEMBERS; i++) {
    sampled(i);
    progress('votes', i, MEMBERS, filling);
    await vote(i);
  }
  const filled = Date.now() - filling;
  const large = await afterUpgrade(MEMBERS);
  await b.governance.list_proposals({});
  // Closing the vote: the governance timer tallies and burns the vote receipts (ICRC-7) in steps.
  replica.time += 8n * 24n * HOUR;
  const closingFrom = replica.counts.length;
  await replica.tick();
  // The receipts left over are burned by the next steps (G20: each stops past 20 billion); tick a
  // minute at a time until a step does no more heavy work.
  let steps = 1;
  for (let from = replica.counts.length; steps < 60; steps++, from = replica.counts.length) {
    replica.time += 60n * 1_000_000_000n;
    await replica.tick();
    if (!replica.counts.slice(from).some((c) => c.canister === d.ids.governance && c.instructions > 1_000_000_000n))
      break;
  }
  const closingMessages = replica.counts.slice(closingFrom).filter((c) => c.canister === d.ids.governance);
  const closing = closingMessages.reduce((m, c) => (c.instructions > m ? c.instructions : m), 0n);
  const closingTotal = closingMessages.reduce((m, c) => m + c.instructions, 0n);
  const status = (await b.governance.get_proposal(proposal))?.status;

  // Per method (and kind: a callback is named by the call it answers), the median and the largest.
  const groups = new Map<string, InstructionCount[]>();
  for (const c of replica.counts) {
    const canister = Object.entries(d.ids).find(([, id]) => id === c.canister)?.[0] ?? c.canister;
    const key = `${canister} ${c.kind} ${c.method}`;
    groups.set(key, [...(groups.get(key) ?? []), c]);
  }
  const rows = [...groups].map(([key, list]) => {
    const sorted = list.map((c) => c.instructions).sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
    const max = sorted.at(-1)!;
    const limit = limitOf(list[0]!.kind);
    return {
      message: key,
      count: list.length,
      'median (10⁹ instructions)': billions(sorted[Math.floor(sorted.length / 2)]!),
      'largest (10⁹)': billions(max),
      'limit (10⁹)': billions(limit),
      'largest ÷ limit': `${((Number(max) / Number(limit)) * 100).toFixed(2)} %`,
    };
  });
  const fresh = () => deployWasm(options, new WasmReplica({ limits }));
  const survey = COST
    ? await costSurvey(d, replica, {
        admin,
        bridge,
        members,
        votes: MEMBERS,
        file: COST,
        fresh,
        ...(ONLY && { only: ONLY }),
      })
    : undefined;
  const votesSmall = third;
  const extrapolate = (a: bigint, b: bigint) => {
    const per = Number(b - a) / (MEMBERS - votesSmall);
    return { per, at100k: Number(a) + per * (100_000 - votesSmall) };
  };
  const page = extrapolate(small.page, large.page);
  const repeatedVote = extrapolate(small.repeatedVote, large.repeatedVote);
  // list_votes is run only at sizes within LIST_VOTES_MAX; otherwise its cost per vote is taken from the smaller size.
  const listPer =
    small.list === undefined
      ? undefined
      : large.list === undefined
        ? Number(small.list) / votesSmall
        : extrapolate(small.list, large.list).per;
  const bytesPer =
    small.listVotesBytes === undefined
      ? undefined
      : large.listVotesBytes === undefined
        ? small.listVotesBytes / votesSmall
        : (large.listVotesBytes - small.listVotesBytes) / (MEMBERS - votesSmall);
  const notRun = `not run (beyond the query limit at ${MEMBERS} votes)`;
  const sizes = ['governance', 'membership', 'user', 'campaign', 'treasury', 'ledger_embedded'].map((n) => ({
    canister: n,
    '.wasm bytes': statSync(join(root, '.azle', n, `${n}.wasm`)).size,
  }));
  return [
    `## The built canisters on the test replica (${MEMBERS.toLocaleString('en')} Active members, ${MEMBERS.toLocaleString('en')} votes on one proposal; decision W4; ${((Date.now() - started) / 1000).toFixed(0)} s, of which filling the stores ${(filled / 1000).toFixed(0)} s)`,
    '',
    `Metered (counted below): the deployment, the last ${SAMPLE} members and votes (so at ${MEMBERS - SAMPLE}–${MEMBERS} of each), the reads after each upgrade, the upgrades, the closing step and the lists; the rest filled the stores unmetered.`,
    '',
    table(rows),
    '',
    'What grows with the stores (measured at two sizes, extrapolated linearly to 100,000 votes):',
    '',
    table([
      {
        measure:
          'list_votes_page: 40 votes from the middle, the first query after an upgrade (W7: found through the ordered index in stable memory, nothing rebuilt)',
        [`at ${votesSmall} votes`]: `${billions(small.page)} × 10⁹`,
        [`at ${MEMBERS} votes`]: `${billions(large.page)} × 10⁹`,
        'per vote': `${(page.per / 1e6).toFixed(3)} × 10⁶`,
        'at 100,000 votes':
          page.per <= 0
            ? 'flat between the two sizes: the search grows with log n, the page is the cost (query limit 5)'
            : `at most ${(page.at100k / 1e9).toFixed(2)} × 10⁹ (a linear bound on a logarithmic search; query limit 5)`,
      },
      {
        measure: 'a repeated vote (an update reading the votes), the first update after an upgrade',
        [`at ${votesSmall} votes`]: `${billions(small.repeatedVote)} × 10⁹`,
        [`at ${MEMBERS} votes`]: `${billions(large.repeatedVote)} × 10⁹`,
        'per vote': `${(repeatedVote.per / 1e6).toFixed(3)} × 10⁶`,
        'at 100,000 votes': `${(repeatedVote.at100k / 1e9).toFixed(2)} × 10⁹ (update limit 40)`,
      },
      {
        measure: 'list_votes, all votes in one answer (decoding each is the cost)',
        [`at ${votesSmall} votes`]: small.list === undefined ? 'not run' : `${billions(small.list)} × 10⁹`,
        [`at ${MEMBERS} votes`]: large.list === undefined ? notRun : `${billions(large.list)} × 10⁹`,
        'per vote': listPer === undefined ? '' : `${(listPer / 1e6).toFixed(2)} × 10⁶`,
        'at 100,000 votes':
          listPer === undefined
            ? ''
            : `${((listPer * 100_000) / 1e9).toFixed(1)} × 10⁹ (query limit 5: use list_votes_page, V25)`,
      },
      {
        measure: `closing the vote: the timer's steps until the receipts are burned (status ${status})`,
        [`at ${votesSmall} votes`]: '',
        [`at ${MEMBERS} votes`]: `${steps} steps, the largest ${billions(closing)} × 10⁹, ${billions(closingTotal)} × 10⁹ in all`,
        'per vote': `${(Number(closingTotal) / MEMBERS / 1e6).toFixed(2)} × 10⁶`,
        'at 100,000 votes': `≈ ${Math.ceil(((Number(closingTotal) / MEMBERS) * 100_000) / 20e9)} steps of at most ≈ 20 × 10⁹ (G20; update limit 40)`,
      },
      {
        measure: 'list_votes reply',
        [`at ${votesSmall} votes`]: small.listVotesBytes === undefined ? 'not run' : `${small.listVotesBytes} B`,
        [`at ${MEMBERS} votes`]: large.listVotesBytes === undefined ? notRun : `${large.listVotesBytes} B`,
        'per vote': bytesPer === undefined ? '' : `${bytesPer.toFixed(0)} B`,
        'at 100,000 votes':
          bytesPer === undefined ? '' : `${((bytesPer * 100_000) / 2 ** 20).toFixed(1)} MiB (limit 2 MiB)`,
      },
    ]),
    '',
    table(sizes),
    ...(survey ? ['', survey] : []),
  ].join('\n');
}
