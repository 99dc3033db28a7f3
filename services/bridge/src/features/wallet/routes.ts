// The member's wallet (decisions B75, B76, L41): send DOM to another member, and the history of the
// member's own ledger account. A transfer is checked (amount, recipient, fee, balance: every refusal
// before the record changes nothing), recorded with its outbox row in one transaction, then made by
// the outbox as one deduplicated icrc1_transfer signed as the member (transfers.ts); the client's
// Idempotency-Key makes a retried request answer the first transfer. The history is read from the
// wallet's index of the ledger's blocks (ledger-index.ts), brought up to the ledger's tip first.
import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { sql } from 'kysely';
import { isPrincipalText, type BlocksCallbackQuery, type CanisterClients } from '@domdao/canisters';
import type { Session } from '../../core/auth/sessions.ts';
import type { Db } from '../../core/db/schema.ts';
import { isUniqueViolation } from '../../core/db/errors.ts';
import { HttpError } from '../../core/http/errors.ts';
import type { BridgeApp } from '../../core/http/typed.ts';
import type { DisplayNames } from '../../core/identity/display-names.ts';
import type { Outbox } from '../../core/outbox/queue.ts';
import { LedgerIndex } from './ledger-index.ts';
import { listMyTransactionsSchema, MAX_TRANSFER_E8S, sendDomSchema } from './route-docs.ts';
import {
  OP_TRANSFER,
  REFUSAL_STATUS,
  registerTransferOperation,
  transferMemo,
  transferOpId,
  type TransferAnswer,
  type TransferPayload,
} from './transfers.ts';
import { counterpartyOwners, historyItem, transferView, type KnownCanisters, type TransferRow } from './views.ts';
import { serialByKey } from '../../core/serial.ts';

export interface WalletOptions {
  db: Db;
  outbox: Outbox;
  /** Cross-site rule, bearer-defect rule, then the member's session. */
  requireSession(req: FastifyRequest): Promise<Session>;
  /** The member's own ledger client (calls carry the member's principal). */
  ledgerAs(member: { user_id: string; principal: string }): Promise<Pick<CanisterClients['ledger'], 'icrc1_transfer'>>;
  /** The bridge's own ledger client, for reads. */
  ledger: Pick<CanisterClients['ledger'], 'icrc1_fee' | 'icrc1_balance_of' | 'icrc3_get_blocks'>;
  /** What the index of the ledger's blocks is bound to (decision B103): the canister set and its ledger. */
  index: { canisterSet: string; ledgerId: string };
  /** The archives' callbacks the ledger names, called as the bridge (decision B104). */
  blocksCallback: BlocksCallbackQuery;
  known: KnownCanisters;
  names: DisplayNames;
  /** The display name of the verified member with this principal; undefined for anyone else. */
  recipient(principal: string): Promise<string | undefined>;
  now(): number;
  /** How often the ledger follower reads new blocks in the background (ms). */
  followMs: number;
  onIndexPass?: () => void;
}

/** The member's pending transfers a history page shows. */
const PENDING_SHOWN = 20;

const requestHash = (b: { to: string; amount_e8s: string; fee_e8s?: string | undefined }) =>
  createHash('sha256')
    .update(JSON.stringify([b.to, b.amount_e8s, b.fee_e8s ?? null]))
    .digest('hex');

export default async function wallet(app: BridgeApp, opts: WalletOptions): Promise<void> {
  const { db } = opts;
  const index = new LedgerIndex({
    db,
    ledger: opts.ledger,
    ...opts.index,
    blocksCallback: opts.blocksCallback,
    pollMs: opts.followMs,
    now: opts.now,
    log: app.log,
    onPass: opts.onIndexPass,
  });
  app.addHook('onReady', async () => index.start());
  app.addHook('onClose', async () => index.close());
  registerTransferOperation({ outbox: opts.outbox, index, ledgerAs: opts.ledgerAs, now: opts.now });

  /** A read of the ledger before anything is written: a failure changes nothing and says so. */
  const ledgerRead = async <T>(read: () => Promise<T>): Promise<T> => {
    try {
      return await read();
    } catch (e) {
      app.log.warn(
        { event: 'wallet.ledger_unavailable', err: e instanceof Error ? e.message : String(e) },
        'the ledger did not answer',
      );
      throw new HttpError(
        503,
        'LEDGER_UNAVAILABLE',
        'the DOM ledger could not be reached; nothing was sent; try again',
        { 'retry-after': '5' },
      );
    }
  };

  // A member's operations one at a time on this instance (decision L25).
  const perMember = serialByKey();

  const byKey = (userId: string, key: string) =>
    db
      .selectFrom('wallet_transfers')
      .selectAll()
      .where('user_id', '=', userId)
      .where('idempotency_key', '=', key)
      .executeTakeFirst();
  type Row = NonNullable<Awaited<ReturnType<typeof byKey>>>;

  /** What the member's pending transfers will take (amount + fee each): not spendable again meanwhile. */
  const pendingTotal = async (principal: string): Promise<bigint> => {
    const r = await db
      .selectFrom('wallet_transfers')
      .select(sql<string>`coalesce(sum(amount_e8s + fee_e8s), 0)::text`.as('total'))
      .where('from_principal', '=', principal)
      .where('state', '=', 'pending')
      .executeTakeFirstOrThrow();
    return BigInt(r.total);
  };

  /** The transfer's answer: 201 done, 202 pending, or its recorded refusal. */
  const answer = async (reply: FastifyReply, row: Row, replayed: boolean) => {
    if (replayed) reply.header('idempotent-replayed', 'true');
    if (row.state === 'failed')
      throw HttpError.passThrough(
        REFUSAL_STATUS[row.error_code ?? ''] ?? 502,
        row.error_code ?? 'LedgerError',
        row.error_message ?? 'refused',
      );
    const names = await opts.names([row.to_principal]);
    return reply.code(row.state === 'done' ? 201 : 202).send(transferView(row, names));
  };

  /** Runs the transfer's outbox row now; after a ledger answer the index reads the new block, so the sender's history shows it. */
  const run = async (id: string): Promise<Row> => {
    const out = await opts.outbox.run<TransferAnswer>(transferOpId(id));
    if (out.state === 'done' && 'Ok' in out.result)
      await index
        .catchUp()
        .catch((e: unknown) =>
          app.log.warn(
            { event: 'wallet.ledger_follow_failed', err: e instanceof Error ? e.message : String(e) },
            'the index will read the block later',
          ),
        );
    return db.selectFrom('wallet_transfers').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  };

  app.post(
    '/api/me/transfers',
    {
      bodyLimit: 4096,
      schema: sendDomSchema,
    },
    async (req, reply) => {
      const s = await opts.requireSession(req);
      const key = req.headers['idempotency-key'];
      const b = req.body;
      const hash = requestHash(b);
      return perMember(s.principal, async () => {
        const existing = await byKey(s.user_id, key);
        if (existing) {
          if (existing.request_hash !== hash)
            throw new HttpError(
              422,
              'IDEMPOTENCY_KEY_REUSED',
              'this Idempotency-Key was already used with another transfer',
            );
          return answer(reply, existing.state === 'pending' ? await run(existing.id) : existing, true);
        }
        const amount = BigInt(b.amount_e8s);
        if (amount < 1n) throw new HttpError(400, 'VALIDATION_ERROR', 'amount_e8s: at least 1 e8s');
        if (amount > MAX_TRANSFER_E8S)
          throw new HttpError(400, 'VALIDATION_ERROR', `amount_e8s: at most ${MAX_TRANSFER_E8S} e8s`);
        if (!isPrincipalText(b.to)) throw new HttpError(400, 'VALIDATION_ERROR', 'to: not a principal');
        if (b.to === s.principal) throw new HttpError(400, 'SELF_TRANSFER', 'you cannot send DOM to yourself');
        if ((await opts.recipient(b.to)) === undefined)
          throw new HttpError(404, 'RECIPIENT_NOT_FOUND', 'no member has this account');
        const fee = await ledgerRead(() => opts.ledger.icrc1_fee());
        if (b.fee_e8s !== undefined && BigInt(b.fee_e8s) !== fee)
          throw new HttpError(409, 'BadFee', `the ledger's fee is ${fee} e8s, not ${b.fee_e8s}; nothing was sent`);
        const balance = await ledgerRead(() => opts.ledger.icrc1_balance_of({ owner: s.principal }));
        const pending = await pendingTotal(s.principal);
        const required = amount + fee;
        if (required + pending > balance)
          throw new HttpError(
            409,
            'InsufficientFunds',
            `not enough DOM in your account (amount plus the ledger fee) {"balance":"${balance}","pending":"${pending}","required":"${required}"}`,
          );
        // Decision L41: the record and its outbox row first, in one transaction; the ledger call after the commit.
        let id: string;
        try {
          id = await db.transaction().execute(async (trx) => {
            const { rows } = await sql<{
              id: string;
            }>`select nextval(pg_get_serial_sequence('wallet_transfers', 'id'))::text as id`.execute(trx);
            const next = rows[0]!.id;
            const createdAt = new Date(opts.now());
            await trx
              .insertInto('wallet_transfers')
              .values({
                id: next,
                user_id: s.user_id,
                idempotency_key: key,
                request_hash: hash,
                from_principal: s.principal,
                to_principal: b.to,
                amount_e8s: String(amount),
                fee_e8s: String(fee),
                memo: transferMemo(next),
                created_at_time: String(BigInt(createdAt.getTime()) * 1_000_000n),
                created_at: createdAt,
                updated_at: createdAt,
              })
              .execute();
            const payload: TransferPayload = {
              transfer_id: next,
              user_id: s.user_id,
              from: s.principal,
              to: b.to,
              amount_e8s: String(amount),
              fee_e8s: String(fee),
              created_at_time: String(BigInt(createdAt.getTime()) * 1_000_000n),
            };
            await opts.outbox.enqueue(trx, {
              operation: OP_TRANSFER,
              opId: transferOpId(next),
              aggregate: transferOpId(next),
              payload,
            });
            return next;
          });
        } catch (e) {
          // The same key from another bridge instance at the same moment: answer its transfer.
          if (!isUniqueViolation(e)) throw e;
          const first = await byKey(s.user_id, key);
          if (!first || first.request_hash !== hash)
            throw new HttpError(
              422,
              'IDEMPOTENCY_KEY_REUSED',
              'this Idempotency-Key was already used with another transfer',
            );
          return answer(reply, first, true);
        }
        const row = await run(id);
        req.log.info(
          {
            event: 'wallet.transfer',
            user_id: s.user_id,
            transfer_id: id,
            state: row.state,
            amount_e8s: String(amount),
          },
          'DOM transfer',
        );
        return answer(reply, row, false);
      });
    },
  );

  app.get(
    '/api/me/transactions',
    {
      schema: listMyTransactionsSchema,
    },
    async (req, reply) => {
      const s = await opts.requireSession(req);
      const limit = req.query.limit ?? 20;
      const caughtUp = await index.catchUp().catch((e: unknown) => {
        req.log.warn(
          { event: 'wallet.ledger_follow_failed', err: e instanceof Error ? e.message : String(e) },
          'history answered from the index as it was',
        );
        return false;
      });
      // ICRC-1 textual account of the member's default subaccount: the principal itself.
      const account = s.principal;
      const rows = await index.history(
        account,
        req.query.before === undefined ? undefined : BigInt(req.query.before),
        limit + 1,
      );
      const page = rows.slice(0, limit);
      const pending = await db
        .selectFrom('wallet_transfers')
        .selectAll()
        .where('from_principal', '=', s.principal)
        .where('state', '=', 'pending')
        .orderBy('id', 'desc')
        .limit(PENDING_SHOWN)
        .execute();
      const names = await opts.names([...counterpartyOwners(account, page), ...pending.map((p) => p.to_principal)]);
      reply.header('cache-control', 'private, no-store');
      return {
        items: page.map((b) => historyItem(account, b, opts.known, names)),
        next_before: rows.length > limit ? page[page.length - 1]!.block_index : null,
        pending: pending.map((p) => ({ ...transferView(p as TransferRow, names), state: 'pending' as const })),
        indexed_blocks: String(await index.indexed()),
        caught_up: caughtUp,
      };
    },
  );
}
