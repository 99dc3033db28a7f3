// A yardstick for the notification benchmark: Fastify as the service configures it (the service-kit
// logger, request ids, no access lines, JSON body parser, a compiled 200 schema) answering the same
// JSON after one log line per request like email.stub_send, with no hooks, validation or rendering:
// the part of a send's cost that is Fastify's and the logger's own.
import { randomUUID } from 'node:crypto';
import Fastify, { LogController } from 'fastify';
import { createLogger, requestIdFor } from '@domdao/service-kit';

const { logger } = createLogger('info', 'bare-fastify', '0.0.0');
const app = Fastify({
  loggerInstance: logger,
  genReqId: (req) => requestIdFor(req.headers['x-request-id']),
  logController: new LogController({ requestIdLogLabel: 'request_id', disableRequestLogging: true }),
});
const sent = {
  type: 'object',
  required: ['id', 'status', 'stubbed', 'request_id'],
  properties: {
    id: { type: 'string' },
    status: { type: 'string' },
    stubbed: { type: 'boolean' },
    request_id: { type: 'string' },
  },
} as const;
app.post('/', { schema: { response: { 200: sent } } }, async (request, reply) => {
  reply.header('x-request-id', request.id);
  const id = `stub_${randomUUID()}`;
  request.log.info(
    {
      event: 'email.stub_send',
      message_id: id,
      template: 'welcome',
      brand: 'dao',
      attachment_count: 0,
      attachment_filenames: [],
    },
    'stub mode: email not delivered',
  );
  return { id, status: 'sent', stubbed: true, request_id: request.id };
});
app.get('/', async () => ({ status: 'ok' }));
await app.listen({ port: Number(process.env.PORT), host: process.env.HOST });
