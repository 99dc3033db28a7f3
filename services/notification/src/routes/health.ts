import type { FastifyPluginAsync } from 'fastify';

export const HEALTH_PATH = '/api/v1/health';

export const healthRoutes: FastifyPluginAsync<{ version: string }> = async (app, { version }) => {
  app.get(HEALTH_PATH, async (request) => ({ status: 'ok', version, request_id: request.id }));
};
