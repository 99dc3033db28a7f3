// Governance gateway (decisions V8–V12): members vote and execute through the bridge, which
// calls the governance canister as the member (their derived principal, decision V5); front ends
// never call canisters. Every mutation: session cookie, cross-site rule, JSON body of bounded size.
// Canister errors become HTTP errors with the variant's name as the code (errors.ts). The routes of
// votes and history are votes.ts's; delegation's, delegation.ts's and delegate-profiles.ts's.
import { Type } from '@sinclair/typebox';
import { HttpError } from '../../core/http/errors.ts';
import { addEtags } from '../../core/http/etag.ts';
import { governanceHttpError } from './errors.ts';
import { plain, proposalView, tickView } from './views.ts';
import { CATEGORIES, canisterPayload } from './payload.ts';
import {
  executeBody,
  ID,
  idParams,
  MUTATION_BODY_LIMIT,
  nat64,
  PROPOSE_BODY_LIMIT,
  proposeBody,
  voteBody,
} from './requests.ts';
import delegationRoutes from './delegation.ts';
import delegateProfiles from './delegate-profiles.ts';
import { readableViews } from './payload-context.ts';
import type { BridgeApp } from '../../core/http/typed.ts';
import { routeSchema } from '../../core/http/route-doc.ts';
import { listVoteReasonsDoc } from './delegation-docs.ts';
import {
  createProposalDoc,
  castVoteDoc,
  executeProposalDoc,
  listProposalsDoc,
  getRatifiedPriceDoc,
  listRatifiedPricesDoc,
  getGovernanceSettingsDoc,
  getProposalDoc,
} from './route-docs.ts';

import type { GovernanceGatewayOptions } from './options.ts';
import voteRoutes from './votes.ts';

export default async function governanceGateway(app: BridgeApp, opts: GovernanceGatewayOptions): Promise<void> {
  // Decision V23: every 200 GET here carries an ETag; If-None-Match → 304.
  addEtags(app);

  app.post(
    '/api/governance/propose',
    { bodyLimit: PROPOSE_BODY_LIMIT, schema: { ...routeSchema(createProposalDoc), body: proposeBody } },
    async (req, reply) => {
      const session = await opts.requireSession(req);
      const b = req.body;
      const payload = canisterPayload(b.category, b.payload);
      // Decision V35: counted once the request is valid and about to reach the canister.
      await opts.limit(req, session.user_id, 'proposals');
      const r = await (
        await opts.governanceAs(session)
      ).create_proposal({
        title: b.title,
        body: b.body,
        category: b.category,
        ...(payload !== undefined && { payload: payload as never }),
      });
      if ('Err' in r) throw governanceHttpError(r.Err);
      const p = (await opts.governance.get_proposal(r.Ok))!;
      req.log.info(
        { event: 'governance.proposed', proposal_id: String(r.Ok), category: b.category, user_id: session.user_id },
        'proposal created',
      );
      const v = proposalView(p);
      return reply
        .code(201)
        .send({ proposal_id: v.id, status: v.status, voting_opens: v.voting_opens, voting_closes: v.voting_closes });
    },
  );

  app.post(
    '/api/governance/vote',
    { bodyLimit: MUTATION_BODY_LIMIT, schema: { ...routeSchema(castVoteDoc), body: voteBody } },
    async (req) => {
      const session = await opts.requireSession(req);
      const { proposal_id, vote, reason } = req.body;
      const g = await opts.governanceAs(session);
      // Decision V28: with a reason, the canister's cast_vote_with_reason; without, cast_vote as before.
      const r =
        reason === undefined
          ? await g.cast_vote(nat64(proposal_id), vote)
          : await g.cast_vote_with_reason(nat64(proposal_id), vote, reason);
      if ('Err' in r) throw governanceHttpError(r.Err);
      req.log.info({ event: 'governance.voted', proposal_id, user_id: session.user_id }, 'vote cast');
      await opts.announceVote?.(proposal_id, session.principal, vote);
      return { proposal_id, vote, ...(reason !== undefined && reason.trim() !== '' && { reason: reason.trim() }) };
    },
  );

  app.post(
    '/api/governance/execute',
    { bodyLimit: MUTATION_BODY_LIMIT, schema: { ...routeSchema(executeProposalDoc), body: executeBody } },
    async (req) => {
      const session = await opts.requireSession(req);
      const { proposal_id } = req.body;
      const r = await (await opts.governanceAs(session)).execute_proposal(nat64(proposal_id));
      if ('Err' in r) throw governanceHttpError(r.Err);
      const p = await opts.governance.get_proposal(nat64(proposal_id));
      return { proposal_id, status: p?.status ?? 'Executed' };
    },
  );

  const listQuery = Type.Object(
    {
      status: Type.Optional(
        Type.Union(
          ['Created', 'Open', 'Tallied', 'Approved', 'Rejected', 'Executed', 'Expired'].map((x) => Type.Literal(x)),
        ),
      ),
      category: Type.Optional(Type.Union(CATEGORIES.map((c) => Type.Literal(c)))),
      from_id: Type.Optional(ID),
      limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
    },
    { additionalProperties: false },
  );
  app.get(
    '/api/governance/proposals',
    { schema: { ...routeSchema(listProposalsDoc), querystring: listQuery } },
    async (req, reply) => {
      const q = req.query;
      const limit = q.limit ?? 20;
      const items = await opts.governance.list_proposals({
        ...(q.status && { status: q.status as never }),
        ...(q.category && { category: q.category }),
        ...(q.from_id !== undefined && { from_id: nat64(q.from_id) }),
        limit,
      });
      reply.header('cache-control', 'public, max-age=5');
      return { items: await readableViews(opts, items), limit };
    },
  );

  app.get('/api/governance/price', { schema: { ...routeSchema(getRatifiedPriceDoc) } }, async (_req, reply) => {
    const tick = await opts.governance.get_dom_price();
    if (!tick) throw new HttpError(404, 'NO_RATIFIED_PRICE', 'no price has been ratified yet');
    reply.header('cache-control', 'public, max-age=30');
    return tickView(tick);
  });

  const historyQuery = Type.Object(
    { limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 50 })) },
    { additionalProperties: false },
  );
  app.get(
    '/api/governance/price/history',
    { schema: { ...routeSchema(listRatifiedPricesDoc), querystring: historyQuery } },
    async (req, reply) => {
      const { limit = 50 } = req.query;
      reply.header('cache-control', 'public, max-age=30');
      return { items: (await opts.governance.list_price_history(limit)).map(tickView) };
    },
  );

  app.get('/api/governance/settings', { schema: { ...routeSchema(getGovernanceSettingsDoc) } }, async (_req, reply) => {
    const s = await opts.governance.get_settings();
    reply.header('cache-control', 'public, max-age=60');
    return plain(s);
  });

  voteRoutes(app, opts);

  app.get(
    '/api/governance/proposals/:id',
    { schema: { ...routeSchema(getProposalDoc), params: idParams } },
    async (req, reply) => {
      const { id } = req.params;
      const p = await opts.governance.get_proposal(nat64(id));
      if (!p) throw governanceHttpError({ ProposalNotFound: null });
      const turnout = await opts.governance.get_turnout(nat64(id));
      // Status and tally move while voting: short shared caching, revalidated by clients.
      reply.header('cache-control', 'public, max-age=5');
      // Decision V27: direct and delegated turnout apart (delegated votes are counted after close).
      return { ...(await readableViews(opts, [p]))[0]!, turnout: turnout === undefined ? null : plain(turnout) };
    },
  );

  // Decision V28: the reasons given with votes, oldest first, without their voters (spec 1 Authentication rule 2).
  const reasonsQuery = Type.Object(
    { after: Type.Optional(ID), limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })) },
    { additionalProperties: false },
  );
  app.get(
    '/api/governance/proposals/:id/reasons',
    {
      schema: {
        ...routeSchema(listVoteReasonsDoc),
        operationId: 'listVoteReasons',
        summary: 'Reasons given with votes on a proposal, without voters (decision V28)',
        description: 'Oldest first; page with `after` = the last item’s `seq`. Each item: seq, vote, reason.',
        params: idParams,
        querystring: reasonsQuery,
      },
    },
    async (req, reply) => {
      const { id } = req.params;
      const { after, limit = 50 } = req.query;
      if (!(await opts.governance.get_proposal(nat64(id)))) throw governanceHttpError({ ProposalNotFound: null });
      const items = (
        await opts.governance.list_vote_reasons(nat64(id), after === undefined ? undefined : nat64(after), limit)
      ).map((r) => ({
        seq: String(r.seq),
        vote: r.vote,
        reason: r.reason,
      }));
      reply.header('cache-control', 'public, max-age=5');
      return { proposal_id: id, items, next_after: items.length === limit ? items.at(-1)!.seq : null };
    },
  );

  delegationRoutes(app, opts);
  delegateProfiles(app, opts);
}
