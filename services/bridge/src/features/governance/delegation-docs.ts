// What the OpenAPI document says of this feature's routes (decision B124): each route's schema spreads its
// doc through routeSchema() beside the handler.
import { Type } from '@sinclair/typebox';
import { err, Json, type RouteDoc } from '../../core/http/route-doc.ts';

const Delegations = Type.Array(
  Type.Object({
    category: Type.Union([Type.String(), Type.Null()]),
    delegate: Type.String(),
    delegate_name: Type.Union([Type.String(), Type.Null()], {
      description: "the delegate's display name (decisions F22, V31)",
    }),
    since: Type.String(),
    show_name: Type.Boolean(),
  }),
);

/** Decision B108: a delegate's statement and following; the counts only beside a statement. */
const DelegateProfile = Type.Object({
  principal: Type.String(),
  display_name: Type.Union([Type.String(), Type.Null()], { description: 'decision F22' }),
  statement: Type.Union([Type.String(), Type.Null()], { description: 'at most 500 characters; null: none written' }),
  updated_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  members: Type.Union([Type.String(), Type.Null()], {
    description:
      'members the delegate votes for now, each once whatever their categories (null without a statement, or past 2,000 delegations)',
  }),
  delegations: Type.Union([Type.String(), Type.Null()], {
    description: 'delegations made to them now, one a category (G33); null without a statement',
  }),
});

const CHANGES_LIMITED =
  'RATE_LIMITED, with Retry-After: DELEGATION_CHANGE_LIMIT_PER_HOUR delegations set or taken back (PUT and DELETE together) per member per hour (decision V36)';

export const getMyDelegationsDoc: RouteDoc = {
  operationId: 'getMyDelegations',
  description: 'Session required; read as the member from the governance canister.',
  summary: "The member's delegations in force, and how many delegate to them (decision V26)",
  tag: 'governance',
  security: 'session',
  responses: {
    200: Json(
      'the delegations',
      Type.Object({ principal: Type.String(), delegations: Delegations, delegators: Type.String() }),
    ),
    401: err('UNAUTHORIZED or SESSION_REQUIRED'),
  },
};

export const setDelegationDoc: RouteDoc = {
  operationId: 'setDelegation',
  description:
    'Session required (cross-site rule); set on the governance canister as the member; it applies to proposals whose voting opens afterwards (decision G30).',
  summary: 'Delegate your vote, for all categories or one (decisions V26, G28–G31)',
  tag: 'governance',
  security: 'session',
  responses: {
    200: Json('the delegations now', Type.Object({ delegations: Delegations })),
    400: err('VALIDATION_ERROR, SelfDelegation or DelegateNotAMember'),
    401: err('UNAUTHORIZED or SESSION_REQUIRED'),
    403: err('NotAMember or CSRF_REJECTED'),
    429: err(CHANGES_LIMITED),
    503: err('MembershipUnavailable'),
  },
};

export const revokeDelegationDoc: RouteDoc = {
  operationId: 'revokeDelegation',
  description: 'Session required (cross-site rule); revoked on the governance canister as the member.',
  summary: 'Take back a delegation, for one category or the one for all (decision V26)',
  tag: 'governance',
  security: 'session',
  responses: {
    200: Json('the delegations now', Type.Object({ delegations: Delegations })),
    400: err('VALIDATION_ERROR'),
    401: err('UNAUTHORIZED or SESSION_REQUIRED'),
    403: err('CSRF_REJECTED'),
    404: err('NotDelegating'),
    429: err(CHANGES_LIMITED),
  },
};

export const listMyDelegatorsDoc: RouteDoc = {
  operationId: 'listMyDelegators',
  description:
    'Session required; names only where the delegator allowed it (decision G33). `key` and `next_after` are opaque cursors, valid only for the member who got them and new in every answer: nothing in an item names a delegator who chose not to be shown (decision V33).',
  summary: 'Delegations made to you: the count, and a page with names only where given (decisions V27, G33)',
  tag: 'governance',
  security: 'session',
  responses: {
    200: Json(
      'a page',
      Type.Object({
        total: Type.String(),
        items: Type.Array(
          Type.Object({
            key: Type.String({
              description: 'an opaque cursor: ask again with after=<it> for the items after this one (decision V33)',
            }),
            category: Type.Union([Type.String(), Type.Null()]),
            member: Type.Union([Type.String(), Type.Null()]),
            member_name: Type.Union([Type.String(), Type.Null()], {
              description: 'their display name, only where they chose show_name (decisions G33, V31)',
            }),
          }),
        ),
        next_after: Type.Union([Type.String(), Type.Null()], {
          description: 'the last key of a full page; null: no more',
        }),
      }),
    ),
    400: err('VALIDATION_ERROR (also an `after` that is not a cursor this bridge gave the member)'),
    401: err('UNAUTHORIZED or SESSION_REQUIRED'),
  },
};

export const listDelegatesDoc: RouteDoc = {
  operationId: 'listDelegates',
  description:
    'Session required. Members who wrote a delegate statement, newest statement first; page with `after` = `next_after`. The counts are read from the governance canister as each delegate (G33).',
  summary: 'Members who offer to be delegates: their statements and how many members each votes for (decision B108)',
  tag: 'governance',
  security: 'session',
  responses: {
    200: Json(
      'a page of delegate profiles',
      Type.Object({ items: Type.Array(DelegateProfile), next_after: Type.Union([Type.String(), Type.Null()]) }),
    ),
    400: err('VALIDATION_ERROR'),
    401: err('UNAUTHORIZED or SESSION_REQUIRED'),
  },
};

export const getDelegateDoc: RouteDoc = {
  operationId: 'getDelegate',
  description:
    'Session required. A member without a statement answers `statement`, `updated_at`, `members` and `delegations` null: how many follow a member is shown only once they offer to be a delegate.',
  summary: 'A member as a delegate: their statement and how many members they vote for (decision B108)',
  tag: 'governance',
  security: 'session',
  responses: {
    200: Json('the profile', DelegateProfile),
    400: err('VALIDATION_ERROR'),
    401: err('UNAUTHORIZED or SESSION_REQUIRED'),
    404: err('NOT_FOUND: no member has this principal'),
  },
};

export const setDelegateStatementDoc: RouteDoc = {
  operationId: 'setDelegateStatement',
  description:
    'Session required (cross-site rule). Stored as NFC with bidi controls dropped (decision F41), tabs as spaces and line breaks as \\n, at most two in a row; control characters and stacks of more than four combining marks are refused; at most 500 characters once trimmed. Empty or null removes it.',
  summary: 'Write, change or remove your statement as a delegate (decision B108)',
  tag: 'governance',
  security: 'session',
  responses: {
    200: Json('your profile as members now see it', DelegateProfile),
    400: err('VALIDATION_ERROR: too long, a control character, a stack of combining marks'),
    401: err('UNAUTHORIZED or SESSION_REQUIRED'),
    403: err('CSRF_REJECTED'),
  },
};

export const listVoteReasonsDoc: RouteDoc = {
  operationId: 'listVoteReasons',
  description: "Public: reasons without voters, as the canister's list_vote_reasons gives them.",
  summary: 'Reasons given with votes on a proposal, without voters (decisions V28, G34)',
  tag: 'governance',
  security: 'public',
  responses: {
    200: Json(
      'a page, oldest first',
      Type.Object({
        proposal_id: Type.String(),
        items: Type.Array(Type.Object({ seq: Type.String(), vote: Type.String(), reason: Type.String() })),
        next_after: Type.Union([Type.String(), Type.Null()]),
      }),
    ),
    400: err('VALIDATION_ERROR'),
    404: err('ProposalNotFound'),
  },
};
