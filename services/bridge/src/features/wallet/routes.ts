// The member's wallet (decisions B75, B76, L41): send DOM to another member, and the history of the
// member's own ledger account. A transfer is checked (amount, recipient, fee, balance: every refusal
// before the record changes nothing), recorded with its outbox row in one transaction, then made by
// the outbox as one deduplicated icrc1_transfer signed as the member (transfers.ts); the client's
// Idempotency-Key makes a retried request answer the first transfer. The history is read from the
// wallet's index of the ledger's blocks (ledger-index.ts), brought up to the ledger's tip first.
import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import { sql } from 'kysely';
import { isPrincipalText, type BlocksCallbackQuery, type CanisterClients } from '@domdao/canisters';
import type { Session } from '../../core/auth/sessions.ts';
import type { Db } from '../../core/db/schema.ts';
import { isUniqueViolation } from '../../core/db/errors.ts';
import { Int8Text, NAT64_MAX } from '../../core/http/decimal.ts';
import { HttpError } from '../../core/http/errors.ts';
import { CSRF, err } from '../../core/http/route-doc.ts';
import type { BridgeApp } from '../../core/http/typed.ts';
import type { DisplayNames } from '../../core/identity/display-names.ts';
import type { Outbox } from '../../core/outbox/queue.ts';
import { LedgerIndex } from './ledger-index.ts';
import { OP_TRANSFER, REFUSAL_STATUS, registerTransferOperation, transferMemo, transferOpId, type TransferAnswer, type TransferPayload } from './transfers.ts';
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

/** Decision B75: the largest amount a transfer may name, nat64 (the token type of DFINITY's ICRC ledger, decision L1). */
export const MAX_TRANSFER_E8S = NAT64_MAX;
export const HISTORY_MAX = 100;
const IDEMPOTENCY = '^[A-Za-z0-9._:-]{1,100}$';
const PENDING_SHOWN = 20;

const E8s = Type.String({ pattern: '^[0-9]+$', description: 'e8s (10^-8 DOM) as a decimal string' });
const Time = Type.String({ format: 'date-time' });
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);
const TransferFields = {
  id: Type.String({ description: 'the transfer record; its ledger memo is `dom-wallet:<id>`' }),
  state: Type.Union([Type.Literal('done'), Type.Literal('pending')], {
    description: 'done: on the ledger at block_index; pending: recorded, the ledger did not answer yet (the bridge keeps trying; the same request again tells)',
  }),
  to: Type.String({ description: 'principal of the receiving member (their default account)' }),
  to_name: Nullable(Type.String({ description: 'their display name (decision F22)' })),
  amount_e8s: E8s,
  fee_e8s: E8s,
  block_index: Nullable(Type.String({ pattern: '^[0-9]+$' })),
  created_at: Time,
};
const Transfer = (description: string) => Type.Object(TransferFields, { description });
const PendingTransfer = Type.Object({ ...TransferFields, state: Type.Literal('pending') });
const Counterparty = Type.Object({
  account: Type.String({ description: 'ICRC-1 textual account' }),
  owner: Type.String({ description: 'principal' }),
  display_name: Nullable(Type.String({ description: "the member's display name; null when the owner is no member" })),
  label: Nullable(
    Type.String({
      description:
        'a platform account: DAO treasury, Campaign #<id> (its escrow), Campaigns (the campaigns’ own account, which contributions allow to take DOM), Governance',
    }),
  ),
});
const HistoryItem = Type.Object({
  block_index: Type.String({ pattern: '^[0-9]+$' }),
  kind: Type.Union(
    ['mint', 'burn', 'donation', 'send', 'receive', 'approve', 'contribution', 'spend'].map((k) => Type.Literal(k)),
    {
      description:
        "mint: DOM created for the member (the development faucet); burn / donation (a burn through the campaign canister); send / receive: a transfer; approve: an ICRC-2 approval (only its fee moves); contribution: pulled into a campaign's escrow; spend: pulled by another approved spender",
    },
  ),
  amount_e8s: E8s,
  fee_e8s: E8s,
  change_e8s: Type.String({ pattern: '^-?[0-9]+$', description: "what the block changed in the member's balance, signed (a send: -(amount + fee))" }),
  at: Time,
  counterparty: Nullable(Counterparty),
  memo: Nullable(Type.String({ description: 'the memo as text when printable, else 0x-hex' })),
});
const session = [{ sessionCookie: [] }];
const MEMBER = { 401: err('UNAUTHORIZED: sign in first, or SESSION_REQUIRED (a bearer token without the cookie)') };

const transferBody = Type.Object(
  {
    to: Type.String({ minLength: 1, maxLength: 100, description: "the receiving member's principal (GET /api/members finds it by name)" }),
    amount_e8s: Type.String({ pattern: '^(?:0|[1-9][0-9]{0,39})$', description: `DOM in e8s, decimal: 1 to ${MAX_TRANSFER_E8S}` }),
    fee_e8s: Type.Optional(
      Type.String({
        pattern: '^(?:0|[1-9][0-9]{0,39})$',
        description: "the fee the member was shown; refused (409 BadFee) when it is not the ledger's fee now",
      }),
    ),
  },
  { additionalProperties: false },
);

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
      app.log.warn({ event: 'wallet.ledger_unavailable', err: e instanceof Error ? e.message : String(e) }, 'the ledger did not answer');
      throw new HttpError(503, 'LEDGER_UNAVAILABLE', 'the DOM ledger could not be reached; nothing was sent; try again', { 'retry-after': '5' });
    }
  };

  // A member's operations one at a time on this instance (decision L25).
  const perMember = serialByKey();

  const byKey = (userId: string, key: string) =>
    db.selectFrom('wallet_transfers').selectAll().where('user_id', '=', userId).where('idempotency_key', '=', key).executeTakeFirst();
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
      throw HttpError.passThrough(REFUSAL_STATUS[row.error_code ?? ''] ?? 502, row.error_code ?? 'LedgerError', row.error_message ?? 'refused');
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
          app.log.warn({ event: 'wallet.ledger_follow_failed', err: e instanceof Error ? e.message : String(e) }, 'the index will read the block later'),
        );
    return db.selectFrom('wallet_transfers').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  };

  app.post(
    '/api/me/transfers',
    {
      bodyLimit: 4096,
      schema: {
        operationId: 'sendDom',
        summary: 'Send DOM to another member (decisions B75, L41)',
        description:
          "Session required (cross-site rule). The recipient is a verified member's principal (find it by name with GET /api/members). Every refusal below 409 changes nothing; so do InsufficientFunds and BadFee when checked before the record (the balance must cover amount + fee + the member's pending transfers). The transfer is then recorded and made as one icrc1_transfer signed as the member with the record's created_at_time and memo `dom-wallet:<id>`; a retry, the bridge's or the client's, cannot pay twice. `Idempotency-Key` is required: the same key with the same body answers the first transfer (header `Idempotent-Replayed: true`), with another body 422.",
        tags: ['wallet'],
        security: session,
        headers: Type.Object({
          'idempotency-key': Type.String({
            pattern: IDEMPOTENCY,
            description: 'required: 1 to 100 of A-Z a-z 0-9 . _ : -, one per transfer the member means to make',
          }),
        }),
        body: transferBody,
        response: {
          201: Transfer('made: the transfer is on the ledger at block_index'),
          202: Transfer(
            'pending: recorded, the ledger has not answered yet; the bridge keeps trying with the same transaction, and the same request again tells the outcome',
          ),
          400: err(
            'VALIDATION_ERROR (the body, an amount of 0 or over 18446744073709551615 e8s, `to` not a principal, a missing Idempotency-Key) or SELF_TRANSFER',
          ),
          ...MEMBER,
          403: CSRF,
          404: err('RECIPIENT_NOT_FOUND: no verified member has this principal'),
          409: err(
            "InsufficientFunds (message with balance, pending and required), BadFee (fee_e8s is not the ledger's fee; message with the fee), TooOld (the ledger was unreachable for 24 hours: nothing was sent) or CANCELLED",
          ),
          422: err('IDEMPOTENCY_KEY_REUSED: this Idempotency-Key was used with another body'),
          502: err('LedgerError: the ledger refused the transfer for another reason; nothing was sent'),
          503: err('LEDGER_UNAVAILABLE: the ledger could not be read before the transfer; nothing was recorded'),
        },
      },
    },
    async (req, reply) => {
      const s = await opts.requireSession(req);
      const key = req.headers['idempotency-key'];
      const b = req.body;
      const hash = requestHash(b);
      return perMember(s.principal, async () => {
        const existing = await byKey(s.user_id, key);
        if (existing) {
          if (existing.request_hash !== hash) throw new HttpError(422, 'IDEMPOTENCY_KEY_REUSED', 'this Idempotency-Key was already used with another transfer');
          return answer(reply, existing.state === 'pending' ? await run(existing.id) : existing, true);
        }
        const amount = BigInt(b.amount_e8s);
        if (amount < 1n) throw new HttpError(400, 'VALIDATION_ERROR', 'amount_e8s: at least 1 e8s');
        if (amount > MAX_TRANSFER_E8S) throw new HttpError(400, 'VALIDATION_ERROR', `amount_e8s: at most ${MAX_TRANSFER_E8S} e8s`);
        if (!isPrincipalText(b.to)) throw new HttpError(400, 'VALIDATION_ERROR', 'to: not a principal');
        if (b.to === s.principal) throw new HttpError(400, 'SELF_TRANSFER', 'you cannot send DOM to yourself');
        if ((await opts.recipient(b.to)) === undefined) throw new HttpError(404, 'RECIPIENT_NOT_FOUND', 'no member has this account');
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
            const { rows } = await sql<{ id: string }>`select nextval(pg_get_serial_sequence('wallet_transfers', 'id'))::text as id`.execute(trx);
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
            await opts.outbox.enqueue(trx, { operation: OP_TRANSFER, opId: transferOpId(next), aggregate: transferOpId(next), payload });
            return next;
          });
        } catch (e) {
          // The same key from another bridge instance at the same moment: answer its transfer.
          if (!isUniqueViolation(e)) throw e;
          const first = await byKey(s.user_id, key);
          if (!first || first.request_hash !== hash)
            throw new HttpError(422, 'IDEMPOTENCY_KEY_REUSED', 'this Idempotency-Key was already used with another transfer');
          return answer(reply, first, true);
        }
        const row = await run(id);
        req.log.info({ event: 'wallet.transfer', user_id: s.user_id, transfer_id: id, state: row.state, amount_e8s: String(amount) }, 'DOM transfer');
        return answer(reply, row, false);
      });
    },
  );

  const historyQuery = Type.Object(
    {
      before: Type.Optional(Int8Text('cursor: blocks below this index (next_before of the previous page)')),
      limit: Type.Optional(Type.Integer({ minimum: 1, maximum: HISTORY_MAX, default: 20 })),
    },
    { additionalProperties: false },
  );
  app.get(
    '/api/me/transactions',
    {
      schema: {
        operationId: 'listMyTransactions',
        summary: "The member's DOM history from the ledger's blocks, newest first (decision B76)",
        description:
          "Session required. Every ledger block that sent from or into the member's account (mints, burns, transfers both ways, contributions, approvals), read from the bridge's index of the ledger, which is first brought up to the ledger's tip (one ledger query when nothing is new). Counterparties are named by display name when they are members, never by email. `pending`: the member's transfers recorded but not yet answered by the ledger.",
        tags: ['wallet'],
        security: session,
        querystring: historyQuery,
        response: {
          200: Type.Object(
            {
              items: Type.Array(HistoryItem),
              next_before: Nullable(Type.String({ pattern: '^[0-9]+$', description: 'the `before` of the next (older) page; null on the last' })),
              pending: Type.Array(PendingTransfer),
              indexed_blocks: Type.String({ pattern: '^[0-9]+$', description: "how many of the ledger's blocks the index has read" }),
              caught_up: Type.Boolean({
                description: "false when the ledger could not be read just now, or the index is still reading a long log: the items are the index's as it is",
              }),
            },
            { description: "the member's blocks, newest first, and their transfers still pending" },
          ),
          400: err('VALIDATION_ERROR'),
          ...MEMBER,
        },
      },
    },
    async (req, reply) => {
      const s = await opts.requireSession(req);
      const limit = req.query.limit ?? 20;
      const caughtUp = await index.catchUp().catch((e: unknown) => {
        req.log.warn({ event: 'wallet.ledger_follow_failed', err: e instanceof Error ? e.message : String(e) }, 'history answered from the index as it was');
        return false;
      });
      // ICRC-1 textual account of the member's default subaccount: the principal itself.
      const account = s.principal;
      const rows = await index.history(account, req.query.before === undefined ? undefined : BigInt(req.query.before), limit + 1);
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
