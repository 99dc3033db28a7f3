// Campaigns, balances, donations, the treasury and the development faucet (decisions L20–L23).
import { ANY, err, MEMBER, type RouteDoc } from './common.ts';

export const MONEY = {
  400: err('VALIDATION_ERROR or InvalidArgument'),
  404: err('CampaignNotFound'),
  409: err('CampaignClosed, PriceUnavailable, InsufficientFunds, InsufficientAllowance or CONCURRENT_APPROVAL'),
  502: err('LedgerError: the ledger refused or could not be reached'),
};
/** Issue 11 (decisions L20–L23): campaigns, balances, donations, the treasury, the development faucet. */
export const CAMPAIGN_DOCS: Record<string, RouteDoc> = {
  'GET /api/campaigns': {
    summary: 'Campaigns, newest first, with CampaignProgress in DOM and USD (decision L21)',
    tag: 'campaigns',
    responses: { 200: ANY('{items: [campaign]}'), 400: err('VALIDATION_ERROR') },
  },
  'GET /api/campaigns/{id}': {
    summary: 'One campaign: goal, status, progress (spec 1 CampaignProgress), escrow, release and refunds',
    tag: 'campaigns',
    responses: { 200: ANY('the campaign'), 400: err('VALIDATION_ERROR'), 404: err('CampaignNotFound') },
  },
  'GET /api/campaigns/{id}/contributions': {
    summary: "A campaign's contributions, oldest first, with the tick each was valued at and its refund",
    tag: 'campaigns',
    responses: { 200: ANY('{items: [contribution]}'), 400: err('VALIDATION_ERROR'), 404: err('CampaignNotFound') },
  },
  'POST /api/campaigns': {
    summary: 'Create a campaign as the signed-in member (goal in DOM e8s or USD)',
    tag: 'campaigns',
    security: 'session',
    responses: { 201: ANY('the campaign'), ...MEMBER, 400: err('VALIDATION_ERROR or InvalidArgument') },
  },
  'POST /api/campaigns/{id}/contributions': {
    summary:
      'Contribute DOM or USD as the signed-in member: the bridge approves, the campaign canister pulls into escrow (decisions L14, L21); Idempotency-Key makes a retry safe',
    tag: 'campaigns',
    security: 'session',
    responses: { 201: ANY('the contribution'), ...MEMBER, ...MONEY },
  },
  'POST /api/campaigns/{id}/cancel': {
    summary: 'Cancel an open campaign (its owner or an admin); refunds start at once',
    tag: 'campaigns',
    security: 'session',
    responses: { 200: ANY('the campaign'), 400: err('VALIDATION_ERROR'), ...MEMBER, 404: err('CampaignNotFound'), 409: err('CampaignClosed') },
  },
  'GET /api/me/balance': {
    summary: "The signed-in member's DOM balance on the ledger, and the ledger fee",
    tag: 'campaigns',
    security: 'session',
    responses: { 200: ANY('{account, balance_e8s, fee_e8s}'), 401: err('UNAUTHORIZED') },
  },
  'GET /api/me/contributions': {
    summary: "The signed-in member's contributions and refunds",
    tag: 'campaigns',
    security: 'session',
    responses: { 200: ANY('{items, refunds}'), 400: err('VALIDATION_ERROR'), 401: err('UNAUTHORIZED') },
  },
  'POST /api/donations': {
    summary: "Burn the signed-in member's DOM as a recorded donation, valued at the tick (decision L18)",
    tag: 'campaigns',
    security: 'session',
    responses: { 201: ANY('the donation'), ...MEMBER, ...MONEY },
  },
  'GET /api/donations': {
    summary: 'Donation burns, newest first',
    tag: 'campaigns',
    responses: { 200: ANY('{items: [donation]}'), 400: err('VALIDATION_ERROR') },
  },
  'GET /api/treasury': {
    summary: "The treasury's ledger account and balance (decision L11)",
    tag: 'campaigns',
    responses: { 200: ANY('{account, balance_e8s}') },
  },
  'GET /api/treasury/payouts': {
    summary: 'Treasury payouts, newest first, with their ledger blocks',
    tag: 'campaigns',
    responses: { 200: ANY('{items: [payout]}'), 400: err('VALIDATION_ERROR') },
  },
  'POST /api/dev/faucet': {
    summary: 'Development only: mint DEV_FAUCET_DOM test DOM to the signed-in member (production refuses it; decision L22)',
    tag: 'campaigns',
    security: 'session',
    responses: {
      200: ANY('{amount_e8s, block_index, balance_e8s}'),
      401: err('UNAUTHORIZED'),
      403: err('CSRF_REJECTED'),
      404: err('NOT_FOUND: the faucet is off'),
    },
  },
};
