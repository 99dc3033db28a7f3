// Delegate profiles (decision B108): a member who offers to be a delegate writes a short statement
// (statement-rules.ts), which members choosing a delegate read beside how many members that delegate
// votes for now. The statement lives in the bridge's database; the count is the governance canister's
// (G33), read as the delegate (the canister answers it to the delegate only) and shown only for a
// member who published a statement: following is published by offering oneself, never by being chosen.
import { Type } from '@sinclair/typebox';
import { sql } from 'kysely';
import { HttpError } from '../../core/http/errors.ts';
import type { BridgeApp } from '../../core/http/typed.ts';
import type { GovernanceGatewayOptions } from './options.ts';
import { MUTATION_BODY_LIMIT } from './requests.ts';
import { Principal } from './payload.ts';
import { normaliseStatement, STATEMENT_MAX_CHARS } from './statement-rules.ts';
import { routeSchema } from '../../core/http/route-doc.ts';
import { listDelegatesDoc, getDelegateDoc, setDelegateStatementDoc } from './delegation-docs.ts';

/** list_my_delegators' largest page (G33), and how many delegations a count reads at most. */
const DELEGATORS_PAGE = 500;
export const COUNT_MAX_DELEGATIONS = 2_000;
const LIST_DEFAULT = 10;
const LIST_MAX = 20;

type Governance = Awaited<ReturnType<GovernanceGatewayOptions['governanceAs']>>;

/**
 * The members `g`'s caller votes for now, and their delegations (a member delegating several categories
 * counts once in `members`, once a category in `delegations`). The canister's page key is
 * `<delegate>|<member>|<scope>` (cursor.ts), in member order, so one walk counts distinct members;
 * past COUNT_MAX_DELEGATIONS `members` is null and the delegations stand for it.
 */
export async function delegatingMembers(g: Governance): Promise<{ members: number | null; delegations: bigint }> {
  let after: string | undefined;
  let members = 0;
  let last: string | undefined;
  let read = 0;
  for (;;) {
    const page = await g.list_my_delegators(after, DELEGATORS_PAGE);
    for (const item of page.items) {
      const member = item.key.split('|')[1];
      if (member !== last) members++;
      last = member;
    }
    read += page.items.length;
    if (page.items.length < DELEGATORS_PAGE) return { members, delegations: page.total };
    if (read >= COUNT_MAX_DELEGATIONS) return { members: null, delegations: page.total };
    after = page.items.at(-1)!.key;
  }
}

const iso = (d: Date | string) => new Date(d).toISOString();

export default function delegateProfiles(app: BridgeApp, opts: GovernanceGatewayOptions): void {
  /** A profile as members see it: the statement (or null), and the count only beside a statement. */
  const profile = async (
    principal: string,
    row: { user_id: string; statement: string; updated_at: Date | string } | undefined,
  ) => {
    const name = (await opts.names([principal])).get(principal) ?? null;
    const count = row
      ? await delegatingMembers(await opts.governanceAs({ user_id: row.user_id, principal }))
      : undefined;
    return {
      principal,
      display_name: name,
      statement: row?.statement ?? null,
      updated_at: row ? iso(row.updated_at) : null,
      members: count?.members === undefined || count.members === null ? null : String(count.members),
      delegations: count ? String(count.delegations) : null,
    };
  };
  const rowOf = (principal: string) =>
    opts.db
      .selectFrom('delegate_statements')
      .select(['user_id', 'statement', 'updated_at'])
      .where('principal', '=', principal)
      .executeTakeFirst();

  const listQuery = Type.Object(
    {
      after: Type.Optional(
        Type.String({ pattern: '^[0-9]{1,16}\\.[a-z0-9-]{1,63}$', description: '`next_after` of the page before' }),
      ),
      limit: Type.Optional(Type.Integer({ minimum: 1, maximum: LIST_MAX, default: LIST_DEFAULT })),
    },
    { additionalProperties: false },
  );
  app.get(
    '/api/delegates',
    {
      schema: { ...routeSchema(listDelegatesDoc), querystring: listQuery },
    },
    async (req, reply) => {
      await opts.requireSession(req);
      const { after, limit = LIST_DEFAULT } = req.query;
      let q = opts.db
        .selectFrom('delegate_statements')
        .select(['user_id', 'principal', 'statement', 'updated_at'])
        .orderBy('updated_at', 'desc')
        .orderBy('principal', 'desc')
        .limit(limit);
      if (after !== undefined) {
        const dot = after.indexOf('.');
        const at = new Date(Number(after.slice(0, dot)));
        const p = after.slice(dot + 1);
        q = q.where(sql<boolean>`(updated_at, principal) < (${at}, ${p})`);
      }
      const rows = await q.execute();
      const items = await Promise.all(rows.map((r) => profile(r.principal, r)));
      reply.header('cache-control', 'private, no-cache');
      const last = rows.at(-1);
      return {
        items,
        next_after: rows.length === limit && last ? `${new Date(last.updated_at).getTime()}.${last.principal}` : null,
      };
    },
  );

  app.get(
    '/api/delegates/:principal',
    {
      schema: { ...routeSchema(getDelegateDoc), params: Type.Object({ principal: Principal }) },
    },
    async (req, reply) => {
      await opts.requireSession(req);
      const { principal } = req.params;
      const row = await rowOf(principal);
      const p = await profile(principal, row);
      if (p.display_name === null) throw new HttpError(404, 'NOT_FOUND', 'no member has this principal');
      reply.header('cache-control', 'private, no-cache');
      return p;
    },
  );

  const putBody = Type.Object(
    {
      statement: Type.Union([Type.String({ maxLength: 4 * STATEMENT_MAX_CHARS }), Type.Null()], {
        description: `at most ${STATEMENT_MAX_CHARS} characters once trimmed; empty or null: no statement (you no longer offer yourself as a delegate)`,
      }),
    },
    { additionalProperties: false },
  );
  app.put(
    '/api/me/delegate-statement',
    {
      bodyLimit: MUTATION_BODY_LIMIT,
      schema: { ...routeSchema(setDelegateStatementDoc), body: putBody },
    },
    async (req) => {
      const session = await opts.requireSession(req);
      const checked = normaliseStatement(req.body.statement ?? '');
      if ('problem' in checked) throw new HttpError(400, 'VALIDATION_ERROR', checked.problem);
      if (checked.text === '') {
        await opts.db.deleteFrom('delegate_statements').where('user_id', '=', session.user_id).execute();
        req.log.info({ event: 'governance.statement_removed', user_id: session.user_id }, 'delegate statement removed');
      } else {
        const values = {
          user_id: session.user_id,
          principal: session.principal,
          statement: checked.text,
          updated_at: new Date(opts.now()),
        };
        await opts.db
          .insertInto('delegate_statements')
          .values(values)
          .onConflict((oc) =>
            oc.column('user_id').doUpdateSet({ statement: values.statement, updated_at: values.updated_at }),
          )
          .execute();
        req.log.info(
          { event: 'governance.statement_set', user_id: session.user_id, chars: [...checked.text].length },
          'delegate statement set',
        );
      }
      return profile(session.principal, await rowOf(session.principal));
    },
  );
}
