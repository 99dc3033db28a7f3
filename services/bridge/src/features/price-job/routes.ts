// The price-proposal job (decisions O16–O23): on the jobs seam, every
// PRICE_PROPOSAL_INTERVAL_SECONDS it reads the oracle's aggregate, the ratified price and any pending
// SetDomPrice proposal, lets decide.ts choose, and submits SetDomPrice through the governance canister
// (as the bridge, a trusted proposer) citing the aggregate's stored record. Every run is a job run
// (GET /api/admin/jobs/runs?job=price:proposal). POST /api/admin/price/submit-proposal runs it now, for
// an X-API-Token holder or an admin's session (decision B78).
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { CanisterClients } from '@domdao/canisters';
import { HttpError } from '../../core/http/errors.ts';
import { JobBusyError, type JobContext, type JobOutcome, type JobRun } from '../../core/jobs/types.ts';
import type { JobRunner } from '../../core/jobs/runner.ts';
import { JobRunBody } from '../../core/jobs/routes.ts';
import { decidePriceProposal, heartbeatProblem, type PriceJobDecision, type PriceJobSettings } from './decide.ts';
import type { BridgeApp } from '../../core/http/typed.ts';
import { API_TOKEN_ACTOR, type AuditRecorder } from '../../core/audit/log.ts';
import { StrictErrorBody } from '../../core/http/route-doc.ts';

type Governance = CanisterClients['governance'];

export const PRICE_JOB = 'price:proposal';
/** Decision O19: after voting closes, the canister's scheduler tallies and executes; an hour covers its retries. */
export const EXECUTION_MARGIN_MS = 3_600_000;
const NON_TERMINAL = new Set(['Created', 'Open', 'Tallied', 'Approved']);

/** What the job needs of the oracle (its `latest()`), structurally: features do not import each other. */
export interface AggregateSource {
  latest():
    | {
        response: {
          price_usd: number;
          timestamp: number;
          stale: boolean;
          confidence: string;
          sources: Array<{ name: string; price: number; weight: number }>;
        };
        record_id: number;
        record_url: string;
      }
    | undefined;
}

export interface PriceJobOptions {
  jobs: JobRunner;
  oracle: AggregateSource;
  /** The bridge's own governance client (a trusted proposer, decision G7). */
  governance: Governance;
  settings: PriceJobSettings & { intervalMs: number; tickLifetimeMs: number };
  /** API_TOKEN: POST /api/admin/price/submit-proposal's X-API-Token; undefined = that route answers 503. */
  apiToken: string | undefined;
  /** A triggered run is audited, whoever asked (decision B61). */
  audit: AuditRecorder;
  /**
   * Decision B78: an admin's session may trigger a run too (the console's button): the cross-site
   * rule, then a live session (401), then the admin role (403). `guards.requireAdmin`.
   */
  requireAdmin(req: FastifyRequest): Promise<{ user_id: string }>;
  log: { info(o: object, m: string): void; warn(o: object, m: string): void; error(o: object, m: string): void };
}

const NS_PER_MS = 1_000_000n;

/** SetDomPrice's ratification time from the canister's settings (decision O19). */
async function ratificationMs(governance: Governance): Promise<number> {
  const s = await governance.get_settings();
  const rule = s.rules.find((r) => r.category === 'SetDomPrice');
  if (!rule) throw new Error('the governance canister has no SetDomPrice rules');
  return Number((s.voting_delay + rule.voting_window) / NS_PER_MS) + EXECUTION_MARGIN_MS;
}

/** Id of the newest SetDomPrice proposal not yet terminal (Created, Open, Tallied, Approved), if any. */
async function pendingSetDomPrice(governance: Governance): Promise<string | undefined> {
  const recent = await governance.list_proposals({ category: 'SetDomPrice', limit: 100 });
  const p = recent.find((x) => NON_TERMINAL.has(x.status));
  return p ? String(p.id) : undefined;
}

function proposalText(
  d: PriceJobDecision,
  a: NonNullable<ReturnType<AggregateSource['latest']>>,
  ratified: number | undefined,
) {
  const r = a.response;
  const price = r.price_usd.toPrecision(6).replace(/\.?0+$/, '');
  const why: Record<string, string> = {
    no_ratified_price: 'No DOM/USD price has been ratified yet.',
    change: `The market price moved ${d.change_pct?.toFixed(2)} % from the ratified ${ratified} USD.`,
    heartbeat: `The ratified price (${ratified} USD) is due for renewal (heartbeat), so campaigns keep a fresh price.`,
    manual: 'An administrator asked for a price proposal now.',
  };
  const lines = [
    `The bridge's price oracle proposes **${price} USD** per DOM.`,
    '',
    why[d.reason] ?? '',
    '',
    `Aggregate #${a.record_id} computed ${new Date(r.timestamp * 1000).toISOString()} (confidence ${r.confidence}), the weighted median of:`,
    ...r.sources.map((s) => `- ${s.name}: ${s.price} USD (weight ${s.weight})`),
    '',
    `Every observation of that poll: ${a.record_url}`,
  ];
  return { title: `Set the DOM price to ${price} USD`, body: lines.join('\n') };
}

/** Constant-time comparison whatever the lengths (both sides hashed to 32 bytes first). */
export function sameToken(presented: string, expected: string): boolean {
  const h = (s: string) => createHash('sha256').update(s, 'utf8').digest();
  return timingSafeEqual(h(presented), h(expected)) && presented.length === expected.length;
}

export default async function priceJob(app: BridgeApp, opts: PriceJobOptions): Promise<void> {
  const { governance, settings } = opts;

  async function run(ctx: JobContext): Promise<JobOutcome> {
    const manual = ctx.trigger === 'manual';
    const latest = opts.oracle.latest();
    const [tick, pending] = await Promise.all([governance.get_dom_price(), pendingSetDomPrice(governance)]);
    const ratified = tick && { price_usd: tick.price_usd, effective_at_ms: Number(tick.timestamp / NS_PER_MS) };
    const decision = decidePriceProposal(
      { aggregate: latest?.response, ratified, pendingProposalId: pending, now: ctx.now(), manual },
      settings,
    );
    const seen = {
      ...decision,
      aggregate: latest
        ? {
            record_id: latest.record_id,
            price_usd: latest.response.price_usd,
            timestamp: latest.response.timestamp,
            stale: latest.response.stale,
            confidence: latest.response.confidence,
          }
        : null,
      ratified: tick
        ? {
            price_usd: tick.price_usd,
            proposal_id: String(tick.proposal_id),
            effective_at: new Date(ratified!.effective_at_ms).toISOString(),
          }
        : null,
    };
    if (decision.action === 'skip') return { outcome: 'skipped', detail: seen };
    const a = latest!;
    ctx.signal.throwIfAborted();
    // Decision O21: the canister accepts only https source_urls; on a plain-http development bridge the
    // record's URL is in the body only.
    const sourceUrl = a.record_url.startsWith('https://') ? a.record_url : undefined;
    const text = proposalText(decision, a, tick?.price_usd);
    const r = await governance.create_proposal({
      ...text,
      category: 'SetDomPrice',
      payload: { SetDomPrice: { price_usd: a.response.price_usd, ...(sourceUrl && { source_url: sourceUrl }) } },
    });
    if ('Err' in r) throw new Error(`governance refused the SetDomPrice proposal: ${JSON.stringify(r.Err)}`);
    opts.log.info(
      {
        event: 'price.proposal.submitted',
        proposal_id: String(r.Ok),
        reason: decision.reason,
        price_usd: a.response.price_usd,
        record_id: a.record_id,
      },
      'SetDomPrice proposal submitted',
    );
    return {
      outcome: 'succeeded',
      detail: {
        ...seen,
        proposal_id: String(r.Ok),
        price_usd: a.response.price_usd,
        source_url: sourceUrl ?? null,
        record_url: a.record_url,
      },
    };
  }

  opts.jobs.define({ name: PRICE_JOB, everyMs: settings.intervalMs, maxAttempts: 3, retryDelayMs: 60_000, run });

  // Decision O19 at start-up: a heartbeat that leaves no room for ratification fails the start. An
  // unreachable canister (an IC network down) does not: the check is then logged and each run repeats it.
  app.addHook('onReady', async () => {
    let ms: number;
    try {
      ms = await ratificationMs(governance);
    } catch (err) {
      opts.log.warn(
        { event: 'price.proposal.heartbeat_unchecked', err: err instanceof Error ? err.message : String(err) },
        'could not read the governance settings to check the heartbeat',
      );
      return;
    }
    const problem = heartbeatProblem({
      heartbeatMs: settings.heartbeatMs,
      tickLifetimeMs: settings.tickLifetimeMs,
      ratificationMs: ms,
    });
    if (problem) throw new Error(`PRICE_PROPOSAL_HEARTBEAT_HOURS: ${problem}`);
  });

  /**
   * Decision B78 (amends O22): X-API-Token when the header is sent (503 while API_TOKEN is unset, 401
   * when wrong), else an admin's session. The token decides alone when both come: a cross-site page
   * cannot set the header, and a script sending it needs no cookie.
   */
  async function whoTriggers(req: FastifyRequest): Promise<string> {
    const presented = req.headers['x-api-token'];
    if (presented !== undefined) {
      if (opts.apiToken === undefined) throw new HttpError(503, 'NOT_CONFIGURED', 'API_TOKEN is not set');
      if (typeof presented === 'string' && sameToken(presented, opts.apiToken)) return API_TOKEN_ACTOR;
      req.log.warn(
        { event: 'auth.unauthorized', route: 'price.submit_proposal', reason: 'wrong' },
        'wrong X-API-Token',
      );
      throw new HttpError(401, 'UNAUTHORIZED', 'X-API-Token is wrong');
    }
    try {
      return (await opts.requireAdmin(req)).user_id;
    } catch (err) {
      if (err instanceof HttpError && err.code === 'UNAUTHORIZED') {
        req.log.warn(
          { event: 'auth.unauthorized', route: 'price.submit_proposal', reason: 'absent' },
          'no X-API-Token and no session',
        );
        throw new HttpError(401, 'UNAUTHORIZED', 'sign in as an administrator, or send X-API-Token');
      }
      throw err;
    }
  }

  app.post(
    '/api/admin/price/submit-proposal',
    {
      bodyLimit: 1024,
      schema: {
        summary:
          'Runs the price-proposal job now (decisions O18, O22): stale and pending rules apply, the minimum change does not',
        operationId: 'submitPriceProposal',
        description:
          'X-API-Token (spec 1 Authentication rule 4; unset API_TOKEN, a request sending it answers 503) or an admin session with the cross-site rule (the console, decision B78). Audited as price.proposal_triggered with the token holder or the admin as actor.',
        security: [{ apiToken: [] }, { sessionCookie: [] }],
        tags: ['price'],
        headers: Type.Object({ 'x-api-token': Type.Optional(Type.String({ description: 'API_TOKEN' })) }),
        response: {
          201: {
            description: 'a SetDomPrice proposal was submitted; Location names it',
            ...Type.Object({
              submitted: Type.Literal(true),
              proposal_id: Type.String(),
              price_usd: Type.Number(),
              source_url: Type.Union([Type.String(), Type.Null()]),
              run: JobRunBody,
            }),
          },
          401: {
            description: 'UNAUTHORIZED: X-API-Token wrong, or neither the header nor a live session',
            ...StrictErrorBody,
          },
          403: {
            description:
              'FORBIDDEN: the session is not an admin’s; CSRF_REJECTED: a session from an origin that is not a front end',
            ...StrictErrorBody,
          },
          409: {
            description:
              'PRICE_STALE, PROPOSAL_PENDING or NO_AGGREGATE (nothing submitted; the run is recorded), or JOB_BUSY',
            ...StrictErrorBody,
          },
          502: { description: 'PROPOSAL_NOT_SUBMITTED: the governance canister refused or failed', ...StrictErrorBody },
          503: { description: 'NOT_CONFIGURED: X-API-Token was sent and API_TOKEN is not set', ...StrictErrorBody },
        },
      },
    },
    async (req: FastifyRequest, reply) => {
      const actor = await whoTriggers(req);
      let run: JobRun;
      const triggered = (outcome: 'success' | 'failure', detail: Record<string, string | number>) =>
        opts.audit.record(req, { event: 'price.proposal_triggered', actor, outcome, detail });
      try {
        run = await opts.jobs.runNow(PRICE_JOB, { waitMs: 10_000 });
      } catch (err) {
        if (err instanceof JobBusyError) {
          await triggered('failure', { status: 'busy' });
          throw new HttpError(409, 'JOB_BUSY', 'a price-proposal run is in progress; try again shortly', {
            'retry-after': '5',
          });
        }
        throw err;
      }
      const d = (run.detail ?? {}) as {
        reason?: string;
        pending_proposal_id?: string;
        proposal_id?: string;
        price_usd?: number;
        source_url?: string | null;
      };
      await triggered(run.status === 'succeeded' ? 'success' : 'failure', {
        status: run.status,
        run_id: run.id,
        ...(d.proposal_id !== undefined && { proposal_id: d.proposal_id }),
        ...(d.reason !== undefined && { reason: d.reason }),
      });
      if (run.status === 'failed')
        throw new HttpError(502, 'PROPOSAL_NOT_SUBMITTED', `${run.error ?? 'the run failed'} (run ${run.id})`);
      if (run.status === 'skipped') {
        const [code, message]: ['PRICE_STALE' | 'PROPOSAL_PENDING' | 'NO_AGGREGATE', string] =
          d.reason === 'stale'
            ? ['PRICE_STALE', 'the price aggregate is stale: a stale price is never proposed']
            : d.reason === 'pending_proposal'
              ? ['PROPOSAL_PENDING', `SetDomPrice proposal ${d.pending_proposal_id} is still pending`]
              : ['NO_AGGREGATE', 'the price oracle has no aggregate yet'];
        throw new HttpError(409, code, `${message} (run ${run.id})`);
      }
      reply.header('location', `/api/governance/proposals/${d.proposal_id}`);
      return reply.code(201).send({
        submitted: true,
        proposal_id: d.proposal_id,
        price_usd: d.price_usd,
        source_url: d.source_url ?? null,
        run,
      });
    },
  );
}
