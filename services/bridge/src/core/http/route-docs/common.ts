// What the route documents share: the error body, the session body, response helpers and the common errors.
import { Type, type TSchema } from '@sinclair/typebox';

export const ErrorBody = Type.Object(
  {
    error: Type.String({ description: 'machine-readable code, e.g. VALIDATION_ERROR' }),
    message: Type.String({ description: 'human-readable explanation' }),
    request_id: Type.String({ description: 'the X-Request-Id of the request, for support' }),
  },
  { additionalProperties: true },
);

export const SessionBody = Type.Object({
  authenticated: Type.Literal(true),
  user_id: Type.String({ format: 'uuid' }),
  email: Type.String(),
  roles: Type.Array(Type.String(), { description: 'cached at login (spec 2 Roles); `voter` while the membership is Active (decision B53)' }),
});
export const NoSession = Type.Object({ authenticated: Type.Literal(false) });
export const Html = (description: string) => ({ description, content: { 'text/html': { schema: { type: 'string' } } } });
export const Json = (description: string, schema: TSchema) => ({ description, ...schema });

export type Responses = Record<number, unknown>;
export interface RouteDoc {
  summary: string;
  tag: 'health' | 'sessions' | 'registration' | 'admin' | 'payments' | 'pages' | 'operations' | 'governance' | 'ai' | 'campaigns';
  security?: 'session' | 'admin' | 'bearer' | 'signature' | 'apiToken';
  body?: TSchema;
  query?: TSchema;
  /** Status code → description (errors get the error body) or a full response object. */
  responses: Responses;
}

/** Errors: `code` → the codes that may come with it. */
export const err = (codes: string): { description: string } & TSchema => ({ ...ErrorBody, description: codes });
export const CSRF = err('CSRF_REJECTED: the Origin (or, without Origin, the Referer) is not a configured front end, or is `null` (decision B8)');
export const ADMIN_ERRORS = { 401: err('UNAUTHORIZED: sign in first'), 403: err('FORBIDDEN (admin role required) or CSRF_REJECTED on a mutation') };
export const STORE = { 503: err('SESSION_STORE_UNAVAILABLE: the session store is down; try again') };

export const ANY = (description: string) => Json(description, Type.Object({}, { additionalProperties: true }));
export const MEMBER = {
  401: err('UNAUTHORIZED: sign in first, or SESSION_REQUIRED (a bearer token without the cookie)'),
  403: err('CSRF_REJECTED, NotAMember or NotAuthorized'),
};
