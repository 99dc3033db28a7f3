// What the OpenAPI document says of the bridge's own routes (liveness, readiness, this document) (decision B124): each
// route's schema spreads its doc through routeSchema() beside the handler.
import { Type } from '@sinclair/typebox';
import { Json, type RouteDoc } from './route-doc.ts';

export const getHealthDoc: RouteDoc = {
  operationId: 'getHealth',
  description:
    'Answers without credentials: 200 while the bridge is up, 503 once the embedded database has failed a sync.',
  security: 'public',
  summary: 'Liveness',
  tag: 'health',
  responses: {
    200: Json('up', Type.Object({ status: Type.Literal('ok') })),
    503: Json(
      'the embedded database failed a sync and refuses every statement until a restart (decision P16)',
      Type.Object({
        status: Type.Literal('unavailable'),
        error: Type.Literal('DATABASE_FAILED'),
        message: Type.String(),
        request_id: Type.String(),
      }),
    ),
  },
};

/** The readiness answer, ready or not: the same checks either way (decision B72). */
const Readiness = (status: 'ready' | 'unavailable') =>
  Type.Object({
    status: Type.Literal(status),
    checks: Type.Record(Type.String(), Type.String()),
    down: Type.Array(Type.String()),
    request_id: Type.String(),
  });

export const getReadinessDoc: RouteDoc = {
  operationId: 'getReadiness',
  description:
    'Answers without credentials: 200 when everything the bridge needs answers (database, canisters, the session store, notification and inference when configured), 503 naming what is down (decision B72).',
  security: 'public',
  summary: 'Readiness',
  tag: 'health',
  responses: {
    200: Json('ready', Readiness('ready')),
    503: Json('something the bridge needs is down', Readiness('unavailable')),
  },
};

export const getOpenApiDocumentDoc: RouteDoc = {
  operationId: 'getOpenApiDocument',
  description: 'This document, generated from the routes themselves (decision B47); no credential needed.',
  security: 'public',
  summary: 'This OpenAPI document',
  tag: 'health',
  responses: {
    200: {
      description: 'the OpenAPI 3 document',
      content: { 'application/json': { schema: { type: 'object', additionalProperties: true } } },
    },
  },
};
