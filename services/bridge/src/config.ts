// Environment of the bridge service (spec 2), validated at start-up. Secrets left unset on embedded
// defaults are generated once and kept in DATA_DIR/keys.json (mode 0600); production refuses that.
import { Type, type Static } from '@sinclair/typebox';
import { ConfigError, Env, loadConfig } from '@domdao/config';
import { parsePriceSources } from './oracle/sources.ts';

export const BridgeEnv = Type.Object({
  PORT: Env.port(3200, 'listen port'),
  HOST: Env.string('listen address', '0.0.0.0'),
  LOG_LEVEL: Env.enumOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], 'info', 'pino log level'),
  NODE_ENV: Env.enumOf(['development', 'production', 'test'], 'development', '`production` requires every secret, COOKIE_DOMAIN and DATABASE_URL to be set explicitly'),
  TRUST_PROXY: Env.string('Fastify trustProxy: `true`, a hop count, or comma-separated gateway addresses', 'false'),
  PUBLIC_URL: Env.string('the bridge\'s public base URL (verification links, the login page)', 'http://127.0.0.1:3200'),
  FRONTEND_ORIGINS: Env.string('comma-separated origins of the front-end suites: allowed Origin of cookie-authenticated mutations and returnUrl targets; the first is the default after login', 'http://127.0.0.1:3200'),
  COOKIE_DOMAIN: Env.string('Domain of the `session` cookie with its leading dot, e.g. `.domdao.example`; unset = host-only cookie (development only)'),
  DATA_DIR: Env.string('embedded state: PGlite database, generated keys, embedded canisters', '.data/bridge'),
  DATABASE_URL: Env.string('PostgreSQL URL (postgres://…); unset = PGlite under DATA_DIR'),
  SESSION_STORE: Env.enumOf(['database', 'redis'], 'database', 'where sessions live'),
  SESSION_REDIS_URL: Env.string('Redis URL when SESSION_STORE=redis'),
  SESSION_KEY_PREFIX: Env.string('Redis key prefix of sessions', 'bridge:session:'),
  SESSION_IDLE_MINUTES: Env.int(120, 'a session unused this long ends', 5, 7 * 24 * 60),
  SESSION_ABSOLUTE_HOURS: Env.int(24, 'a session ends this long after login, used or not', 1, 30 * 24),
  LOGIN_MAX_FAILURES: Env.int(5, 'login attempts per (account, client address) within the window before 429; per client address × 10, per account over all addresses × 20 (decision B30)', 1, 1000),
  LOGIN_WINDOW_MINUTES: Env.int(15, 'window of the login attempt counts', 1, 24 * 60),
  REGISTRATION_LIMIT_PER_CLIENT: Env.int(10, 'registrations per client address per hour before 429 (decision B33)', 1, 100_000),
  EMAIL_LIMIT_PER_RECIPIENT: Env.int(3, 'emails a client can make the bridge send to one address per hour (registration, resend, password reset) before 429 (decision B33)', 1, 1000),
  HPKE_PRIVATE_KEY: Env.secret('registration encryption key: base64url of the 32-byte P-256 private key (HPKE DHKEM(P-256), HKDF-SHA256, AES-256-GCM)'),
  BLIND_INDEX_KEY: Env.secret('key of the email blind index: base64url, at least 32 bytes'),
  SESSION_DATA_KEY: Env.secret('AES-256-GCM key sealing session data at rest: base64url, 32 bytes'),
  MEMBER_IDENTITY_SECRET: Env.secret("secret every member's IC key is derived from (HKDF with the user id; decision V6): base64url, 32 bytes; losing it loses every member's principal"),
  ACCESS_TOKEN: Env.secret('bearer token of POST /test-email (at least 16 characters); unset = 503'),
  PAYMENT_WEBHOOK_SECRET: Env.secret('shared secret of the card processor\'s webhook signatures; unset = the webhook answers 503'),
  MEMBERSHIP_PRICE_MINOR: Env.int(2500, 'price of the annual membership in minor units of MEMBERSHIP_PRICE_CURRENCY; a payment of any other amount goes to escrow', 1, 100_000_000),
  MEMBERSHIP_PRICE_CURRENCY: Env.string('ISO 4217 currency of the membership price; a payment in any other currency goes to escrow', 'USD'),
  PAYMENT_WEBHOOK_TOLERANCE_SECONDS: Env.int(300, 'accepted age of a webhook signature timestamp', 10, 3600),
  BOOTSTRAP_ADMIN_EMAILS: Env.string('comma-separated emails that receive the admin role when verified (the first admins)'),
  DEV_OUTBOX_FILE: Env.string('development only: append every verification link the bridge emails to this JSON-lines file, so the journey can be followed without a mailbox (refused in production)'),
  PRICE_SOURCES: Env.string('price oracle sources as a JSON array (format below this table); unset, with no PRICE_SOURCES_FILE = GET /api/price/dom-usd answers 503'),
  PRICE_SOURCES_FILE: Env.string('path of a JSON file holding the price sources array, instead of PRICE_SOURCES'),
  PRICE_POLL_SECONDS: Env.int(30, 'interval between two polls of every price source', 1, 3600),
  PRICE_OUTLIER_PCT: Type.Number({ exclusiveMinimum: 0, maximum: 100, default: 20, description: 'observations further than this percentage from the weighted median are rejected (decision O3)' }),
  PRICE_MIN_SOURCES: Env.int(2, 'agreeing fresh sources needed for an aggregate (decision O4)', 1, 100),
  PRICE_STALENESS_SECONDS: Env.int(300, 'the price is `stale` when no aggregate was computed for this long; at least twice PRICE_POLL_SECONDS (decision O11)', 2, 7 * 86_400),
  EMAIL_BRAND_DOMAIN: Env.string('brand domain the bridge sends email for (a notification service brand)', 'domdao.example'),
});
export type BridgeConfig = Static<typeof BridgeEnv>;

export function loadBridgeConfig(env: NodeJS.ProcessEnv = process.env): BridgeConfig {
  const c = loadConfig(BridgeEnv, env);
  const problems: string[] = [];
  if (c.SESSION_STORE === 'redis' && !c.SESSION_REDIS_URL) problems.push('SESSION_REDIS_URL: required when SESSION_STORE=redis');
  if (c.COOKIE_DOMAIN !== undefined && !/^\.[a-z0-9.-]+$/.test(c.COOKIE_DOMAIN)) problems.push('COOKIE_DOMAIN: must start with a dot, e.g. .domdao.example (spec 2 Session cookie)');
  if (c.ACCESS_TOKEN !== undefined && (c.ACCESS_TOKEN.length < 16 || !/^[A-Za-z0-9._~+/-]+=*$/.test(c.ACCESS_TOKEN))) {
    problems.push('ACCESS_TOKEN: at least 16 characters of a bearer token (letters, digits, . _ ~ + / -)');
  }
  if (!isOrigin(c.PUBLIC_URL.replace(/\/+$/, '').replace(/^(\w+:\/\/[^/]+).*$/, '$1'))) problems.push(`PUBLIC_URL: ${c.PUBLIC_URL} is not an http(s) URL`);
  if (!/^[A-Z]{3}$/.test(c.MEMBERSHIP_PRICE_CURRENCY) || c.MEMBERSHIP_PRICE_CURRENCY === 'XXX') problems.push('MEMBERSHIP_PRICE_CURRENCY: an ISO 4217 code in capitals, e.g. USD');
  for (const origin of origins(c.FRONTEND_ORIGINS)) if (!isOrigin(origin)) problems.push(`FRONTEND_ORIGINS: ${origin} is not an origin (scheme://host[:port])`);
  problems.push(...parsePriceSources(c).problems);
  if (c.PRICE_STALENESS_SECONDS < 2 * c.PRICE_POLL_SECONDS) problems.push('PRICE_STALENESS_SECONDS: must be at least twice PRICE_POLL_SECONDS, or one slow poll makes the price stale');
  if (c.NODE_ENV === 'production') {
    for (const name of ['HPKE_PRIVATE_KEY', 'BLIND_INDEX_KEY', 'SESSION_DATA_KEY', 'MEMBER_IDENTITY_SECRET', 'COOKIE_DOMAIN', 'DATABASE_URL'] as const) {
      if (c[name] === undefined) problems.push(`${name}: required in production`);
    }
    if (c.DEV_OUTBOX_FILE !== undefined) problems.push('DEV_OUTBOX_FILE: development only; it writes verification links to a file');
  }
  if (problems.length) throw new ConfigError(problems);
  return c;
}

export function origins(list: string): string[] {
  return list.split(',').map((s) => s.trim()).filter(Boolean);
}

function isOrigin(s: string): boolean {
  try {
    const u = new URL(s);
    return (u.protocol === 'https:' || u.protocol === 'http:') && u.origin === s;
  } catch {
    return false;
  }
}
