// Campaigns, balances, donations and the treasury through the bridge
// (decisions L20–L23): front ends never call canisters. Reads are public; every mutation needs the
// member's session (cross-site rule, bearer-defect rule) and is signed as the member (embedded: the
// member's principal; IC: the member's derived key, decision V5): the campaign canister pulls the
// amount (plus the fee) with an ICRC-2 allowance, which the bridge approves only when it falls short
// and the balance covers it (decision L25, paying.ts), so a refused payment costs nothing. Canister
// errors become HTTP errors with the variant's name as the code (errors.ts).
import type { FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { CanisterClients } from '@domdao/canisters';
import { accountText } from '@domdao/canister-kit';
import type { DisplayNames } from '../../core/identity/display-names.ts';
import type { MemberLimiter } from '../../core/auth/member-limits.ts';
import type { Session } from '../../core/auth/sessions.ts';
import { Nat64Text } from '../../core/http/decimal.ts';
import { HttpError } from '../../core/http/errors.ts';
import type { BridgeApp } from '../../core/http/typed.ts';
import { moneyHttpError } from './errors.ts';
import { accountView, campaignView, contributionView, donationView, payoutView } from './views.ts';
import { routeSchema } from '../../core/http/route-doc.ts';
import {
  listCampaignsDoc,
  getCampaignDoc,
  listCampaignContributionsDoc,
  createCampaignDoc,
  contributeToCampaignDoc,
  cancelCampaignDoc,
  getMyBalanceDoc,
  listMyContributionsDoc,
  donateDoc,
  listDonationsDoc,
  getTreasuryDoc,
  listTreasuryPayoutsDoc,
  mintDevelopmentDomDoc,
} from './route-docs.ts';

import { canisterAmount, memberPayments, type Member } from './paying.ts';

export interface CampaignGatewayOptions {
  requireSession(req: FastifyRequest): Promise<Session>;
  /** The member's own clients (the calls carry the member's principal). */
  clientsAs(session: Session): Promise<Member>;
  /** The bridge's own clients, for public reads. */
  clients: Pick<CanisterClients, 'campaign' | 'ledger' | 'treasury' | 'governance'>;
  /** The campaign canister's principal: the spender members approve. */
  campaignCanister: string;
  /** Development faucet (decision L22): mints this many e8s per request, as the minting account; absent = off. */
  faucet?: { e8s: bigint; perDay: number; mint(to: string, e8s: bigint): Promise<bigint> };
  now(): number;
  /** principal → display name, for creators, beneficiaries, contributors, donors and recipients (decision F22). */
  names: DisplayNames;
  /** Per-member limits: the faucet's grants a day (decision B107). */
  limit: MemberLimiter;
}

const BODY_LIMIT = 32 * 1024;
const ID = Nat64Text('campaign id', 1n);
const E8S = Type.String({ pattern: '^[1-9][0-9]{0,27}$', description: 'DOM amount in e8s (10⁻⁸ DOM), decimal' });
const Amount = Type.Union([
  Type.Object({ dom_e8s: E8S }, { additionalProperties: false }),
  Type.Object({ usd: Type.Number({ exclusiveMinimum: 0, maximum: 1e12 }) }, { additionalProperties: false }),
]);
const createBody = Type.Object(
  {
    title: Type.String({ minLength: 1, maxLength: 200 }),
    description: Type.String({ maxLength: 20_000 }),
    goal: Amount,
    deadline: Type.String({ format: 'date-time', description: 'ISO-8601; 1 hour to 365 days ahead' }),
    beneficiary: Type.Optional(
      Type.String({
        minLength: 5,
        maxLength: 63,
        description: 'principal receiving the funds; the creator when absent',
      }),
    ),
  },
  { additionalProperties: false },
);
const amountBody = Type.Object({ amount: Amount }, { additionalProperties: false });
const idParams = Type.Object({ id: ID });
const pageQuery = Type.Object(
  { from_id: Type.Optional(ID), limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })) },
  { additionalProperties: false },
);

export default async function campaignGateway(app: BridgeApp, opts: CampaignGatewayOptions): Promise<void> {
  const { clients } = opts;
  const { opId, pay, approvalFor } = memberPayments(opts);

  app.get(
    '/api/campaigns',
    { schema: { ...routeSchema(listCampaignsDoc), querystring: pageQuery } },
    async (req, reply) => {
      const q = req.query;
      reply.header('cache-control', 'public, max-age=5');
      const items = await clients.campaign.list_campaigns(q.from_id, q.limit ?? 20);
      const names = await opts.names(items.flatMap((c) => [c.owner, c.beneficiary]));
      return { items: items.map((c) => campaignView(c, names)) };
    },
  );

  app.get(
    '/api/campaigns/:id',
    { schema: { ...routeSchema(getCampaignDoc), params: idParams } },
    async (req, reply) => {
      const c = await clients.campaign.get_campaign(req.params.id);
      if (!c) throw moneyHttpError({ CampaignNotFound: null });
      reply.header('cache-control', 'public, max-age=5');
      return campaignView(c, await opts.names([c.owner, c.beneficiary]));
    },
  );

  const contributionsQuery = Type.Object(
    {
      after_seq: Type.Optional(Nat64Text('cursor: contributions after this sequence number')),
      limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
    },
    { additionalProperties: false },
  );
  app.get(
    '/api/campaigns/:id/contributions',
    { schema: { ...routeSchema(listCampaignContributionsDoc), params: idParams, querystring: contributionsQuery } },
    async (req) => {
      const { id } = req.params;
      const q = req.query;
      if (!(await clients.campaign.get_campaign(id))) throw moneyHttpError({ CampaignNotFound: null });
      const items = await clients.campaign.list_contributions(
        id,
        q.after_seq === undefined ? undefined : BigInt(q.after_seq),
        q.limit ?? 20,
      );
      const names = await opts.names(items.map((c) => c.contributor));
      return { items: items.map((c) => contributionView(c, names)) };
    },
  );

  app.post(
    '/api/campaigns',
    { bodyLimit: BODY_LIMIT, schema: { ...routeSchema(createCampaignDoc), body: createBody } },
    async (req, reply) => {
      const session = await opts.requireSession(req);
      const b = req.body;
      const deadline = Date.parse(b.deadline);
      if (!Number.isFinite(deadline)) throw new HttpError(400, 'VALIDATION_ERROR', 'deadline: an ISO-8601 date-time');
      const member = await opts.clientsAs(session);
      const goal = 'dom_e8s' in b.goal ? { DomTokens: BigInt(b.goal.dom_e8s) } : { UsdValue: b.goal.usd };
      const r = await member.campaign.create_campaign({
        title: b.title,
        description: b.description,
        goal,
        deadline: BigInt(deadline) * 1_000_000n,
        ...(b.beneficiary !== undefined && { beneficiary: b.beneficiary }),
      });
      if ('Err' in r) throw moneyHttpError(r.Err);
      req.log.info({ event: 'campaign.created', campaign_id: r.Ok, user_id: session.user_id }, 'campaign created');
      const created = (await clients.campaign.get_campaign(r.Ok))!;
      return reply.code(201).send(campaignView(created, await opts.names([created.owner, created.beneficiary])));
    },
  );

  app.post(
    '/api/campaigns/:id/contributions',
    { bodyLimit: BODY_LIMIT, schema: { ...routeSchema(contributeToCampaignDoc), params: idParams, body: amountBody } },
    async (req, reply) => {
      const session = await opts.requireSession(req);
      const { id } = req.params;
      const { amount } = req.body;
      const op = opId(req, session);
      const member = await opts.clientsAs(session);
      if (!(await clients.campaign.get_campaign(id))) throw moneyHttpError({ CampaignNotFound: null });
      // transfer_from takes the amount and the fee from the allowance.
      const pull = async () => (await approvalFor(amount)) + (await clients.ledger.icrc1_fee());
      const c = await pay(member, session.principal, pull, () =>
        member.campaign.contribute(id, canisterAmount(amount), op),
      );
      req.log.info(
        {
          event: 'campaign.contributed',
          campaign_id: id,
          amount_e8s: c.amount_e8s.toString(),
          user_id: session.user_id,
        },
        'contribution',
      );
      return reply.code(201).send(contributionView(c, await opts.names([c.contributor])));
    },
  );

  app.post(
    '/api/campaigns/:id/cancel',
    { bodyLimit: 1024, schema: { ...routeSchema(cancelCampaignDoc), params: idParams } },
    async (req) => {
      const session = await opts.requireSession(req);
      const { id } = req.params;
      const r = await (await opts.clientsAs(session)).campaign.cancel_campaign(id);
      if ('Err' in r) throw moneyHttpError(r.Err);
      // Refunds start at once rather than at the scheduler's next step.
      await clients.campaign.settle_campaign(id);
      const cancelled = (await clients.campaign.get_campaign(id))!;
      return campaignView(cancelled, await opts.names([cancelled.owner, cancelled.beneficiary]));
    },
  );

  app.get('/api/me/balance', { schema: { ...routeSchema(getMyBalanceDoc) } }, async (req) => {
    const session = await opts.requireSession(req);
    const account = { owner: session.principal };
    return {
      account: accountView(account),
      // ICRC-1 "Textual encoding of accounts": the principal itself, as there is no subaccount (decision F29).
      account_text: accountText(account),
      balance_e8s: (await clients.ledger.icrc1_balance_of(account)).toString(),
      fee_e8s: (await clients.ledger.icrc1_fee()).toString(),
      // What POST /api/dev/faucet gives, so the app shows its button only when it works (decision F26).
      faucet_e8s: opts.faucet ? opts.faucet.e8s.toString() : null,
      // Decision B107: how many times a day it gives, so the app can say so.
      faucet_per_day: opts.faucet ? opts.faucet.perDay : null,
    };
  });

  app.get(
    '/api/me/contributions',
    {
      schema: {
        ...routeSchema(listMyContributionsDoc),
        querystring: Type.Object(
          { limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 100 })) },
          { additionalProperties: false },
        ),
      },
    },
    async (req) => {
      const session = await opts.requireSession(req);
      const { limit = 100 } = req.query;
      const mine = await clients.campaign.list_contributions_by(session.principal, limit);
      const names = await opts.names([session.principal]);
      const items = mine.map((c) => contributionView(c, names));
      return {
        items,
        refunds: items
          .filter((c) => c.refund !== null)
          .map((c) => ({ campaign_id: c.campaign_id, seq: c.seq, ...c.refund! })),
      };
    },
  );

  app.post(
    '/api/donations',
    { bodyLimit: BODY_LIMIT, schema: { ...routeSchema(donateDoc), body: amountBody } },
    async (req, reply) => {
      const session = await opts.requireSession(req);
      const { amount } = req.body;
      const op = opId(req, session);
      // The ledger burns no less than its fee (min_burn_amount): refused before the approval costs a fee (decision
      // B55).
      if ('dom_e8s' in amount) {
        const fee = await clients.ledger.icrc1_fee();
        if (BigInt(amount.dom_e8s) < fee)
          throw new HttpError(
            400,
            'InvalidArgument',
            `a donation burns at least ${fee} e8s (the ledger's minimum burn)`,
          );
      }
      const member = await opts.clientsAs(session);
      // A burn charges no transfer fee, so the approval is the amount alone (its own fee is the member's).
      const d = await pay(
        member,
        session.principal,
        () => approvalFor(amount),
        () => member.campaign.burn_donation(canisterAmount(amount), op),
      );
      req.log.info(
        { event: 'donation.burned', amount_e8s: d.amount_e8s.toString(), user_id: session.user_id },
        'donation burn',
      );
      return reply.code(201).send(donationView(d, await opts.names([d.donor])));
    },
  );

  app.get('/api/donations', { schema: { ...routeSchema(listDonationsDoc), querystring: pageQuery } }, async (req) => {
    const q = req.query;
    const items = await clients.campaign.list_donations(
      q.from_id === undefined ? undefined : BigInt(q.from_id),
      q.limit ?? 20,
    );
    const names = await opts.names(items.map((d) => d.donor));
    return { items: items.map((d) => donationView(d, names)) };
  });

  app.get('/api/treasury', { schema: { ...routeSchema(getTreasuryDoc) } }, async (_req, reply) => {
    const account = await clients.treasury.get_account();
    reply.header('cache-control', 'public, max-age=5');
    return { account: accountView(account), balance_e8s: (await clients.ledger.icrc1_balance_of(account)).toString() };
  });

  app.get(
    '/api/treasury/payouts',
    { schema: { ...routeSchema(listTreasuryPayoutsDoc), querystring: pageQuery } },
    async (req) => {
      const q = req.query;
      const items = await clients.treasury.list_payouts(
        q.from_id === undefined ? undefined : BigInt(q.from_id),
        q.limit ?? 20,
      );
      const names = await opts.names(items.map((p) => p.recipient));
      return { items: items.map((p) => payoutView(p, names)) };
    },
  );

  app.post('/api/dev/faucet', { bodyLimit: 1024, schema: { ...routeSchema(mintDevelopmentDomDoc) } }, async (req) => {
    if (!opts.faucet)
      throw new HttpError(
        404,
        'NOT_FOUND',
        'the development faucet is off (DEV_FAUCET_DOM is 0; production refuses it)',
      );
    const session = await opts.requireSession(req);
    // Decision B107: a few grants a member a day, so a press held down cannot mint without end.
    await opts.limit(req, session.user_id, 'faucet_grants');
    const block = await opts.faucet.mint(session.principal, opts.faucet.e8s);
    req.log.info(
      { event: 'dev.faucet', user_id: session.user_id, amount_e8s: opts.faucet.e8s.toString() },
      'development DOM minted',
    );
    return {
      amount_e8s: opts.faucet.e8s.toString(),
      block_index: block.toString(),
      balance_e8s: (await clients.ledger.icrc1_balance_of({ owner: session.principal })).toString(),
    };
  });
}
