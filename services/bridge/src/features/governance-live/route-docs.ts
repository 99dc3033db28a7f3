// What the OpenAPI document says of this feature's routes (decision B124): each route's schema spreads its
// doc through routeSchema() beside the handler.
import { err, type RouteDoc } from '../../core/http/route-doc.ts';

export const streamGovernanceChangesDoc: RouteDoc = {
  operationId: 'streamGovernanceChanges',
  description:
    'Public. Server-sent events (text/event-stream): one `proposal` event (`id`: the event log position; `data`: `{"type","proposal_id"}`) each time a proposal changes: a vote through the bridge, voting opened, tallied, approved, rejected, executed, expired, execution failed. Never who voted: read the proposal again. `proposal_id` keeps one proposal\'s events. From the moment of connection on (no replay: a client reads its view again when the stream opens); a comment line every LIVE_HEARTBEAT_SECONDS. 503 LIVE_STREAMS_FULL past LIVE_MAX_STREAMS (decision V32), or for a request without a session past LIVE_ANONYMOUS_STREAMS_PERCENT of them (the rest is kept for signed-in members); 429 TOO_MANY_STREAMS past LIVE_STREAMS_PER_CLIENT streams of one member or one visitor address (decision V37); both with Retry-After. A stream whose reader falls LIVE_MAX_BUFFER_BYTES behind is dropped (decision V38): reconnect and read the view again.',
  security: 'public',
  summary: 'Live proposal changes (server-sent events, decision V32)',
  tag: 'governance',
  responses: {
    200: { description: 'the event stream', content: { 'text/event-stream': { schema: { type: 'string' } } } },
    400: err('VALIDATION_ERROR'),
    429: err('TOO_MANY_STREAMS'),
    503: err('LIVE_STREAMS_FULL'),
  },
};
