// The ledger's blocks indexed per account in the bridge's database (decisions B76, B104): a follower
// reads the blocks after its cursor with icrc3_get_blocks, a page at a time, and stores each block once
// and, for the account that sent and the account that received, one (account, block) row, with the
// cursor moved in the same transaction. A page may be short (DFINITY's ledger and ours answer at most
// 100 blocks): the next call asks from where it got to. Blocks the ledger has handed to an archive come
// from the `archived_blocks` callback it names, whose pages may be short too. A member's history is then
// one index range scan, however long the ledger's log; a pass costs one ledger query when nothing is
// new. Several bridge instances may follow at once: a page another instance already stored is skipped
// under the cursor row's lock. Every row is the canister set's (decision B103): a block index is a
// position in one ledger's log, so another set's blocks and cursor, in a database that holds them, are
// never read, extended or shown here.
import { sql } from 'kysely';
import type { BlocksCallback, BlocksCallbackQuery, CanisterClients } from '@domdao/canisters';
import type { Db } from '../../core/db/schema.ts';
import { Poller } from '../../core/events/poller.ts';
import { readBlock, type IndexedBlock } from './blocks.ts';

/** Blocks asked for per call: what DFINITY's ledger and ours answer at most (decision L42); fewer may come. */
export const LEDGER_PAGE = 100;
/**
 * Calls (to the ledger or an archive) per pass at most, about 10 000 blocks: a pass (and so a request
 * that waits for one) stays bounded while a new index reads a long log; the next pass goes on from the cursor.
 */
export const CALLS_PER_PASS = 100;

export interface LedgerIndexOptions {
  db: Db;
  ledger: Pick<CanisterClients['ledger'], 'icrc3_get_blocks'>;
  /** The canister set the ledger belongs to (decision B103): the index's rows are its own. */
  canisterSet: string;
  /** The ledger canister's id, recorded on the cursor: what the index was read from. */
  ledgerId: string;
  /** Calls an archive's callback (decision B104). */
  blocksCallback: BlocksCallbackQuery;
  pollMs: number;
  now(): number;
  /** Calls a pass makes at most (default CALLS_PER_PASS). */
  callsPerPass?: number;
  /** The cursor row's name (default `ledger`): one per index kept in the database. */
  cursor?: string;
  log?: { warn(obj: object, msg: string): void };
  /** Told of each successful pass (the followers' lag, decision B69). */
  onPass?: () => void;
}

/** A stored block, as a history query reads it. */
export interface StoredBlock {
  block_index: string;
  btype: string;
  ts: string;
  from_account: string | null;
  to_account: string | null;
  spender_account: string | null;
  amount_e8s: string;
  fee_e8s: string;
  memo: Uint8Array | null;
}

export class LedgerIndex {
  readonly #o: LedgerIndexOptions;
  readonly #poll: Poller;
  readonly #cursor: string;
  /** The ledger's log length at the last read. */
  #tip = 0n;

  constructor(o: LedgerIndexOptions) {
    this.#o = o;
    this.#cursor = o.cursor ?? 'ledger';
    this.#poll = new Poller({
      pass: () => this.#pass(),
      pollMs: o.pollMs,
      // The index publishes no event: nothing to kick.
      events: { kick: () => undefined },
      log: o.log,
      onPass: o.onPass,
      failure: { event: 'wallet.ledger_follow_failed', message: 'reading the ledger blocks failed; retrying' },
    });
  }

  /** One pass (joining the one under way): at most CALLS_PER_PASS calls; returns how many blocks were stored. */
  follow(): Promise<number> {
    return this.#poll.run();
  }

  /**
   * Brings the index to the ledger's tip: the pass under way (which may have read the log before the
   * call) is joined, then one more runs. True when the index then holds every block the ledger had when
   * this was called; false when the passes' page bound stopped it short (a new index reading a long log).
   */
  async catchUp(): Promise<boolean> {
    await this.#poll.catchUp();
    return (await this.indexed()) >= this.#tip;
  }

  /** How many blocks of the log the index has read (the next block it will read). */
  async indexed(): Promise<bigint> {
    const row = await this.#o.db
      .selectFrom('wallet_ledger_cursor')
      .select('next_block')
      .where('canister_set', '=', this.#o.canisterSet)
      .where('id', '=', this.#cursor)
      .executeTakeFirst();
    return BigInt(row?.next_block ?? 0);
  }

  /** How many blocks the index skipped because the ledger answered neither them nor an archive holding them (decision B104). */
  async skipped(): Promise<bigint> {
    const row = await this.#o.db
      .selectFrom('wallet_ledger_cursor')
      .select('skipped_blocks')
      .where('canister_set', '=', this.#o.canisterSet)
      .where('id', '=', this.#cursor)
      .executeTakeFirst();
    return BigInt(row?.skipped_blocks ?? 0);
  }

  /** The account's blocks below `before` (all when absent), newest first; `limit` + 1 are read to tell whether more follow. */
  async history(account: string, before: bigint | undefined, limit: number): Promise<StoredBlock[]> {
    const rows = await this.#o.db
      .selectFrom('wallet_account_blocks as a')
      .innerJoin('wallet_ledger_blocks as b', (j) =>
        j.onRef('b.canister_set', '=', 'a.canister_set').onRef('b.block_index', '=', 'a.block_index'),
      )
      .select([
        'b.block_index',
        'b.btype',
        'b.ts',
        'b.from_account',
        'b.to_account',
        'b.spender_account',
        'b.amount_e8s',
        'b.fee_e8s',
        'b.memo',
      ])
      .where('a.canister_set', '=', this.#o.canisterSet)
      .where('a.account', '=', account)
      .$if(before !== undefined, (q) => q.where('a.block_index', '<', String(before)))
      .orderBy('a.block_index', 'desc')
      .limit(limit)
      .execute();
    return rows.map((r) => ({
      ...r,
      block_index: String(r.block_index),
      ts: String(r.ts),
      amount_e8s: String(r.amount_e8s),
      fee_e8s: String(r.fee_e8s),
    }));
  }

  /** The block `from` sent with this memo, if the index holds one (a transfer past the ledger's window, decision L41). */
  async findSent(from: string, memo: Uint8Array): Promise<string | undefined> {
    const row = await this.#o.db
      .selectFrom('wallet_account_blocks as a')
      .innerJoin('wallet_ledger_blocks as b', (j) =>
        j.onRef('b.canister_set', '=', 'a.canister_set').onRef('b.block_index', '=', 'a.block_index'),
      )
      .select('b.block_index')
      .where('a.canister_set', '=', this.#o.canisterSet)
      .where('a.account', '=', from)
      .where('b.from_account', '=', from)
      .where('b.memo', '=', memo)
      .orderBy('b.block_index')
      .executeTakeFirst();
    return row ? String(row.block_index) : undefined;
  }

  start(): void {
    this.#poll.start();
  }

  close(): Promise<void> {
    return this.#poll.close();
  }

  async #pass(): Promise<number> {
    let stored = 0;
    let calls = 0;
    const budget = this.#o.callsPerPass ?? CALLS_PER_PASS;
    while (calls < budget && !this.#poll.closed) {
      const start = await this.indexed();
      const r = await this.#o.ledger.icrc3_get_blocks([{ start, length: BigInt(LEDGER_PAGE) }]);
      calls++;
      this.#tip = r.log_length;
      if (start >= r.log_length) break;
      const archive = archiveHolding(r.archived_blocks, start);
      if (archive) {
        // The archive's blocks, a page at a time from where the index got to, to the end of its range.
        for (let at = start; at < archive.end && calls < budget && !this.#poll.closed;) {
          const length = archive.end - at < BigInt(LEDGER_PAGE) ? archive.end - at : BigInt(LEDGER_PAGE);
          const page = await this.#o.blocksCallback(archive.callback, [{ start: at, length }]);
          calls++;
          const run = runFrom(page.blocks, at);
          // Not skipped: the pass fails (logged, retried), so no member's history silently misses blocks.
          if (!run.length)
            throw new Error(
              `the archive ${archive.callback[0]} (${archive.callback[1]}) did not answer ledger block ${at}`,
            );
          const done = await this.#store(at, at + BigInt(run.length), 0n, run);
          if (done === undefined) break; // another instance moved the cursor: ask the ledger again from there
          stored += done;
          at += BigInt(run.length);
        }
        continue;
      }
      const run = runFrom(r.blocks, start);
      if (run.length) {
        const next = start + BigInt(run.length);
        stored += (await this.#store(start, next, 0n, run)) ?? 0;
        if (next >= r.log_length) break;
        continue;
      }
      // Neither the block nor an archive holding it: a ledger that let blocks go without an archive
      // (decision B76). The gap is logged and counted, and the index goes on from the next block it has.
      const after = [
        ...r.blocks.map((b) => b.id),
        ...r.archived_blocks.flatMap((a) => a.args.map((g) => g.start)),
      ].filter((i) => i > start);
      if (!after.length) break;
      const firstLive = after.reduce((a, b) => (a < b ? a : b));
      this.#o.log?.warn(
        { event: 'wallet.ledger_blocks_archived', from: String(start), to: String(firstLive - 1n) },
        'the ledger answered neither these blocks nor an archive holding them; members do not see them in their history',
      );
      await this.#store(start, firstLive, firstLive - start, []);
    }
    return stored;
  }

  /**
   * Stores a run of blocks (read from `start` on, each id the one before + 1) and moves the cursor from
   * `start` to `next`; the blocks stored, or undefined when another instance had moved the cursor.
   */
  async #store(
    start: bigint,
    next: bigint,
    skipped: bigint,
    run: Array<{ id: bigint; block: unknown }>,
  ): Promise<number | undefined> {
    const blocks = run.map((b) => readBlock(b.id, b.block)).filter((b): b is IndexedBlock => b !== undefined);
    return this.#o.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('wallet_ledger_cursor')
        .values({
          canister_set: this.#o.canisterSet,
          ledger_id: this.#o.ledgerId,
          id: this.#cursor,
          next_block: '0',
          updated_at: new Date(this.#o.now()),
        })
        .onConflict((oc) => oc.columns(['canister_set', 'id']).doNothing())
        .execute();
      const cursor = await trx
        .selectFrom('wallet_ledger_cursor')
        .select('next_block')
        .where('canister_set', '=', this.#o.canisterSet)
        .where('id', '=', this.#cursor)
        .forUpdate()
        .executeTakeFirstOrThrow();
      if (BigInt(cursor.next_block) !== start) return undefined;
      if (blocks.length) {
        await trx
          .insertInto('wallet_ledger_blocks')
          .values(
            blocks.map((b) => ({
              canister_set: this.#o.canisterSet,
              block_index: String(b.index),
              btype: b.btype,
              ts: String(b.ts),
              from_account: b.from?.text ?? null,
              to_account: b.to?.text ?? null,
              spender_account: b.spender?.text ?? null,
              amount_e8s: String(b.amount),
              fee_e8s: String(b.fee),
              memo: b.memo ?? null,
            })),
          )
          .onConflict((oc) => oc.columns(['canister_set', 'block_index']).doNothing())
          .execute();
        const accounts = blocks.flatMap((b) =>
          [...new Set([b.from?.text, b.to?.text].filter((a): a is string => a !== undefined))].map((account) => ({
            canister_set: this.#o.canisterSet,
            account,
            block_index: String(b.index),
          })),
        );
        if (accounts.length)
          await trx
            .insertInto('wallet_account_blocks')
            .values(accounts)
            .onConflict((oc) => oc.columns(['canister_set', 'account', 'block_index']).doNothing())
            .execute();
      }
      await trx
        .updateTable('wallet_ledger_cursor')
        .set({
          next_block: String(next),
          skipped_blocks: sql<string>`skipped_blocks + ${String(skipped)}::bigint`,
          updated_at: new Date(this.#o.now()),
        })
        .where('canister_set', '=', this.#o.canisterSet)
        .where('id', '=', this.#cursor)
        .execute();
      return blocks.length;
    });
  }
}

/** The blocks of a page that follow on from `start` without a gap, in order (a page may hold others, or be short). */
function runFrom<B extends { id: bigint }>(blocks: B[], start: bigint): B[] {
  const byId = new Map(blocks.map((b) => [b.id, b]));
  const run: B[] = [];
  for (let id = start; byId.has(id); id++) run.push(byId.get(id)!);
  return run;
}

/** The archived range that holds block `start`, with its callback: ICRC-3 groups ranges by callback. */
function archiveHolding(
  archived: Array<{ args: Array<{ start: bigint; length: bigint }>; callback: BlocksCallback }>,
  start: bigint,
) {
  for (const a of archived)
    for (const range of a.args)
      if (range.start <= start && start < range.start + range.length)
        return { callback: a.callback, end: range.start + range.length };
  return undefined;
}
