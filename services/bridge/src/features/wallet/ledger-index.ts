// The ledger's blocks indexed per account in the bridge's database (decision B76): a follower reads
// the blocks after its cursor with icrc3_get_blocks, a page at a time, and stores each block once and,
// for the account that sent and the account that received, one (account, block) row, with the cursor
// moved in the same transaction. A member's history is then one index range scan, however long the
// ledger's log; a pass costs one ledger query when nothing is new. Several bridge instances may follow
// at once: a page another instance already stored is skipped under the cursor row's lock. Every row
// is the canister set's (decision B103): a block index is a position in one ledger's log, so another
// set's blocks and cursor, in a database that holds them, are never read, extended or shown here.
import { sql } from 'kysely';
import type { CanisterClients } from '@domdao/canisters';
import type { Db } from '../../core/db/index.ts';
import { Poller } from '../../core/events/poller.ts';
import { readBlock, type IndexedBlock } from './blocks.ts';

/** Blocks asked for per call (the embedded ledger answers at most 2 000, decision L5). */
export const LEDGER_PAGE = 500;
/**
 * Pages per pass at most: a pass (and so a request that waits for one) stays bounded while a new index
 * reads a long log; the next pass goes on from the cursor.
 */
export const PAGES_PER_PASS = 20;

export interface LedgerIndexOptions {
  db: Db;
  ledger: Pick<CanisterClients['ledger'], 'icrc3_get_blocks'>;
  /** The canister set the ledger belongs to (decision B103): the index's rows are its own. */
  canisterSet: string;
  /** The ledger canister's id, recorded on the cursor: what the index was read from. */
  ledgerId: string;
  pollMs: number;
  now(): number;
  /** Pages a pass reads at most (default PAGES_PER_PASS). */
  pagesPerPass?: number;
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

  /** One pass (joining the one under way): at most PAGES_PER_PASS pages; returns how many blocks were stored. */
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

  /** How many blocks the index skipped because the ledger had archived them before it read them (IC only). */
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
      .innerJoin('wallet_ledger_blocks as b', (j) => j.onRef('b.canister_set', '=', 'a.canister_set').onRef('b.block_index', '=', 'a.block_index'))
      .select(['b.block_index', 'b.btype', 'b.ts', 'b.from_account', 'b.to_account', 'b.spender_account', 'b.amount_e8s', 'b.fee_e8s', 'b.memo'])
      .where('a.canister_set', '=', this.#o.canisterSet)
      .where('a.account', '=', account)
      .$if(before !== undefined, (q) => q.where('a.block_index', '<', String(before)))
      .orderBy('a.block_index', 'desc')
      .limit(limit)
      .execute();
    return rows.map((r) => ({ ...r, block_index: String(r.block_index), ts: String(r.ts), amount_e8s: String(r.amount_e8s), fee_e8s: String(r.fee_e8s) }));
  }

  /** The block `from` sent with this memo, if the index holds one (a transfer past the ledger's window, decision L41). */
  async findSent(from: string, memo: Uint8Array): Promise<string | undefined> {
    const row = await this.#o.db
      .selectFrom('wallet_account_blocks as a')
      .innerJoin('wallet_ledger_blocks as b', (j) => j.onRef('b.canister_set', '=', 'a.canister_set').onRef('b.block_index', '=', 'a.block_index'))
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
    for (let page = 0; page < (this.#o.pagesPerPass ?? PAGES_PER_PASS) && !this.#poll.closed; page++) {
      const start = await this.indexed();
      const r = await this.#o.ledger.icrc3_get_blocks([{ start, length: BigInt(LEDGER_PAGE) }]);
      this.#tip = r.log_length;
      const blocks = [...r.blocks].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)).filter((b) => b.id >= start);
      // Blocks a ledger on the IC has moved to its archive canisters before this follower read them are
      // not read from there (decision B76): the gap is logged and counted, and the history starts after it.
      const archivedEnd = r.archived_blocks.flatMap((a) => a.args).reduce((end, a) => (a.start + a.length > end ? a.start + a.length : end), start);
      const firstLive = blocks[0]?.id ?? archivedEnd;
      const skipped = firstLive > start && r.archived_blocks.length > 0 ? firstLive - start : 0n;
      if (!blocks.length && !skipped) break;
      if (skipped)
        this.#o.log?.warn(
          { event: 'wallet.ledger_blocks_archived', from: String(start), to: String(firstLive - 1n) },
          'ledger blocks were archived before the wallet index read them; members do not see them in their history',
        );
      const read = blocks.map((b) => readBlock(b.id, b.block)).filter((b): b is IndexedBlock => b !== undefined);
      const next = blocks.length ? blocks[blocks.length - 1]!.id + 1n : firstLive;
      stored += await this.#store(start, next, skipped, read);
      if (next >= r.log_length) break;
    }
    return stored;
  }

  /** Stores one page and moves the cursor from `start` to `next`, unless another instance already did. */
  async #store(start: bigint, next: bigint, skipped: bigint, blocks: IndexedBlock[]): Promise<number> {
    return this.#o.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('wallet_ledger_cursor')
        .values({ canister_set: this.#o.canisterSet, ledger_id: this.#o.ledgerId, id: this.#cursor, next_block: '0', updated_at: new Date(this.#o.now()) })
        .onConflict((oc) => oc.columns(['canister_set', 'id']).doNothing())
        .execute();
      const cursor = await trx
        .selectFrom('wallet_ledger_cursor')
        .select('next_block')
        .where('canister_set', '=', this.#o.canisterSet)
        .where('id', '=', this.#cursor)
        .forUpdate()
        .executeTakeFirstOrThrow();
      if (BigInt(cursor.next_block) !== start) return 0;
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
        .set({ next_block: String(next), skipped_blocks: sql<string>`skipped_blocks + ${String(skipped)}::bigint`, updated_at: new Date(this.#o.now()) })
        .where('canister_set', '=', this.#o.canisterSet)
        .where('id', '=', this.#cursor)
        .execute();
      return blocks.length;
    });
  }
}
