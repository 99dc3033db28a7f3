// What the OpenAPI document says of this feature's vote and history routes (decision B124): the member's
// vote, ballots and receipts, a proposal's votes, the governance events and a proposal's timeline.
import { Type } from '@sinclair/typebox';
import { err, Json, type RouteDoc } from '../../core/http/route-doc.ts';
import { Nat, Status, Time } from './view-schemas.ts';

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
        delegate_name: Type.Union([Type.String(), Type.Null()], {
          description: "the delegate's display name (decisions F22, V31); null for a direct vote",
        }),
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
            proposal: Type.Object({
              id: Type.String(),
              title: Type.String(),
              category: Type.String(),
              status: Type.String(),
              voting_closes: Time,
            }),
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
        items: Type.Array(
          Type.Object({
            token_id: Type.String(),
            proposal_id: Type.String(),
            minted_at: Type.Union([Type.String(), Type.Null()]),
          }),
        ),
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
            voter_name: Type.Union([Type.String(), Type.Null()], {
              description: 'display name (decision F22); null for a canister',
            }),
            vote: Type.String(),
            voted_at: Type.String(),
            receipt_token_id: Type.String({ description: '0 for a ballot counted through a delegate (decision G31)' }),
            delegate: Type.Union([Type.String(), Type.Null()], {
              description: 'the delegate whose vote this ballot follows; null: voted directly (decision V27)',
            }),
            delegate_name: Type.Union([Type.String(), Type.Null()], {
              description: "the delegate's display name (decision V31)",
            }),
            reason: Type.Union([Type.String(), Type.Null()], {
              description: 'the reason given with the vote (decision V28)',
            }),
          }),
        ),
        next_after: Type.Union([Type.String(), Type.Null()], {
          description: 'the last voter of a full page: ask again with after=<it>; null: no more',
        }),
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
        next_after_seq: Type.Optional(
          Type.Union([Nat, Type.Null()], { description: 'oldest first: the last seq of a full page; null: no more' }),
        ),
        next_before_seq: Type.Optional(
          Type.Union([Nat, Type.Null()], { description: 'order=newest: the last seq of a full page; null: no more' }),
        ),
      }),
    ),
    400: err('VALIDATION_ERROR (also after_seq with order=newest, before_seq without it)'),
    401: err('UNAUTHORIZED'),
    403: err('FORBIDDEN'),
  },
};

export const getProposalTimelineDoc: RouteDoc = {
  operationId: 'getProposalTimeline',
  description:
    'Public; the proposal’s times, its admin events as the follower stored them (decision V3) and its execution deadline (decision G46).',
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
                  data: Type.Object(
                    {},
                    { additionalProperties: true, description: 'the event as the canister logged it (decision V3)' },
                  ),
                }),
                Type.Null(),
              ],
              {
                description:
                  'the admin event that recorded the step; null for a planned step, or before the follower copied it',
              },
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
