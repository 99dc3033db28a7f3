// What the OpenAPI document says of this feature's routes (decision B124): each route's schema spreads its
// doc through routeSchema() beside the handler.
import { Type } from '@sinclair/typebox';
import { err, Json, MEMBER, type RouteDoc } from '../../core/http/route-doc.ts';

// The JSON views of features/campaigns/views.ts (decision L21): e8s amounts and nat64 ids as decimal
// strings, times ISO-8601. The portal's types are generated from these (decision F12).
const E8s = Type.String({ pattern: '^[0-9]+$', description: 'e8s (10^-8 DOM) as a decimal string' });
const Id = Type.String({ pattern: '^[0-9]+$', description: 'a decimal nat64' });
const Time = Type.String({ format: 'date-time' });
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);
const Account = Type.Object({
  owner: Type.String({ description: 'principal' }),
  subaccount: Nullable(Type.String({ description: 'hex' })),
});
const Settled = Type.Object({ block_index: Id, amount_e8s: E8s, at: Time });
const CampaignBody = Type.Object({
  id: Type.String(),
  title: Type.String(),
  description: Type.String(),
  owner: Type.String({ description: 'principal' }),
  owner_name: Type.Union([Type.String(), Type.Null()], {
    description: 'display name (decision F22); null for a canister',
  }),
  beneficiary: Type.String({ description: 'principal' }),
  beneficiary_name: Type.Union([Type.String(), Type.Null()], {
    description: 'display name (decision F22); null for a canister',
  }),
  goal: Type.Union([Type.Object({ dom_e8s: E8s }), Type.Object({ usd: Type.Number() })]),
  deadline: Time,
  created_at: Time,
  status: Type.Union([
    Type.Literal('Open'),
    Type.Literal('Succeeded'),
    Type.Literal('Failed'),
    Type.Literal('Cancelled'),
  ]),
  contributions: Id,
  progress: Type.Object(
    {
      goal_dom: E8s,
      raised_dom: E8s,
      raised_usd: Nullable(Type.Number()),
      goal_usd: Nullable(Type.Number()),
      pct_complete: Type.Number(),
      price_tick_id: Nullable(Id),
    },
    { description: 'spec 1 CampaignProgress' },
  ),
  escrow: Account,
  released: Nullable(Settled),
  refunds: Id,
  settled: Type.Boolean(),
});
const ContributionBody = Type.Object({
  campaign_id: Type.String(),
  seq: Id,
  contributor: Type.String({ description: 'principal' }),
  contributor_name: Type.Union([Type.String(), Type.Null()], {
    description: 'display name (decision F22); null for a canister',
  }),
  amount_e8s: E8s,
  usd_value: Nullable(Type.Number()),
  price_tick_id: Nullable(Id),
  at: Time,
  block_index: Id,
  refund: Nullable(Settled),
});
const DonationBody = Type.Object({
  id: Id,
  donor: Type.String({ description: 'principal' }),
  donor_name: Type.Union([Type.String(), Type.Null()], {
    description: 'display name (decision F22); null for a canister',
  }),
  amount_e8s: E8s,
  usd_value: Nullable(Type.Number()),
  price_tick_id: Nullable(Id),
  at: Time,
  block_index: Id,
});
const PayoutBody = Type.Object({
  proposal_id: Id,
  recipient: Type.String({ description: 'principal' }),
  recipient_name: Type.Union([Type.String(), Type.Null()], {
    description: 'display name (decision F22); null for a canister',
  }),
  amount_e8s: E8s,
  usd_value: Nullable(Type.Number()),
  price_tick_id: Nullable(Id),
  memo: Nullable(Type.String()),
  paid_at: Time,
  block_index: Id,
});

const MONEY = {
  400: err('VALIDATION_ERROR or InvalidArgument'),
  404: err('CampaignNotFound'),
  409: err('CampaignClosed, PriceUnavailable, InsufficientFunds, InsufficientAllowance or CONCURRENT_APPROVAL'),
  502: err('LedgerError: the ledger refused or could not be reached'),
};

export const listCampaignsDoc: RouteDoc = {
  operationId: 'listCampaigns',
  description: 'Public; e8s amounts and ids are decimal strings, times ISO-8601 (decision L21).',
  security: 'public',
  summary: 'Campaigns, newest first, with CampaignProgress in DOM and USD (decision L21)',
  tag: 'campaigns',
  responses: {
    200: Json(
      'campaigns, newest first; Cache-Control: public, max-age=5',
      Type.Object({ items: Type.Array(CampaignBody) }),
    ),
    400: err('VALIDATION_ERROR'),
  },
};

export const getCampaignDoc: RouteDoc = {
  operationId: 'getCampaign',
  description: 'Public; the campaign as the campaign canister holds it, progress valued at the current tick.',
  security: 'public',
  summary: 'One campaign: goal, status, progress (spec 1 CampaignProgress), escrow, release and refunds',
  tag: 'campaigns',
  responses: {
    200: Json('the campaign; Cache-Control: public, max-age=5', CampaignBody),
    400: err('VALIDATION_ERROR'),
    404: err('CampaignNotFound'),
  },
};

export const listCampaignContributionsDoc: RouteDoc = {
  operationId: 'listCampaignContributions',
  description: 'Public; keyset-paged by after_seq.',
  security: 'public',
  summary: "A campaign's contributions, oldest first, with the tick each was valued at and its refund",
  tag: 'campaigns',
  responses: {
    200: Json('contributions, oldest first', Type.Object({ items: Type.Array(ContributionBody) })),
    400: err('VALIDATION_ERROR'),
    404: err('CampaignNotFound'),
  },
};

export const createCampaignDoc: RouteDoc = {
  operationId: 'createCampaign',
  description:
    'Session required (cross-site rule, bearer-defect rule); the campaign is created on the canister as the member.',
  summary: 'Create a campaign as the signed-in member (goal in DOM e8s or USD)',
  tag: 'campaigns',
  security: 'session',
  responses: { 201: Json('the campaign', CampaignBody), ...MEMBER, 400: err('VALIDATION_ERROR or InvalidArgument') },
};

export const contributeToCampaignDoc: RouteDoc = {
  operationId: 'contributeToCampaign',
  description:
    'Session required; the bridge approves the campaign canister on the ledger for the member, then the canister pulls the amount into escrow.',
  summary:
    'Contribute DOM or USD as the signed-in member: the bridge approves, the campaign canister pulls into escrow (decisions L14, L21); Idempotency-Key makes a retry safe',
  tag: 'campaigns',
  security: 'session',
  responses: { 201: Json('the contribution', ContributionBody), ...MEMBER, ...MONEY },
};

export const cancelCampaignDoc: RouteDoc = {
  operationId: 'cancelCampaign',
  description: "Session required: the campaign's owner or an admin; refunds start at once.",
  summary: 'Cancel an open campaign (its owner or an admin); refunds start at once',
  tag: 'campaigns',
  security: 'session',
  responses: {
    200: Json('the campaign, cancelled', CampaignBody),
    400: err('VALIDATION_ERROR'),
    ...MEMBER,
    404: err('CampaignNotFound'),
    409: err('CampaignClosed'),
  },
};

export const getMyBalanceDoc: RouteDoc = {
  operationId: 'getMyBalance',
  description: 'Session required; read from the ledger on each call.',
  summary: "The signed-in member's DOM balance on the ledger, and the ledger fee",
  tag: 'campaigns',
  security: 'session',
  responses: {
    200: Json(
      'the balance and the fee',
      Type.Object({
        account: Account,
        account_text: Type.String({
          description:
            'the account in ICRC-1 textual encoding (the principal when there is no subaccount; decision F29)',
        }),
        balance_e8s: E8s,
        fee_e8s: E8s,
        faucet_e8s: Nullable(
          Type.String({
            description: 'e8s the development faucet gives per request; null when it is off (decision F26)',
          }),
        ),
        faucet_per_day: Nullable(
          Type.Integer({
            description:
              'how many times one member may take it in 24 hours (DEV_FAUCET_PER_DAY); null when it is off (decision B107)',
          }),
        ),
      }),
    ),
    401: err('UNAUTHORIZED'),
  },
};

export const listMyContributionsDoc: RouteDoc = {
  operationId: 'listMyContributions',
  description: 'Session required; the refunds are the contributions that were refunded.',
  summary: "The signed-in member's contributions and refunds",
  tag: 'campaigns',
  security: 'session',
  responses: {
    200: Json(
      'the contributions and the refunds among them',
      Type.Object({
        items: Type.Array(ContributionBody),
        refunds: Type.Array(Type.Composite([Type.Object({ campaign_id: Type.String(), seq: Id }), Settled])),
      }),
    ),
    400: err('VALIDATION_ERROR'),
    401: err('UNAUTHORIZED'),
  },
};

export const donateDoc: RouteDoc = {
  operationId: 'donate',
  description: 'Session required; the amount is burned on the ledger and recorded with its USD value (decision L18).',
  summary: "Burn the signed-in member's DOM as a recorded donation, valued at the tick (decision L18)",
  tag: 'campaigns',
  security: 'session',
  responses: { 201: Json('the donation', DonationBody), ...MEMBER, ...MONEY },
};

export const listDonationsDoc: RouteDoc = {
  operationId: 'listDonations',
  description: 'Public; donation burns, keyset-paged by from_id.',
  security: 'public',
  summary: 'Donation burns, newest first',
  tag: 'campaigns',
  responses: {
    200: Json('donations, newest first', Type.Object({ items: Type.Array(DonationBody) })),
    400: err('VALIDATION_ERROR'),
  },
};

export const getTreasuryDoc: RouteDoc = {
  operationId: 'getTreasury',
  description: "Public; the treasury canister's ledger account and its balance.",
  security: 'public',
  summary: "The treasury's ledger account and balance (decision L11)",
  tag: 'campaigns',
  responses: {
    200: Json(
      'the account and its balance; Cache-Control: public, max-age=5',
      Type.Object({ account: Account, balance_e8s: E8s }),
    ),
  },
};

export const listTreasuryPayoutsDoc: RouteDoc = {
  operationId: 'listTreasuryPayouts',
  description: 'Public; payouts made by executed treasury proposals.',
  security: 'public',
  summary: 'Treasury payouts, newest first, with their ledger blocks',
  tag: 'campaigns',
  responses: {
    200: Json('payouts, newest first', Type.Object({ items: Type.Array(PayoutBody) })),
    400: err('VALIDATION_ERROR'),
  },
};

export const mintDevelopmentDomDoc: RouteDoc = {
  operationId: 'mintDevelopmentDom',
  description:
    'Session required; answers 404 unless DEV_FAUCET_DOM is set, which production refuses (decision L22). At most DEV_FAUCET_PER_DAY grants a member in 24 hours (decision B107).',
  summary:
    'Development only: mint DEV_FAUCET_DOM test DOM to the signed-in member (production refuses it; decision L22)',
  tag: 'campaigns',
  security: 'session',
  responses: {
    200: Json('minted', Type.Object({ amount_e8s: E8s, block_index: Id, balance_e8s: E8s })),
    401: err('UNAUTHORIZED'),
    403: err('CSRF_REJECTED'),
    404: err('NOT_FOUND: the faucet is off'),
    429: err(
      'RATE_LIMITED, with Retry-After: DEV_FAUCET_PER_DAY grants taken in the 24 hours since the first (decision B107)',
    ),
  },
};
