// The AI endpoints buildApp wires (decisions A1–A18): alerts, the inference server behind its
// breaker and queue, and the routes.
import type { FastifyInstance } from 'fastify';
import { BRIDGE_VERSION, type BridgeParts } from './parts.ts';
import type { Guards } from '../core/auth/guards.ts';
import type { BridgeContext } from '../core/context.ts';
import type { JobRunner } from '../core/jobs/runner.ts';
import type { BridgeMetrics } from '../core/metrics/meters.ts';
import aiRoutes from '../features/ai/routes.ts';
import { createAlerts } from '../features/ai/alerts.ts';
import { createInference } from '../features/ai/inference.ts';
import { CATEGORIES } from '../features/governance/payload.ts';

export interface AiParts {
  parts: BridgeParts;
  ctx: BridgeContext;
  guards: Guards;
  jobs: JobRunner;
  metrics: BridgeMetrics;
}

export async function registerAi(app: FastifyInstance, { parts, ctx, guards, jobs, metrics }: AiParts): Promise<void> {
  const { config } = parts;
  const { events, now } = ctx;
  const alerts = await createAlerts({
    log: app.log,
    ...(config.SENTRY_DSN && { sentryDsn: config.SENTRY_DSN }),
    environment: config.NODE_ENV,
    release: `bridge@${BRIDGE_VERSION}`,
  });
  const inference = createInference({
    ...(config.INFERENCE_URL && { url: config.INFERENCE_URL }),
    ...(config.INFERENCE_API_KEY && { apiKey: config.INFERENCE_API_KEY }),
    defaultModel: config.INFERENCE_DEFAULT_MODEL,
    embedModel: config.INFERENCE_EMBED_MODEL,
    timeoutMs: config.INFERENCE_TIMEOUT_MS,
    swapAllowanceMs: config.INFERENCE_SWAP_ALLOWANCE_MS,
    circuit: {
      enabled: parts.ai?.circuit ?? config.NODE_ENV !== 'test',
      threshold: config.INFERENCE_CIRCUIT_OPEN_THRESHOLD,
      resetMs: config.INFERENCE_CIRCUIT_RESET_MS,
      now,
    },
    ...(parts.ai?.queue && { queue: parts.ai.queue }),
    alerts,
    log: app.log,
    onModelCall: metrics.modelCall,
  });
  app.decorate('inference', inference);
  app.decorate('aiAlerts', alerts);
  app.addHook('onClose', async () => alerts.flush());
  await app.register(aiRoutes, {
    inference,
    requireSession: guards.requireMember,
    throttle: ctx.throttle,
    ratePerMinute: config.AI_RATE_LIMIT_PER_MINUTE,
    governance: ctx.canisters.governance,
    db: ctx.db,
    cacheTtlMs: config.AI_CACHE_TTL_SECONDS * 1000,
    now,
    alerts,
    apiToken: config.API_TOKEN,
    audit: ctx.audit,
    jobs,
    events,
    categories: CATEGORIES,
  });
}
