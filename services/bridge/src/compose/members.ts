// The member features buildApp wires (issues 11 and 12): the governance and campaign gateways, called as
// the member, and the member's inbox and emails.
import type { FastifyInstance } from 'fastify';
import type { CanisterClients } from '@domdao/canisters';
import type { BridgeParts } from './parts.ts';
import type { Guards } from '../core/auth/guards.ts';
import type { MemberLimiter } from '../core/auth/member-limits.ts';
import { emailLinkBase, firstOrigin } from '../config.ts';
import type { BridgeContext } from '../core/context.ts';
import { HttpError } from '../core/http/errors.ts';
import { displayNames, verifiedMemberName } from '../core/identity/display-names.ts';
import { memberIdentity } from '../core/identity/member-identity.ts';
import type { JobRunner } from '../core/jobs/runner.ts';
import campaignGateway from '../features/campaigns/routes.ts';
import { delegatorsCursorKey } from '../features/governance/cursor.ts';
import governanceGateway from '../features/governance/routes.ts';
import governanceLive from '../features/governance-live/routes.ts';
import inbox from '../features/inbox/routes.ts';
import memberEmails from '../features/member-emails/routes.ts';
import wallet from '../features/wallet/routes.ts';
import type { BridgeMetrics } from '../core/metrics/meters.ts';

/** How often the wallet's ledger follower reads new blocks in the background (decision B76); reads catch up on their own. */
const LEDGER_FOLLOW_MS = 5_000;

export interface MemberParts {
  parts: BridgeParts;
  ctx: BridgeContext;
  guards: Guards;
  jobs: JobRunner;
  metrics: BridgeMetrics;
  /** Per-member limits (decisions B92, V35, V36). */
  memberLimit: MemberLimiter;
}

export async function registerMemberFeatures(
  app: FastifyInstance,
  { parts, ctx, guards, jobs, metrics, memberLimit }: MemberParts,
): Promise<void> {
  const { config } = parts;
  const { events, now } = ctx;
  const memberClientCache = new Map<string, Promise<CanisterClients>>();
  /** The canisters called as this member (embedded: the principal; IC: an agent signing with the member's key, V5). */
  const memberClients = async (s: { user_id: string; principal: string }): Promise<CanisterClients> => {
    if (parts.canisters.platform) return parts.canisters.platform.as(s.principal);
    let c = memberClientCache.get(s.user_id);
    if (!c) {
      if (memberClientCache.size >= 10_000) memberClientCache.delete(memberClientCache.keys().next().value!);
      c = parts.canisters.forIdentity!(memberIdentity(ctx.keys.memberIdentitySecret, s.user_id));
      memberClientCache.set(s.user_id, c);
    }
    return c;
  };
  const names = (principals: Iterable<string>) => displayNames(ctx.db, principals);
  const governanceAs = async (s: { user_id: string; principal: string }) => (await memberClients(s)).governance;
  await app.register(governanceGateway, {
    requireSession: guards.requireMember,
    admin: guards.admin,
    db: ctx.db,
    governance: ctx.canisters.governance,
    governanceAs,
    names,
    limit: memberLimit,
    now,
    // Decision V33: the delegators list's cursors are sealed under a key of their own.
    cursorKey: delegatorsCursorKey(ctx.keys.sessionDataKey),
    // Decision V29: the inbox tells the voter's delegators (features/inbox/delegate-votes.ts).
    announceVote: async (proposal_id, voter, vote) =>
      void (await events.publish(
        'MemberVoted',
        { proposal_id, voter, vote },
        { sourceId: `voted:${proposal_id}:${voter}` },
      )),
  });
  // Decision V32: the web app's live updates, read from the event log; V37, V38: who gets a stream, slow readers.
  await app.register(governanceLive, {
    events,
    pollMs: config.LIVE_POLL_MS,
    heartbeatMs: config.LIVE_HEARTBEAT_SECONDS * 1000,
    maxStreams: config.LIVE_MAX_STREAMS,
    maxAnonymousStreams: Math.floor((config.LIVE_MAX_STREAMS * config.LIVE_ANONYMOUS_STREAMS_PERCENT) / 100),
    streamsPerClient: config.LIVE_STREAMS_PER_CLIENT,
    maxBufferBytes: config.LIVE_MAX_BUFFER_BYTES,
    signedIn: async (req) => (await guards.currentSession(req))?.user_id,
    counters: metrics.liveStreams,
    log: app.log,
  });
  // Campaigns, balances, donations, the treasury and the development faucet (decisions L20–L23).
  const platform = parts.canisters.platform;
  await app.register(campaignGateway, {
    requireSession: guards.requireMember,
    clientsAs: memberClients,
    clients: ctx.canisters,
    campaignCanister: parts.canisters.ids.campaign,
    now,
    names,
    limit: memberLimit,
    ...(platform &&
      config.DEV_FAUCET_DOM > 0 && {
        faucet: {
          e8s: BigInt(config.DEV_FAUCET_DOM) * 100_000_000n,
          perDay: config.DEV_FAUCET_PER_DAY,
          async mint(to: string, e8s: bigint) {
            const r = await platform
              .as(platform.ids.governance)
              .ledger.icrc1_transfer({ to: { owner: to }, amount: e8s });
            if ('Err' in r)
              throw new HttpError(502, 'LedgerError', `the ledger refused the mint: ${Object.keys(r.Err)[0]}`);
            return r.Ok;
          },
        },
      }),
  });
  // The wallet (decisions B75, B76, L41): transfers between members through the outbox, the history from the ledger's
  // blocks.
  await app.register(wallet, {
    db: ctx.db,
    outbox: ctx.outbox,
    requireSession: guards.requireMember,
    ledgerAs: async (s) => (await memberClients(s)).ledger,
    ledger: ctx.canisters.ledger,
    index: { canisterSet: parts.canisters.set.id, ledgerId: parts.canisters.ids.ledger },
    blocksCallback: parts.canisters.blocksCallback,
    known: {
      campaign: parts.canisters.ids.campaign,
      treasury: parts.canisters.ids.treasury,
      governance: parts.canisters.ids.governance,
    },
    names,
    recipient: (principal) => verifiedMemberName(ctx.db, principal),
    now,
    followMs: LEDGER_FOLLOW_MS,
    onIndexPass: () => metrics.followerPassed('ledger', Date.now()),
  });
  // What the two member-mail features (decisions N1–N24) are both given.
  const memberMail = {
    db: ctx.db,
    notifier: ctx.notifier,
    events,
    jobs,
    membership: ctx.canisters.membership,
    governance: ctx.canisters.governance,
    governanceAs,
    openField: (field: 'email' | 'name', sealed: string) => ctx.opener.open(field, sealed),
    requireSession: guards.requireSession,
    brandDomain: config.EMAIL_BRAND_DOMAIN,
    linkBase: emailLinkBase(config),
    now,
  };
  // The member's inbox (decisions N1–N12): activity feed, digest preference and job, unsubscribe.
  await app.register(inbox, {
    ...memberMail,
    currentSession: guards.currentSession,
    signingSecrets: ctx.keys.signingSecrets,
    audit: ctx.audit,
    tokenLifetimeMs: config.UNSUBSCRIBE_TOKEN_DAYS * 86_400_000,
    publicUrl: config.PUBLIC_URL,
    digestConcurrency: config.DIGEST_CONCURRENCY,
  });
  // Every email at its moment (decisions N13–N24): welcome, membership and renewal receipts, vote reminders,
  // invitations.
  await app.register(memberEmails, {
    ...memberMail,
    admin: guards.admin,
    dashboardUrl: firstOrigin(config),
  });
}
