// The Fastify instance every bridge feature plugin receives: route schemas written with TypeBox type
// the handler's body, params and querystring (decision S5), so a handler never casts `req.body`.
// Only types change: validation stays Ajv's, with the error handler's VALIDATION_ERROR answers.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type {
  FastifyBaseLogger,
  FastifyInstance,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';

export type BridgeApp = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;
