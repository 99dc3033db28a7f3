// The governance gateway's vote and history routes (decisions V15, V25–V31, F53): the member's own vote,
// ballots and receipts, a proposal's votes, the governance events for admins and a proposal's timeline.
import { Type } from '@sinclair/typebox';
import { Int8Text } from '../../core/http/decimal.ts';
import { HttpError } from '../../core/http/errors.ts';
import { routeSchema } from '../../core/http/route-doc.ts';
import type { BridgeApp } from '../../core/http/typed.ts';
import { governanceHttpError } from './errors.ts';
import type { Governance, GovernanceGatewayOptions } from './options.ts';
import { Principal } from './payload.ts';
import { ID, idParams, nat64 } from './requests.ts';
import { proposalTimeline } from './timeline.ts';
import { proposalView } from './views.ts';
import {
  getMyVoteDoc,
  getProposalTimelineDoc,
  listGovernanceEventsDoc,
  listMyRecentBallotsDoc,
  listMyVoteReceiptsDoc,
  listProposalVotesDoc,
} from './vote-docs.ts';

/** The largest page of votes (the canister answers at most 200 a call, decision V25), and the default (decision V31). */
const VOTES_PAGE = 200;
const VOTES_DEFAULT = 100;
/** GET /api/governance/my-ballots: the latest proposals it reads (one canister read each), by default and at most (decision F53). */
export const RECENT_BALLOTS_DEFAULT = 10;
export const RECENT_BALLOTS_MAX = 20;

const iso = (ns: bigint) => new Date(Number(ns / 1_000_000n)).toISOString();

export default function voteRoutes(app: BridgeApp, opts: GovernanceGatewayOptions): void {
  app.get(
    '/api/governance/proposals/:id/my-vote',
    { schema: { ...routeSchema(getMyVoteDoc), params: idParams } },
    async (req, reply) => {
      const session = await opts.requireSession(req);
      const { id } = req.params;
      const ballot = await (await opts.governanceAs(session)).get_my_ballot(nat64(id));
      reply.header('cache-control', 'private, no-cache');
      // Decision V27: the receipt says how the vote was cast: directly, or by a delegate (final once counted).
      return {
        proposal_id: id,
        vote: ballot?.vote ?? null,
        cast: ballot === undefined ? null : ballot.delegate === undefined ? 'direct' : 'delegate',
        delegate: ballot?.delegate ?? null,
        // Decision V31: the delegate's display name beside the principal (F22).
        delegate_name:
          ballot?.delegate === undefined ? null : ((await opts.names([ballot.delegate])).get(ballot.delegate) ?? null),
        reason: ballot?.reason ?? null,
        final: ballot?.final ?? false,
      };
    },
  );

  // Decision F53: the member's ballots on the latest proposals in one answer (the delegation page read
  // one my-vote a proposal, ten requests); the canister is asked as the member, the reads in parallel.
  const ballotsQuery = Type.Object(
    {
      limit: Type.Optional(Type.Integer({ minimum: 1, maximum: RECENT_BALLOTS_MAX, default: RECENT_BALLOTS_DEFAULT })),
    },
    { additionalProperties: false },
  );
  app.get(
    '/api/governance/my-ballots',
    { schema: { ...routeSchema(listMyRecentBallotsDoc), querystring: ballotsQuery } },
    async (req, reply) => {
      const session = await opts.requireSession(req);
      const { limit = RECENT_BALLOTS_DEFAULT } = req.query;
      const opened = (await opts.governance.list_proposals({ limit })).filter((p) => p.status !== 'Created');
      const g = await opts.governanceAs(session);
      const ballots = await Promise.all(opened.map((p) => g.get_my_ballot(p.id)));
      const names = await opts.names(ballots.flatMap((b) => (b?.delegate === undefined ? [] : [b.delegate])));
      reply.header('cache-control', 'private, no-cache');
      return {
        items: opened.map((p, i) => {
          const b = ballots[i];
          return {
            proposal: {
              id: p.id.toString(),
              title: p.title,
              category: p.category,
              status: p.status,
              voting_closes: iso(p.voting_closes),
            },
            vote: b?.vote ?? null,
            cast: b === undefined ? null : b.delegate === undefined ? 'direct' : 'delegate',
            delegate: b?.delegate ?? null,
            delegate_name: b?.delegate === undefined ? null : (names.get(b.delegate) ?? null),
            final: b?.final ?? false,
          };
        }),
      };
    },
  );

  const eventsQuery = Type.Object(
    {
      after_seq: Type.Optional(Int8Text('cursor: events after this sequence number, oldest first')),
      order: Type.Optional(Type.Union([Type.Literal('oldest'), Type.Literal('newest')], { default: 'oldest' })),
      before_seq: Type.Optional(
        Int8Text('with order=newest: events before this sequence number (the last `seq` of the page before)'),
      ),
      limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 100 })),
    },
    { additionalProperties: false },
  );
  app.get(
    '/api/governance/admin/events',
    { preHandler: opts.admin, schema: { ...routeSchema(listGovernanceEventsDoc), querystring: eventsQuery } },
    async (req) => {
      const { after_seq, before_seq, order = 'oldest', limit = 100 } = req.query;
      // Decision F53: the console reads the newest first, a page at a time, older pages by before_seq.
      if (order === 'newest' ? after_seq !== undefined : before_seq !== undefined)
        throw new HttpError(
          400,
          'VALIDATION_ERROR',
          order === 'newest'
            ? 'after_seq: not with order=newest (use before_seq)'
            : 'before_seq: only with order=newest',
        );
      let q = opts.db
        .selectFrom('bridge_events')
        .select(['seq', 'type', 'data', 'source', 'source_id', 'occurred_at'])
        .where('source', '=', 'governance')
        .limit(limit);
      q = order === 'newest' ? q.orderBy('seq', 'desc') : q.orderBy('seq').where('seq', '>', after_seq ?? '0');
      if (before_seq !== undefined) q = q.where('seq', '<', before_seq);
      const items = (await q.execute()).map((r) => ({
        seq: String(r.seq),
        id: `${r.source}:${r.source_id}`,
        type: r.type,
        data: r.data,
        occurred_at: new Date(r.occurred_at).toISOString(),
      }));
      const last = items.length === limit ? items[items.length - 1]!.seq : null;
      return order === 'newest' ? { items, next_before_seq: last } : { items, next_after_seq: last };
    },
  );

  // Spec 1 Events rule 2: the member's vote-pass receipts (ICRC-7, public on the canister), newest
  // token last, paged by the last token id seen.
  const receiptsQuery = Type.Object(
    { prev: Type.Optional(ID), take: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })) },
    { additionalProperties: false },
  );
  app.get(
    '/api/governance/my-receipts',
    { schema: { ...routeSchema(listMyVoteReceiptsDoc), querystring: receiptsQuery } },
    async (req, reply) => {
      const session = await opts.requireSession(req);
      const { prev, take = 20 } = req.query;
      const ids = await opts.governance.icrc7_tokens_of(
        { owner: session.principal },
        prev === undefined ? undefined : nat64(prev),
        BigInt(take),
      );
      const metadata = ids.length ? await opts.governance.icrc7_token_metadata(ids) : [];
      const items = ids.map((id, i) => {
        const m = new Map(metadata[i] ?? []);
        const nat = (k: string) => {
          const v = m.get(k) as { Nat?: bigint } | undefined;
          return v?.Nat;
        };
        return {
          token_id: String(id),
          proposal_id: String(nat('proposal_id') ?? ''),
          minted_at: nat('minted_at') === undefined ? null : iso(nat('minted_at')!),
        };
      });
      reply.header('cache-control', 'private, no-cache');
      return {
        principal: session.principal,
        items,
        next_prev: items.length === take ? items[items.length - 1]!.token_id : null,
      };
    },
  );

  // Spec 1 Authentication rule 2: votes are visible to admins only. The bridge, a governance admin
  // (decision V22), reads them for a platform admin, a page at a time (decision V31: list_votes_page,
  // decision V25, in voter order after `after`).
  const votesQuery = Type.Object(
    {
      after: Type.Optional(Principal),
      limit: Type.Optional(Type.Integer({ minimum: 1, maximum: VOTES_PAGE, default: VOTES_DEFAULT })),
    },
    { additionalProperties: false },
  );
  app.get(
    '/api/governance/proposals/:id/votes',
    {
      preHandler: opts.admin,
      schema: { ...routeSchema(listProposalVotesDoc), params: idParams, querystring: votesQuery },
    },
    async (req, reply) => {
      const { id } = req.params;
      const { after, limit = VOTES_DEFAULT } = req.query;
      if (!(await opts.governance.get_proposal(nat64(id)))) throw governanceHttpError({ ProposalNotFound: null });
      let votes: Awaited<ReturnType<Governance['list_votes_page']>>;
      try {
        votes = await opts.governance.list_votes_page(nat64(id), after, limit);
      } catch (err) {
        if (/NotAuthorized/.test(err instanceof Error ? err.message : String(err))) {
          throw new HttpError(
            503,
            'NOT_CONFIGURED',
            "the bridge's principal is not a governance admin, so it cannot read votes (install governance with it among the admins)",
          );
        }
        throw err;
      }
      reply.header('cache-control', 'private, no-store');
      const names = await opts.names(
        votes.flatMap((v) => (v.delegate === undefined ? [v.voter] : [v.voter, v.delegate])),
      );
      return {
        proposal_id: id,
        items: votes.map((v) => ({
          voter: v.voter,
          voter_name: names.get(v.voter) ?? null,
          vote: v.vote,
          voted_at: iso(v.voted_at),
          receipt_token_id: String(v.receipt_token_id),
          delegate: v.delegate ?? null,
          delegate_name: v.delegate === undefined ? null : (names.get(v.delegate) ?? null),
          reason: v.reason ?? null,
        })),
        next_after: votes.length === limit ? votes.at(-1)!.voter : null,
      };
    },
  );

  // Decision V30: the proposal's timeline, from its own times, its admin events and its execution deadline (G46).
  app.get(
    '/api/governance/proposals/:id/timeline',
    {
      schema: {
        ...routeSchema(getProposalTimelineDoc),
        operationId: 'getProposalTimeline',
        summary: "A proposal's timeline: what happened when, and what is planned (decision V30)",
        description:
          'Public. Steps in order: created, opens, closes, tallied, approved or rejected (`result` while still ahead), the newest execution failures, executed (with price_updated / config_changed) or expired, or `execution_deadline` while execution is ahead. A past step carries the admin event that recorded it (null until the follower copied it; `at` is then the proposal’s own time); a step still ahead has `done: false` and its planned time.',
        security: [],
        params: idParams,
      },
    },
    async (req, reply) => {
      const { id } = req.params;
      const p = await opts.governance.get_proposal(nat64(id));
      if (!p) throw governanceHttpError({ ProposalNotFound: null });
      const deadline = await opts.governance.get_execution_deadline(nat64(id));
      reply.header('cache-control', 'public, max-age=5');
      return proposalTimeline(opts.db, proposalView(p), deadline === undefined ? null : iso(deadline));
    },
  );
}
