// The canister benchmark's measuring process (started with --expose-gc by bench/canisters.ts):
// one proposal with 100,000 Active members and 100,000 votes on the embedded host, memory per
// 10,000 proposals, and restart time from the durable state. Prints one JSON line.
import { mkdtempSync, readFileSync, rmSync, statSync, readdirSync, writeFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { deserialize } from 'node:v8';
import { encode } from '../packages/canister-kit/src/codec.ts';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedPlatform } from '../platform/canisters/src/embedded/index.ts';
import { principalFromSeed } from '../platform/canisters/src/principals.ts';
import { makeMember, ok } from './members.ts';

const MEMBERS = Number(process.env.BENCH_MEMBERS ?? 100_000);
const PROPOSALS = Number(process.env.BENCH_PROPOSALS ?? 10_000);
const HOUR = 3_600_000_000_000n;
const DAY = 24n * HOUR;
const gc = (globalThis as { gc?: () => void }).gc ?? (() => undefined);
const heapMiB = () => {
  gc();
  gc();
  return process.memoryUsage().heapUsed / 2 ** 20;
};
const ms = (t0: bigint) => Number(process.hrtime.bigint() - t0) / 1e6;
/**
 * A restart is a new process: nothing of the closed platform is left on its heap. Here the closed
 * platform is dropped and collected before the timer starts, or its ~1 GiB would be live (and
 * collected) during the timed open. Returns the timer's start.
 */
const afterClose = async (): Promise<bigint> => {
  platform = undefined as never;
  gc();
  gc();
  return process.hrtime.bigint();
};

const dir = mkdtempSync(join(tmpdir(), 'domdao-bench-canisters-'));
let now = BigInt(Date.parse('2026-03-10T12:00:00Z')) * 1_000_000n;
const admin = principalFromSeed('admin');
const bridge = principalFromSeed('bridge');
const open = () =>
  EmbeddedPlatform.open({ dir, clock: () => now, scheduler: false, admins: [admin], registrars: [bridge] });
let platform = await open();
// Clients are taken from the platform in force each time, so a closed one is garbage before a restart is timed.
const b = {
  get user() {
    return platform.as(bridge).user;
  },
};
const members = Array.from({ length: MEMBERS }, (_, i) => principalFromSeed(`member-${i}`));

// Members made the real way: account, verification (mint), KYC, payment (upgrade).
let t0 = process.hrtime.bigint();
const CHUNK = 1000;
for (let i = 0; i < MEMBERS; i += CHUNK) {
  await Promise.all(
    members.slice(i, i + CHUNK).map(async (principal) => {
      await makeMember(b.user, principal, now);
    }),
  );
}
const setupMs = ms(t0);

const proposal = ok(
  await platform
    .as(admin)
    .governance.create_proposal({ title: 'Bench', body: 'One vote per member', category: 'General' }),
);
now += HOUR;
// Half yes, a quarter no, a quarter abstaining: quorum and threshold met, so the proposal is Approved and executed.
const votes = ['Yes', 'Yes', 'No', 'Abstain'] as const;
t0 = process.hrtime.bigint();
for (let i = 0; i < MEMBERS; i += CHUNK) {
  await Promise.all(
    members.slice(i, i + CHUNK).map((m, j) =>
      platform
        .as(m)
        .governance.cast_vote(proposal, votes[(i + j) % 4]!)
        .then(ok),
    ),
  );
}
const voteMs = ms(t0);
t0 = process.hrtime.bigint();
const live = (await platform.as(admin).governance.get_tally(proposal))!;
const liveTallyMs = ms(t0);
if (live.yes_votes + live.no_votes + live.abstentions !== BigInt(MEMBERS) || live.total_eligible !== BigInt(MEMBERS))
  throw new Error('tally mismatch');
const heapWithVotes = heapMiB();

// Restart with the members and votes on disk (the last snapshot and the log after it), then after compaction
// (snapshot).
const LOGS = /^wal(\.\d+)?\.jsonl$/;
const logBytes = () =>
  readdirSync(dir)
    .filter((f) => LOGS.test(f))
    .reduce((n, f) => n + statSync(join(dir, f)).size, 0);
const walBytes = logBytes();
platform.close();
t0 = await afterClose();
platform = await open();
const restartWalMs = ms(t0);
if ((await platform.as(admin).governance.get_tally(proposal))!.yes_votes !== live.yes_votes)
  throw new Error('restart lost votes');
// The first compaction after that restart: most stores not used yet, so it copies their snapshot frames
// and log parts (decisions P5, P10) without building them.
const compactionAfterRestart = await compactionWith(idleWhile);
const snapshotBytes = readdirSync(dir)
  .filter((f) => f.startsWith('snapshot'))
  .reduce((n, f) => n + statSync(join(dir, f)).size, 0);
platform.close();
t0 = await afterClose();
platform = await open();
const restartSnapshotMs = ms(t0);
// Decision P6: a store's index is built on its first use, so the first reads of the big stores pay it.
t0 = process.hrtime.bigint();
if ((await platform.as(members[0]!).governance.get_my_vote(proposal)) === undefined) throw new Error('vote lost');
if ((await platform.as(admin).membership.get_membership_status(members[0]!))?.status !== 'Active')
  throw new Error('membership lost');
const firstReadsMs = ms(t0);
platform.close();
// Yardstick in the same run: reading the state's files from disk, without decoding them.
t0 = process.hrtime.bigint();
let readBytes = 0;
for (const f of readdirSync(dir))
  if (f.startsWith('snapshot') || f === 'wal.jsonl') readBytes += readFileSync(join(dir, f)).length;
const readFilesMs = ms(t0);
// Before decision P2, the same state as a version 1 JSON snapshot (JSON.parse with a reviver).
const binary = readFileSync(join(dir, 'snapshot.bin'));
// Version 3 frames (uint32 BE length, uint32 BE CRC-32, v8.serialize): {seq}, then name and entries per slice, {end}.
const state = { seq: 0, stores: new Map<string, unknown[]>() };
let pendingName: string | undefined;
for (let at = 20; at < binary.length;) {
  const length = binary.readUInt32BE(at);
  const value = deserialize(binary.subarray(at + 8, at + 8 + length)) as unknown;
  at += 8 + length;
  if (typeof value === 'string') pendingName = value;
  else if (Array.isArray(value) && pendingName !== undefined) {
    const list = state.stores.get(pendingName) ?? [];
    for (const e of value) list.push(e);
    state.stores.set(pendingName, list);
    pendingName = undefined;
  } else if ((value as { seq?: number }).seq !== undefined) state.seq = (value as { seq: number }).seq;
}
writeFileSync(
  join(dir, 'snapshot.json'),
  encode({ version: 1, seq: state.seq, stores: Object.fromEntries(state.stores) }),
  { mode: 0o600 },
);
rmSync(join(dir, 'snapshot.bin'));
t0 = await afterClose();
platform = await open();
const restartJsonMs = ms(t0);
if ((await platform.as(admin).governance.get_tally(proposal))!.yes_votes !== live.yes_votes)
  throw new Error('restart from JSON lost votes');
platform.close();
writeFileSync(join(dir, 'snapshot.bin'), binary, { mode: 0o600 });
rmSync(join(dir, 'snapshot.json'));
platform = await open();

// Closing the vote: Open → Tallied → Approved → Executed, then burning 100,000 receipts in scheduler steps.
now += 7n * DAY;
t0 = process.hrtime.bigint();
await platform.tick();
const closeMs = ms(t0);
let ticks = 1;
t0 = process.hrtime.bigint();
while ((await platform.as(admin).governance.icrc7_total_supply()) > 0n) {
  await platform.tick();
  ticks++;
}
const burnMs = ms(t0);
const status = (await platform.as(admin).governance.get_proposal(proposal))!.status;

// Memory per 10,000 proposals (heap growth, after GC), each figure with no compaction under way: one
// holds a copy-on-write clone of the state and the slice it is writing (decision P5).
const settledHeapMiB = async () => {
  await platform.host.compact();
  return heapMiB();
};
const before = await settledHeapMiB();
const g = {
  create_proposal: (...a: Parameters<ReturnType<typeof platform.as>['governance']['create_proposal']>) =>
    platform.as(admin).governance.create_proposal(...a),
};
t0 = process.hrtime.bigint();
for (let i = 0; i < PROPOSALS; i += CHUNK) {
  await Promise.all(
    Array.from({ length: Math.min(CHUNK, PROPOSALS - i) }, (_, j) =>
      g
        .create_proposal({
          title: `Proposal ${i + j}`,
          body: 'A typical proposal body of a few hundred characters. '.repeat(6),
          category: 'General',
        })
        .then(ok),
    ),
  );
}
const createMs = ms(t0);
const perProposals = (await settledHeapMiB()) - before;

// Decision P5: a compaction of the whole state, alone and beside incoming votes:
// its duration and the longest the event loop was blocked meanwhile.
async function compactionWith(load: (compacting: () => boolean) => Promise<number>) {
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  const start = process.hrtime.bigint();
  let compacting = true;
  const done = platform.host.compact().then(() => {
    compacting = false;
    return ms(start);
  });
  const calls = await load(() => compacting);
  const durationMs = await done;
  loop.disable();
  return { durationMs, calls, maxBlockMs: loop.max / 1e6 };
}
async function idleWhile(compacting: () => boolean): Promise<number> {
  while (compacting()) await new Promise((r) => setTimeout(r, 1));
  return 0;
}
const compactionAlone = await compactionWith(idleWhile);
const extra = await g
  .create_proposal({ title: 'During compaction', body: 'Votes while the snapshot is written', category: 'General' })
  .then(ok);
now += HOUR;
const compactionWithVotes = await compactionWith(async (compacting) => {
  let n = 0;
  for (let i = 0; compacting() && i < MEMBERS; i += 100) {
    await Promise.all(members.slice(i, i + 100).map((m) => platform.as(m).governance.cast_vote(extra, 'Yes').then(ok)));
    n += 100;
  }
  return n;
});

// Decision P8: a restart after a crash at the bound. A crash in the middle of a
// compaction leaves the most to replay: the old snapshot, the closed log (the compaction size) and what
// was logged while the new snapshot was being written, at most the compaction size before new updates
// wait for it (decision P11). Votes on a new proposal until a compaction starts, then beside it until
// updates would be held, then the host is closed without letting the compaction finish (what a crash
// leaves, less the temp file, removed at open).
const boundProposal = await g
  .create_proposal({ title: 'Crash bound', body: 'Votes up to a compaction', category: 'General' })
  .then(ok);
now += HOUR;
const closedLog = () => readdirSync(dir).some((f) => /^wal\.\d+\.jsonl$/.test(f));
let voter = 0;
// 1,000 in flight, as in the burst above: beside a compaction they reach the stall (P11), the bound.
const vote1000 = async () => {
  await Promise.all(
    members.slice(voter, voter + 1000).map((m) => platform.as(m).governance.cast_vote(boundProposal, 'Yes').then(ok)),
  );
  voter += 1000;
};
while (!closedLog() && voter < MEMBERS) await vote1000();
const compactionStartedAt = voter;
while (closedLog() && !platform.host.stalling && voter < MEMBERS) await vote1000();
const midCompaction = closedLog();
platform.close();
const boundLogMiB = logBytes() / 2 ** 20;
t0 = process.hrtime.bigint();
let boundReadBytes = 0;
for (const f of readdirSync(dir))
  if (f === 'snapshot.bin' || LOGS.test(f)) boundReadBytes += readFileSync(join(dir, f)).length;
const boundReadMs = ms(t0);
t0 = await afterClose();
platform = await open();
const restartBoundMs = ms(t0);
if ((await platform.as(members[0]!).governance.get_my_vote(boundProposal)) !== 'Yes')
  throw new Error('crash-bound restart lost a vote');
platform.close();
rmSync(dir, { recursive: true, force: true });

console.log(
  JSON.stringify({
    members: MEMBERS,
    setupMs,
    votesPerSecond: MEMBERS / (voteMs / 1000),
    voteMs,
    liveTallyMs,
    closeMs,
    status,
    burnMs,
    ticks,
    heapWithVotesMiB: heapWithVotes,
    walMiB: walBytes / 2 ** 20,
    snapshotMiB: snapshotBytes / 2 ** 20,
    restartWalMs,
    restartSnapshotMs,
    firstReadsMs,
    compactionAlone,
    compactionWithVotes,
    compactionAfterRestart,
    readFilesMs,
    readMiB: readBytes / 2 ** 20,
    restartJsonMs,
    crashBound: {
      votesBeforeCompaction: compactionStartedAt,
      votes: voter,
      midCompaction,
      logMiB: boundLogMiB,
      readMiB: boundReadBytes / 2 ** 20,
      readMs: boundReadMs,
      restartMs: restartBoundMs,
    },
    proposals: PROPOSALS,
    proposalsPerSecond: PROPOSALS / (createMs / 1000),
    heapPer10kProposalsMiB: (perProposals * 10_000) / PROPOSALS,
  }),
);
