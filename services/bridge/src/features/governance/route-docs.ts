// What the OpenAPI document says of this feature's routes (decision B124): each route's schema spreads its
// doc through routeSchema() beside the handler.
import { Type } from '@sinclair/typebox';
import { PROPOSAL_CATEGORIES } from '@domdao/canister-kit/rules';
import { err, Json, type RouteDoc } from '../../core/http/route-doc.ts';

// The JSON views of features/governance/views.ts (decision V12): nat64 as decimal strings, times
// ISO-8601. The portal's types are generated from these (decision F12).
const Nat = Type.String({ pattern: '^[0-9]+$', description: 'a decimal nat64' });
const Time = Type.String({ format: 'date-time' });
// The categories have one source (decision S17).
const Category = Type.Union(PROPOSAL_CATEGORIES.map((c) => Type.Literal(c)));
const Status = Type.Union(['Created', 'Open', 'Tallied', 'Approved', 'Rejected', 'Executed', 'Expired'].map((c) => Type.Literal(c)));
/** The rules proposals are decided by (GET /api/governance/settings; an amendment's rules_before, decision G52). */
const Settings = Type.Object({
  execution_window: Nat,
  voting_delay: Nat,
  rules: Type.Array(
    Type.Object({
      category: Category,
      quorum_bps: Type.Integer(),
      threshold_bps: Type.Integer(),
      voting_window: Nat,
    }),
  ),
});
const ProposalBody = Type.Object({
  id: Nat,
  title: Type.String(),
  body: Type.String({ description: 'Markdown' }),
  category: Category,
  proposed_by: Type.String({ description: 'principal' }),
  proposed_by_name: Type.Union([Type.String(), Type.Null()], { description: 'display name (decision F22); null for a canister' }),
  status: Status,
  created_at: Time,
  voting_opens: Time,
  voting_closes: Time,
  payload: Type.Union([Type.Object({}, { additionalProperties: true, description: 'the category payload, nat64 as decimal strings' }), Type.Null()]),
  tally: Type.Union([
    Type.Object({
      yes_votes: Nat,
      no_votes: Nat,
      abstentions: Nat,
      total_eligible: Nat,
      quorum_met: Type.Boolean(),
      threshold_met: Type.Boolean(),
    }),
    Type.Null(),
  ]),
  rules_before: Type.Union([Settings, Type.Null()], {
    description:
      'an executed amendment (a ConstitutionalAmendment payload): the rules in force just before it applied, as GET /api/governance/settings answers them; null otherwise (decision G52)',
  }),
  payload_context: Type.Object(
    {
      names: Type.Record(Type.String(), Type.String(), { description: 'display names of the principals the payload names (recipient, admins, revocations)' }),
      ratified_price_usd: Type.Union([Type.Number(), Type.Null()], { description: 'the ratified DOM/USD price now; null before the first' }),
      paid_e8s: Type.Union([Type.String(), Type.Null()], { description: 'an executed payout: what the treasury paid, e8s' }),
    },
    { description: 'what the payload is read with in words (decision F43, @domdao/proposal-text)' },
  ),
});
const Tick = Type.Object({ price_usd: Type.Number(), proposal_id: Nat, set_by: Type.String({ description: 'principal' }), effective_at: Time });

export const createProposalDoc: RouteDoc = {
  operationId: 'createProposal',
  description: 'Session required (cross-site rule, bearer-defect rule); the proposal is created on the governance canister as the member.',
  summary: 'Create a proposal as the signed-in member; payload per category (spec 1 bridge endpoints; decision V13)',
  tag: 'governance',
  security: 'session',
  responses: {
    201: Json('created', Type.Object({ proposal_id: Type.String(), status: Type.String(), voting_opens: Type.String(), voting_closes: Type.String() })),
    400: err('VALIDATION_ERROR (payload.<field>: …) or InvalidPayload (the canister’s reason, naming the field; decision G22)'),
    401: err('UNAUTHORIZED or SESSION_REQUIRED (bearer token without the session cookie; spec 1 Authentication 6)'),
    403: err('NotAMember, NotAuthorized or CSRF_REJECTED'),
    413: err('PAYLOAD_TOO_LARGE (64 KiB)'),
    429: err('RATE_LIMITED, with Retry-After: PROPOSAL_LIMIT_PER_HOUR proposals per member per hour (decision V35)'),
  },
};

export const castVoteDoc: RouteDoc = {
  operationId: 'castVote',
  description: "Session required; the vote is cast with the member's own principal (decision V5).",
  summary: 'Cast a vote as the signed-in member (their own principal; decisions V5, V8)',
  tag: 'governance',
  security: 'session',
  responses: {
    200: Json('vote recorded', Type.Object({ proposal_id: Type.String(), vote: Type.String(), reason: Type.Optional(Type.String()) })),
    400: err('VALIDATION_ERROR (per field)'),
    401: err(
      'UNAUTHORIZED (no session) or SESSION_REQUIRED (bearer token without the session cookie: sign in again at the URL in the message and X-Login-URL; spec 1 Authentication 6)',
    ),
    403: err(
      'NotAMember (no Active membership now), NotActiveWhenVotingOpened (Active now but not when voting opened on this proposal: only members Active then vote on it; the message names the instant; decision G23) or CSRF_REJECTED',
    ),
    404: err('ProposalNotFound'),
    409: err('ProposalNotOpen, AlreadyVoted or VotingWindowClosed (decision V9)'),
    413: err('PAYLOAD_TOO_LARGE (16 KiB)'),
    503: err('MembershipUnavailable, with Retry-After'),
  },
};

export const executeProposalDoc: RouteDoc = {
  operationId: 'executeProposal',
  description: 'Session required; executing an approved proposal is permissionless on the canister.',
  summary: 'Execute an approved proposal (permissionless on the canister; decision V8)',
  tag: 'governance',
  security: 'session',
  responses: {
    200: Json('executed', Type.Object({ proposal_id: Type.String(), status: Type.String() })),
    400: err('VALIDATION_ERROR'),
    401: err('UNAUTHORIZED or SESSION_REQUIRED'),
    403: err('CSRF_REJECTED'),
    404: err('ProposalNotFound'),
    409: err('ExecutionFailed (not Approved, or the action failed), PriceStale, QuorumNotMet'),
    413: err('PAYLOAD_TOO_LARGE'),
  },
};

export const listProposalsDoc: RouteDoc = {
  operationId: 'listProposals',
  description: 'Public; read from the governance canister.',
  security: 'public',
  summary: 'Proposals, filtered by status and category, paged by from_id and limit (decision V14)',
  tag: 'governance',
  responses: {
    200: Json('proposals; Cache-Control: public, max-age=5', Type.Object({ items: Type.Array(ProposalBody), limit: Type.Integer() })),
    400: err('VALIDATION_ERROR'),
  },
};

export const getRatifiedPriceDoc: RouteDoc = {
  operationId: 'getRatifiedPrice',
  description: 'Public; the price the DAO ratified by proposal, not the live oracle aggregate.',
  security: 'public',
  summary: 'The ratified DOM/USD price in force (get_dom_price; decision V14)',
  tag: 'governance',
  responses: {
    200: Json('the ratified price; Cache-Control: public, max-age=30', Tick),
    404: err('NO_RATIFIED_PRICE'),
  },
};

export const listRatifiedPricesDoc: RouteDoc = {
  operationId: 'listRatifiedPrices',
  description: 'Public; every ratified price, newest first.',
  security: 'public',
  summary: 'Ratified prices, newest first (decision V14)',
  tag: 'governance',
  responses: {
    200: Json('ratified prices, newest first; Cache-Control: public, max-age=30', Type.Object({ items: Type.Array(Tick) })),
    400: err('VALIDATION_ERROR'),
  },
};

export const getGovernanceSettingsDoc: RouteDoc = {
  operationId: 'getGovernanceSettings',
  description: 'Public; the rules each proposal category is decided by.',
  security: 'public',
  summary: 'Category settings: quorum, threshold, voting window; voting delay, execution window (decision V14)',
  tag: 'governance',
  responses: {
    200: Json('settings; Cache-Control: public, max-age=60', Settings),
  },
};

export const getMyVoteDoc: RouteDoc = {
  operationId: 'getMyVote',
  description: 'Session required; null when the member has not voted.',
  summary: "The signed-in member's vote on a proposal (decision V15)",
  tag: 'governance',
  security: 'session',
  responses: {
    200: Json(
      'the vote or null, and how it was cast (decision V27)',
      Type.Object({
        proposal_id: Type.String(),
        vote: Type.Union([Type.String(), Type.Null()]),
        cast: Type.Union([Type.Literal('direct'), Type.Literal('delegate'), Type.Null()]),
        delegate: Type.Union([Type.String(), Type.Null()]),
        delegate_name: Type.Union([Type.String(), Type.Null()], { description: "the delegate's display name (decisions F22, V31); null for a direct vote" }),
        reason: Type.Union([Type.String(), Type.Null()]),
        final: Type.Boolean(),
      }),
    ),
    400: err('VALIDATION_ERROR'),
    401: err('UNAUTHORIZED or SESSION_REQUIRED'),
  },
};

export const listMyRecentBallotsDoc: RouteDoc = {
  operationId: 'listMyRecentBallots',
  description:
    'Session required; asked as the member. The latest `limit` proposals, those whose voting has opened, each with the member’s ballot as GET …/my-vote gives it: one request for what the delegation page shows (decision F53).',
  summary: "The signed-in member's ballots on the latest proposals, direct or by a delegate (decision F53)",
  tag: 'governance',
  security: 'session',
  responses: {
    200: Json(
      'newest proposal first',
      Type.Object({
        items: Type.Array(
          Type.Object({
            proposal: Type.Object({ id: Type.String(), title: Type.String(), category: Type.String(), status: Type.String(), voting_closes: Time }),
            vote: Type.Union([Type.String(), Type.Null()]),
            cast: Type.Union([Type.Literal('direct'), Type.Literal('delegate'), Type.Null()]),
            delegate: Type.Union([Type.String(), Type.Null()]),
            delegate_name: Type.Union([Type.String(), Type.Null()], {
              description: "the delegate's display name (decisions F22, V31); null for a direct vote",
            }),
            final: Type.Boolean({ description: 'false while the member may still vote themselves' }),
          }),
        ),
      }),
    ),
    400: err('VALIDATION_ERROR (limit 1–20)'),
    401: err('UNAUTHORIZED or SESSION_REQUIRED'),
  },
};

export const listMyVoteReceiptsDoc: RouteDoc = {
  operationId: 'listMyVoteReceipts',
  description: "Session required; the ICRC-7 receipts minted to the member's principal.",
  summary: "The signed-in member's vote-pass receipts (ICRC-7; spec 1 Events rule 2)",
  tag: 'governance',
  security: 'session',
  responses: {
    200: Json(
      'receipts, oldest token first',
      Type.Object({
        principal: Type.String(),
        items: Type.Array(Type.Object({ token_id: Type.String(), proposal_id: Type.String(), minted_at: Type.Union([Type.String(), Type.Null()]) })),
        next_prev: Type.Union([Type.String(), Type.Null()]),
      }),
    ),
    400: err('VALIDATION_ERROR'),
    401: err('UNAUTHORIZED or SESSION_REQUIRED'),
  },
};

export const listProposalVotesDoc: RouteDoc = {
  operationId: 'listProposalVotes',
  description:
    "Admin session required; read with the bridge's governance admin identity (decision V22), a page at a time in voter order (decision V31): `limit` 1–200 (default 100), the next page with `after` = `next_after`.",
  summary: 'The votes on a proposal, a page at a time (admin; spec 1 Authentication 2; decisions V22, V31)',
  tag: 'governance',
  security: 'admin',
  responses: {
    200: Json(
      'a page of votes',
      Type.Object({
        proposal_id: Type.String(),
        items: Type.Array(
          Type.Object({
            voter: Type.String(),
            voter_name: Type.Union([Type.String(), Type.Null()], { description: 'display name (decision F22); null for a canister' }),
            vote: Type.String(),
            voted_at: Type.String(),
            receipt_token_id: Type.String({ description: '0 for a ballot counted through a delegate (decision G31)' }),
            delegate: Type.Union([Type.String(), Type.Null()], {
              description: 'the delegate whose vote this ballot follows; null: voted directly (decision V27)',
            }),
            delegate_name: Type.Union([Type.String(), Type.Null()], { description: "the delegate's display name (decision V31)" }),
            reason: Type.Union([Type.String(), Type.Null()], { description: 'the reason given with the vote (decision V28)' }),
          }),
        ),
        next_after: Type.Union([Type.String(), Type.Null()], { description: 'the last voter of a full page: ask again with after=<it>; null: no more' }),
      }),
    ),
    400: err('VALIDATION_ERROR'),
    401: err('UNAUTHORIZED'),
    403: err('FORBIDDEN'),
    404: err('ProposalNotFound'),
    503: err('NOT_CONFIGURED: the bridge is not a governance admin'),
  },
};

export const listGovernanceEventsDoc: RouteDoc = {
  operationId: 'listGovernanceEvents',
  description:
    'Admin session required; the events as the follower stored them: oldest first paged by after_seq, or with order=newest newest first paged by before_seq (the admin console, decision F53).',
  summary: 'The governance admin event log as the follower stored it (decisions V3, V15)',
  tag: 'governance',
  security: 'admin',
  responses: {
    200: Json(
      'events, oldest first (or newest first with order=newest)',
      Type.Object({
        items: Type.Array(
          Type.Object({
            seq: Nat,
            id: Type.String({ description: '<source>:<source_id>' }),
            type: Type.String(),
            data: Type.Object(
              { proposal_id: Type.Optional(Type.Union([Type.String(), Type.Number()])) },
              { additionalProperties: true, description: 'the event as the canister logged it' },
            ),
            occurred_at: Time,
          }),
        ),
        next_after_seq: Type.Optional(Type.Union([Nat, Type.Null()], { description: 'oldest first: the last seq of a full page; null: no more' })),
        next_before_seq: Type.Optional(Type.Union([Nat, Type.Null()], { description: 'order=newest: the last seq of a full page; null: no more' })),
      }),
    ),
    400: err('VALIDATION_ERROR (also after_seq with order=newest, before_seq without it)'),
    401: err('UNAUTHORIZED'),
    403: err('FORBIDDEN'),
  },
};

export const getProposalTimelineDoc: RouteDoc = {
  operationId: 'getProposalTimeline',
  description: 'Public; the proposal’s times, its admin events as the follower stored them (decision V3) and its execution deadline (decision G46).',
  summary: "A proposal's timeline: what happened when, and what is planned (decision V30)",
  tag: 'governance',
  security: 'public',
  responses: {
    200: Json(
      'the steps in order; Cache-Control: public, max-age=5',
      Type.Object({
        proposal_id: Nat,
        status: Status,
        steps: Type.Array(
          Type.Object({
            kind: Type.Union(
              [
                'created',
                'opens',
                'closes',
                'tallied',
                'approved',
                'rejected',
                'result',
                'execution_failed',
                'executed',
                'price_updated',
                'config_changed',
                'expired',
                'execution_deadline',
              ].map((k) => Type.Literal(k)),
            ),
            at: Time,
            done: Type.Boolean({ description: 'false: `at` is the planned time, still ahead' }),
            event: Type.Union(
              [
                Type.Object({
                  id: Type.String({ description: 'governance:<canister event id>' }),
                  type: Type.String(),
                  data: Type.Object({}, { additionalProperties: true, description: 'the event as the canister logged it (decision V3)' }),
                }),
                Type.Null(),
              ],
              { description: 'the admin event that recorded the step; null for a planned step, or before the follower copied it' },
            ),
          }),
        ),
        execution_failures: Nat,
      }),
    ),
    400: err('VALIDATION_ERROR'),
    404: err('ProposalNotFound'),
  },
};

export const getProposalDoc: RouteDoc = {
  operationId: 'getProposal',
  description: 'Public; the proposal with its tally.',
  security: 'public',
  summary: 'One proposal with its tally (decision V12)',
  tag: 'governance',
  responses: {
    200: Json(
      'the proposal; Cache-Control: public, max-age=5',
      Type.Composite([
        ProposalBody,
        Type.Object({
          turnout: Type.Union(
            [
              Type.Object({
                direct: Type.String({ description: 'votes cast directly' }),
                delegated: Type.String({ description: 'delegated ballots counted so far' }),
                delegated_counted: Type.Boolean({ description: 'true once every delegated ballot is counted (after close)' }),
              }),
              Type.Null(),
            ],
            { description: 'direct and delegated turnout apart (decision V27); null before the window opens' },
          ),
        }),
      ]),
    ),
    400: err('VALIDATION_ERROR'),
    404: err('ProposalNotFound'),
  },
};
