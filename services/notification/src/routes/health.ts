import type { FastifyPluginAsync } from 'fastify';
import { checkReadiness, type ReadinessCheck } from '@domdao/service-kit';

export const HEALTH_PATH = '/api/v1/health';
/** Readiness (decision B72): spec 3's health stays as it is; this says whether what the service needs answers. */
export const READY_PATH = '/health/ready';

export const healthRoutes: FastifyPluginAsync<{ version: string; readiness: Record<string, ReadinessCheck> }> = async (
  app,
  { version, readiness },
) => {
  app.get(HEALTH_PATH, async (request) => ({ status: 'ok', version, request_id: request.id }));
  app.get(READY_PATH, async (request, reply) => {
    const { statusCode, body } = await checkReadiness(readiness, undefined, (name, reason) =>
      request.log.warn({ event: 'readiness.down', check: name, reason }, `readiness: ${name} is down`),
    );
    return reply.code(statusCode).send({ ...body, request_id: request.id });
  });
};
