// What the OpenAPI document says of this feature's proposal and price routes (decision B124): each
// route's schema spreads its doc through routeSchema() beside the handler. Votes and history: vote-docs.ts.
import { Type } from '@sinclair/typebox';
import { err, Json, type RouteDoc } from '../../core/http/route-doc.ts';
import { ProposalBody, Settings, Tick } from './view-schemas.ts';

export const createProposalDoc: RouteDoc = {
  operationId: 'createProposal',
  description:
    'Session required (cross-site rule, bearer-defect rule); the proposal is created on the governance canister as the member.',
  summary: 'Create a proposal as the signed-in member; payload per category (spec 1 bridge endpoints; decision V13)',
  tag: 'governance',
  security: 'session',
  responses: {
    201: Json(
      'created',
      Type.Object({
        proposal_id: Type.String(),
        status: Type.String(),
        voting_opens: Type.String(),
        voting_closes: Type.String(),
      }),
    ),
    400: err(
      'VALIDATION_ERROR (payload.<field>: …) or InvalidPayload (the canister’s reason, naming the field; decision G22)',
    ),
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
    200: Json(
      'vote recorded',
      Type.Object({ proposal_id: Type.String(), vote: Type.String(), reason: Type.Optional(Type.String()) }),
    ),
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
    200: Json(
      'proposals; Cache-Control: public, max-age=5',
      Type.Object({ items: Type.Array(ProposalBody), limit: Type.Integer() }),
    ),
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
    200: Json(
      'ratified prices, newest first; Cache-Control: public, max-age=30',
      Type.Object({ items: Type.Array(Tick) }),
    ),
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
                delegated_counted: Type.Boolean({
                  description: 'true once every delegated ballot is counted (after close)',
                }),
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
