// What the OpenAPI document says of the wallet's routes (decision B124), and the request schemas the
// routes validate with: Fastify's serializer answers with exactly these response schemas.
import { Type } from '@sinclair/typebox';
import { Int8Text, NAT64_MAX } from '../../core/http/decimal.ts';
import { CSRF, err } from '../../core/http/route-doc.ts';

/** Decision B75: the largest amount a transfer may name, nat64 (the token type of DFINITY's ICRC ledger, decision L1). */
export const MAX_TRANSFER_E8S = NAT64_MAX;
export const HISTORY_MAX = 100;
const IDEMPOTENCY = '^[A-Za-z0-9._:-]{1,100}$';

const E8s = Type.String({ pattern: '^[0-9]+$', description: 'e8s (10^-8 DOM) as a decimal string' });
const Time = Type.String({ format: 'date-time' });
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);
const TransferFields = {
  id: Type.String({ description: 'the transfer record; its ledger memo is `dom-wallet:<id>`' }),
  state: Type.Union([Type.Literal('done'), Type.Literal('pending')], {
    description:
      'done: on the ledger at block_index; pending: recorded, the ledger did not answer yet (the bridge keeps trying; the same request again tells)',
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
  change_e8s: Type.String({
    pattern: '^-?[0-9]+$',
    description: "what the block changed in the member's balance, signed (a send: -(amount + fee))",
  }),
  at: Time,
  counterparty: Nullable(Counterparty),
  memo: Nullable(Type.String({ description: 'the memo as text when printable, else 0x-hex' })),
});
const session = [{ sessionCookie: [] }];
const MEMBER = { 401: err('UNAUTHORIZED: sign in first, or SESSION_REQUIRED (a bearer token without the cookie)') };

const transferBody = Type.Object(
  {
    to: Type.String({
      minLength: 1,
      maxLength: 100,
      description: "the receiving member's principal (GET /api/members finds it by name)",
    }),
    amount_e8s: Type.String({
      pattern: '^(?:0|[1-9][0-9]{0,39})$',
      description: `DOM in e8s, decimal: 1 to ${MAX_TRANSFER_E8S}`,
    }),
    fee_e8s: Type.Optional(
      Type.String({
        pattern: '^(?:0|[1-9][0-9]{0,39})$',
        description: "the fee the member was shown; refused (409 BadFee) when it is not the ledger's fee now",
      }),
    ),
  },
  { additionalProperties: false },
);

const historyQuery = Type.Object(
  {
    before: Type.Optional(Int8Text('cursor: blocks below this index (next_before of the previous page)')),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: HISTORY_MAX, default: 20 })),
  },
  { additionalProperties: false },
);

export const sendDomSchema = {
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
};

export const listMyTransactionsSchema = {
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
        next_before: Nullable(
          Type.String({ pattern: '^[0-9]+$', description: 'the `before` of the next (older) page; null on the last' }),
        ),
        pending: Type.Array(PendingTransfer),
        indexed_blocks: Type.String({
          pattern: '^[0-9]+$',
          description: "how many of the ledger's blocks the index has read",
        }),
        caught_up: Type.Boolean({
          description:
            "false when the ledger could not be read just now, or the index is still reading a long log: the items are the index's as it is",
        }),
      },
      { description: "the member's blocks, newest first, and their transfers still pending" },
    ),
    400: err('VALIDATION_ERROR'),
    ...MEMBER,
  },
};
