// Liquid democracy through the bridge (decisions V26–V28, on the canister's G28–G33): a member reads,
// sets and revokes their delegation per category (or for all), and a delegate sees how many delegate
// to them, with the principals of those who allowed it. Called as the member; canister errors map as
// every governance route's do (errors.ts).
import { Type } from '@sinclair/typebox';
import { HttpError } from '../../core/http/errors.ts';
import type { BridgeApp } from '../../core/http/typed.ts';
import { delegatorCursors } from './cursor.ts';
import { governanceHttpError } from './errors.ts';
import type { GovernanceGatewayOptions } from './options.ts';
import { MUTATION_BODY_LIMIT } from './requests.ts';
import { CATEGORIES, Principal } from './payload.ts';
import { routeSchema } from '../../core/http/route-doc.ts';
import { getMyDelegationsDoc, setDelegationDoc, revokeDelegationDoc, listMyDelegatorsDoc } from './delegation-docs.ts';

const iso = (ns: bigint) => new Date(Number(ns / 1_000_000n)).toISOString();
const security = [{ sessionCookie: [] }];
const Category = Type.Union(CATEGORIES.map((c) => Type.Literal(c)));

export default function delegationRoutes(app: BridgeApp, opts: GovernanceGatewayOptions): void {
  const cursors = delegatorCursors(opts.cursorKey);
  // Decision V31: each delegate's display name beside the principal (F22).
  const mine = async (g: Awaited<ReturnType<GovernanceGatewayOptions['governanceAs']>>) => {
    const ds = await g.get_my_delegations();
    const names = await opts.names(ds.map((d) => d.delegate));
    return ds.map((d) => ({
      category: d.category ?? null,
      delegate: d.delegate,
      delegate_name: names.get(d.delegate) ?? null,
      since: iso(d.since),
      show_name: d.show_name,
    }));
  };

  app.get(
    '/api/governance/delegation',
    {
      schema: {
        ...routeSchema(getMyDelegationsDoc),
        operationId: 'getDelegation',
        summary: "The member's delegations in force, and how many delegate to them (decision V26)",
        description:
          'Each delegation: its category (null: all categories where no per-category one applies), the delegate, since when, and whether the delegate may see the member. `delegators` counts the delegations made to the member now.',
        security,
      },
    },
    async (req, reply) => {
      const session = await opts.requireSession(req);
      const g = await opts.governanceAs(session);
      const page = await g.list_my_delegators(undefined, 1);
      reply.header('cache-control', 'private, no-cache');
      return { principal: session.principal, delegations: await mine(g), delegators: String(page.total) };
    },
  );

  const putBody = Type.Object(
    {
      delegate: Principal,
      category: Type.Optional(Type.Union([Category, Type.Null()], { description: 'absent or null: all categories' })),
      show_name: Type.Optional(Type.Boolean({ default: false, description: 'let the delegate see who you are' })),
    },
    { additionalProperties: false },
  );
  app.put(
    '/api/governance/delegation',
    {
      bodyLimit: MUTATION_BODY_LIMIT,
      schema: {
        ...routeSchema(setDelegationDoc),
        operationId: 'setDelegation',
        summary: 'Delegate your vote, for all categories or one (decision V26)',
        description:
          "Replaces the delegation in force for that scope. It applies to proposals whose voting opens after now (decision G30); your own vote on a proposal always replaces your delegate's before it closes. Errors: SelfDelegation 400, DelegateNotAMember 400, NotAMember 403, MembershipUnavailable 503.",
        security,
        body: putBody,
      },
    },
    async (req) => {
      const session = await opts.requireSession(req);
      const { delegate, category, show_name = false } = req.body;
      // Decision V36: each change is a permanent history record on the canister.
      await opts.limit(req, session.user_id, 'delegation_changes');
      const g = await opts.governanceAs(session);
      const r = await g.set_delegation({ delegate, show_name, ...(category && { category }) });
      if ('Err' in r) {
        req.log.info(
          { event: 'governance.delegation_refused', user_id: session.user_id, code: Object.keys(r.Err)[0] },
          'delegation refused',
        );
        throw governanceHttpError(r.Err);
      }
      req.log.info(
        { event: 'governance.delegated', user_id: session.user_id, category: category ?? 'All' },
        'delegation set',
      );
      return { delegations: await mine(g) };
    },
  );

  const scopeQuery = Type.Object({ category: Type.Optional(Category) }, { additionalProperties: false });
  app.delete(
    '/api/governance/delegation',
    {
      schema: {
        ...routeSchema(revokeDelegationDoc),
        operationId: 'revokeDelegation',
        summary: 'Take back a delegation: for one category, or (no category) the one for all categories (decision V26)',
        description:
          'Applies to proposals whose voting opens after now (decision G30). NotDelegating 404 when there is none for that scope.',
        security,
        querystring: scopeQuery,
      },
    },
    async (req) => {
      const session = await opts.requireSession(req);
      await opts.limit(req, session.user_id, 'delegation_changes');
      const g = await opts.governanceAs(session);
      const r = await g.revoke_delegation(req.query.category);
      if ('Err' in r) throw governanceHttpError(r.Err);
      req.log.info(
        { event: 'governance.delegation_revoked', user_id: session.user_id, category: req.query.category ?? 'All' },
        'delegation revoked',
      );
      return { delegations: await mine(g) };
    },
  );

  const delegatorsQuery = Type.Object(
    {
      after: Type.Optional(
        Type.String({
          maxLength: 400,
          description: 'an item’s `key` or `next_after` of an earlier page (opaque, decision V33)',
        }),
      ),
      limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 100 })),
    },
    { additionalProperties: false },
  );
  app.get(
    '/api/governance/delegation/delegators',
    {
      schema: {
        ...routeSchema(listMyDelegatorsDoc),
        operationId: 'listDelegators',
        summary: 'Who delegates to you: the count, and a page of delegations (decisions V27, G33)',
        description:
          'Each item: its category (null: all categories) and the member’s principal only where they allowed it (show_name), else null. Page with `after` = `next_after` (or an item’s `key`): opaque, valid only for you, new in every answer; nothing in an item names a member who chose not to be shown (decision V33).',
        security,
        querystring: delegatorsQuery,
      },
    },
    async (req, reply) => {
      const session = await opts.requireSession(req);
      const { after, limit = 100 } = req.query;
      const from = after === undefined ? undefined : cursors.open(session.principal, after);
      if (after !== undefined && from === undefined) {
        req.log.info(
          { event: 'governance.delegators_cursor_refused', user_id: session.user_id },
          'not a cursor of this list',
        );
        throw new HttpError(
          400,
          'VALIDATION_ERROR',
          'after: not a cursor of your delegators list; use next_after of an earlier page',
        );
      }
      const page = await (await opts.governanceAs(session)).list_my_delegators(from, limit);
      reply.header('cache-control', 'private, no-cache');
      // Decision V31: the name only beside a principal the member chose to show (G33).
      const names = await opts.names(page.items.flatMap((i) => (i.member === undefined ? [] : [i.member])));
      const items = page.items.map((i) => ({
        key: cursors.seal(session.principal, i.key),
        category: i.category ?? null,
        member: i.member ?? null,
        member_name: i.member === undefined ? null : (names.get(i.member) ?? null),
      }));
      return { total: String(page.total), items, next_after: items.length === limit ? items.at(-1)!.key : null };
    },
  );
}
