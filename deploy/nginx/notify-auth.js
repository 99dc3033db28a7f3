// njs for the production edge (issue 17, decisions E3, E4, E7, E10): the request id and the /notify
// checks, the same rules as services/gateway/src/notify/edge-check.ts. Tokens come from the
// environment (`env` in nginx.conf), never from a file in the repository.
import crypto from 'crypto';

const RFC4122 = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-5][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;
const BEARER = /^Bearer +([A-Za-z0-9._~+/-]+=*) *$/i;
const SESSION_COOKIE = /(?:^|;\s*)session=/;
const PUBLIC = ['/notify/api/v1/health'];

/** A caller's RFC 4122 v1–v5 X-Request-Id, or nginx's random $request_id shaped as a v4 UUID (D22, E7). */
function requestId(r) {
  const given = r.headersIn['X-Request-Id'];
  if (given && RFC4122.test(given)) return given;
  const h = r.variables.request_id;
  const variant = '89ab'[parseInt(h[16], 16) & 3];
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

// W3C Trace Context (decision E16), the rules of packages/service-kit/src/trace-context.ts: a
// caller's valid traceparent is continued with a span of the edge; none, two, or a malformed one
// starts a trace. nginx's $request_id (32 random hex digits) is the randomness.
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;
const ZERO = /^0+$/;

function callerTrace(r) {
  const headers = r.rawHeadersIn.filter((h) => h[0].toLowerCase() === 'traceparent');
  if (headers.length !== 1) return undefined;
  const m = TRACEPARENT.exec(headers[0][1].trim());
  if (!m || m[1] === 'ff' || (m[1] === '00' && m[5] !== undefined)) return undefined;
  if (ZERO.test(m[2]) || ZERO.test(m[3])) return undefined;
  return { traceId: m[2], flags: m[4] };
}

/** The traceparent the services receive: the edge's span under the caller's trace, or a new trace. */
function traceparent(r) {
  const random = r.variables.request_id;
  const parent = callerTrace(r);
  const span = ZERO.test(random.slice(0, 16)) ? '0000000000000001' : random.slice(0, 16);
  if (parent) return `00-${parent.traceId}-${span}-${parent.flags}`;
  // A new trace: the trace id is $request_id; the span id is drawn from its hash, so the two differ.
  const spanOfNew = sha256(random).toString('hex').slice(0, 16);
  return `00-${ZERO.test(random) ? '0'.repeat(31) + '1' : random}-${ZERO.test(spanOfNew) ? '0000000000000001' : spanOfNew}-01`;
}

/** The trace id of the request, for the access log. */
function traceId(r) {
  return r.variables.domdao_traceparent.slice(3, 35);
}

const sha256 = (s) => crypto.createHash('sha256').update(s).digest();

function parseTokens() {
  const own = process.env.NOTIFICATION_SERVICE_TOKEN || '';
  const tokens = own ? [{ scope: 'notification', digest: sha256(own) }] : [];
  const pairs = (process.env.FOREIGN_SERVICE_TOKENS || '').split(',');
  for (let p = 0; p < pairs.length; p++) {
    const pair = pairs[p];
    const eq = pair.indexOf('=');
    if (eq > 0) tokens.push({ scope: pair.slice(0, eq).trim(), digest: sha256(pair.slice(eq + 1).trim()) });
  }
  return tokens;
}
const TOKENS = parseTokens();

/** Which registered token the header presents, compared constant-time over SHA-256 digests (D1, E3). */
function scopeOf(authorization) {
  const m = authorization ? BEARER.exec(authorization) : null;
  if (!m) return undefined;
  const presented = sha256(m[1]);
  let matched;
  for (let t = 0; t < TOKENS.length; t++) {
    let diff = 0;
    for (let i = 0; i < 32; i++) diff |= presented[i] ^ TOKENS[t].digest[i];
    if (diff === 0 && matched === undefined) matched = TOKENS[t].scope;
  }
  return matched;
}

function browserMark(r) {
  const message = 'browser requests may not call /notify: the service token is for services';
  if (r.headersIn.Origin !== undefined) return { field: 'Origin', message };
  // Sec-Fetch-Mode alone is Node's own fetch (undici sends it on every request); a browser always
  // sends Sec-Fetch-Site with it (decision E15).
  if (r.headersIn['Sec-Fetch-Site'] !== undefined) return { field: 'Sec-Fetch-Site', message };
  const cookie = r.headersIn.Cookie;
  if (cookie !== undefined && SESSION_COOKIE.test(cookie))
    return { field: 'Cookie', message: 'requests carrying the session cookie may not call /notify' };
  return undefined;
}

/** A refusal for the edge to answer: the status, and the body in a header auth_request hands over. */
function refuse(r, status, error, details) {
  const body = { error, request_id: r.variables.domdao_request_id };
  if (details) body.details = details;
  r.headersOut['X-Edge-Refusal'] = JSON.stringify(body);
  r.return(status);
}

/** The auth_request subrequest of /notify (it never reads the body): 204 lets the request through. */
function check(r) {
  // Fail-closed (spec 3 Authentication 2): a 500 here becomes 503 service_unavailable.
  if (!TOKENS.some((t) => t.scope === 'notification')) return r.return(500);
  const browser = browserMark(r);
  if (browser) {
    r.warn(`edge.browser_refused ${browser.field} request_id=${r.variables.domdao_request_id}`);
    return refuse(r, 403, 'forbidden', [browser]);
  }
  const path = r.variables.request_uri.split('?')[0];
  if (!PUBLIC.includes(path)) {
    const scope = scopeOf(r.headersIn.Authorization);
    if (scope !== 'notification') {
      r.warn(`edge.unauthorized request_id=${r.variables.domdao_request_id}`);
      return scope === undefined ? refuse(r, 401, 'unauthorized') : refuse(r, 403, 'forbidden');
    }
  }
  r.return(204);
}

export default { requestId, check, traceparent, traceId };
