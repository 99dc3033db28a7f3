// How a route declares what the OpenAPI document says of it (decision B124): a RouteDoc beside the
// handler (the feature's route-docs.ts), spread into the route's own schema by routeSchema(), so the
// operation, its answers and its errors live with the route and no table keyed by "METHOD /path" exists.
import { Type, type TSchema } from '@sinclair/typebox';

export const ErrorBody = Type.Object(
  {
    error: Type.String({ description: 'machine-readable code, e.g. VALIDATION_ERROR' }),
    message: Type.String({ description: 'human-readable explanation' }),
    request_id: Type.String({ description: 'the X-Request-Id of the request, for support' }),
  },
  { additionalProperties: true },
);

/** The same three fields and no other: several features' answers (the serializer drops any other field). */
export const StrictErrorBody = Type.Object({ error: Type.String(), message: Type.String(), request_id: Type.String() });
/** The AI scope's error body (spec 2): `{error: <message>, code}`. */
export const AiErrorBody = Type.Object({ error: Type.String({ description: 'human-readable' }), code: Type.String() });

export const SessionBody = Type.Object({
  authenticated: Type.Literal(true),
  user_id: Type.String({ format: 'uuid' }),
  email: Type.String(),
  roles: Type.Array(Type.String(), {
    description: 'cached at login (spec 2 Roles); `voter` while the membership is Active (decision B53)',
  }),
});
export const NoSession = Type.Object({ authenticated: Type.Literal(false) });
/** One live session as its member and admins see it: times and cached roles, never its id (decisions B35, F9). */
export const SessionSummary = Type.Object({
  created_at: Type.String({ format: 'date-time' }),
  last_seen_at: Type.String({ format: 'date-time' }),
  expires_at: Type.String({ format: 'date-time' }),
  roles: Type.Array(Type.String()),
});
export const Html = (description: string) => ({
  description,
  content: { 'text/html': { schema: { type: 'string' } } },
});
export const Json = (description: string, schema: TSchema) => ({ description, ...schema });

export type Responses = Record<number, unknown>;
/** The tags the document declares (openapi.ts); an operation names one of them. */
export type Tag =
  | 'health'
  | 'sessions'
  | 'registration'
  | 'membership'
  | 'admin'
  | 'payments'
  | 'price'
  | 'jobs'
  | 'pages'
  | 'operations'
  | 'governance'
  | 'campaigns'
  | 'inbox'
  | 'ai';
/**
 * What the document says of one operation (decision B56): every field but body is required, so
 * a route added without them does not compile; a route that carries its own schema instead gives
 * `operationId`, `summary`, `description`, `tags` and `security` there (openapi.test.ts checks both).
 */
export interface RouteDoc {
  /** Unique, lowerCamelCase: the name generated clients and the portal's types use. */
  operationId: string;
  summary: string;
  /** Who may call it and what it changes, beyond the summary. */
  description: string;
  tag: Tag;
  /**
   * `public`: no credential (`security: []`); `optionalSession`: the answer differs with a session
   * cookie but needs none; `session`/`admin`: the session cookie; `bearer`: ACCESS_TOKEN; `apiToken`:
   * X-API-Token; `signature`: the webhook's Payment-Signature.
   */
  security: 'public' | 'optionalSession' | 'session' | 'admin' | 'bearer' | 'signature' | 'apiToken';
  /** A body the route reads raw (the signed webhook): documented, never validated by Fastify. */
  rawBody?: TSchema;
  // No query here: a route declares its querystring in its own schema, which types the handler (decision S28).
  /** Status code → description (errors get the error body) or a full response object. */
  responses: Responses;
}

/** Errors: `code` → the codes that may come with it. */
export const err = (codes: string): { description: string } & TSchema => ({ ...ErrorBody, description: codes });
export const CSRF = err(
  'CSRF_REJECTED: the Origin (or, without Origin, the Referer) is not a configured front end, or is `null` (decision B8)',
);
export const ADMIN_ERRORS = {
  401: err('UNAUTHORIZED: sign in first'),
  403: err('FORBIDDEN (admin role required) or CSRF_REJECTED on a mutation'),
};
export const STORE = { 503: err('SESSION_STORE_UNAVAILABLE: the session store is down; try again') };

export const ANY = (description: string) => Json(description, Type.Object({}, { additionalProperties: true }));
export const MEMBER = {
  401: err('UNAUTHORIZED: sign in first, or SESSION_REQUIRED (a bearer token without the cookie)'),
  403: err('CSRF_REJECTED, NotAMember or NotAuthorized'),
};

/** RouteDoc `security` → the operation's requirement (decision B56): `public` is `security: []`. */
export const SECURITY: Record<RouteDoc['security'], Array<Record<string, string[]>>> = {
  public: [],
  optionalSession: [{}, { sessionCookie: [] }],
  session: [{ sessionCookie: [] }],
  admin: [{ sessionCookie: [] }],
  bearer: [{ bearerToken: [] }],
  signature: [{ paymentSignature: [] }],
  apiToken: [{ apiToken: [] }],
};

/**
 * The route-schema fields of a RouteDoc: spread first into the route's `schema`, beside its body,
 * params and querystring (decision B124). The answers become the route's `response`, as Fastify and
 * @fastify/swagger read it.
 */
export function routeSchema(doc: RouteDoc) {
  return {
    operationId: doc.operationId,
    summary: doc.summary,
    description: doc.description,
    tags: [doc.tag],
    security: SECURITY[doc.security],
    ...(doc.rawBody && { 'x-raw-body': doc.rawBody }),
    response: doc.responses,
  };
}
