// The bridge's environment (spec 2) as a schema: each variable, its type, default and description.
// config.ts validates the environment against it at start-up; `npm run docs:config` renders it as
// docs/reference/config-bridge.md (decision S29).
import { Type } from '@sinclair/typebox';
import { Env } from '@domdao/config';
import { observabilityEnv } from '@domdao/service-kit';

export const BridgeEnv = Type.Object({
  PORT: Env.port(3200, 'listen port'),
  HOST: Env.string('listen address', '0.0.0.0'),
  LOG_LEVEL: Env.enumOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], 'info', 'pino log level'),
  NODE_ENV: Env.enumOf(
    ['development', 'production', 'test'],
    'development',
    '`production` requires every secret, COOKIE_DOMAIN and DATABASE_URL to be set explicitly',
  ),
  TRUST_PROXY: Env.string('Fastify trustProxy: `true`, a hop count, or comma-separated gateway addresses', 'false'),
  PUBLIC_URL: Env.string("the bridge's public base URL (verification links, the login page)", 'http://127.0.0.1:3200'),
  FRONTEND_ORIGINS: Env.string(
    'comma-separated origins of the front-end suites: allowed Origin of cookie-authenticated mutations and returnUrl targets; the first is the default after login',
    'http://127.0.0.1:3200',
  ),
  COOKIE_DOMAIN: Env.string(
    'Domain of the `session` cookie with its leading dot, e.g. `.domdao.example`; unset = host-only cookie (development only)',
  ),
  DATA_DIR: Env.string('embedded state: PGlite database, generated keys, embedded canisters', '.data/bridge'),
  CANISTERS_FSYNC: Env.bool(
    true,
    'embedded canisters: `true` = every acknowledged update is fsynced before its answer (group commit; survives a power cut); `false` = written, not synced (survives a process crash only, faster on slow disks; decision P1)',
  ),
  DATABASE_URL: Env.string('PostgreSQL URL (postgres://…); unset = PGlite under DATA_DIR'),
  DATABASE_MIGRATION_URL: Env.string(
    "PostgreSQL URL of the role that owns the bridge's tables: at start the bridge migrates as it, records the audit retention floor and grants DATABASE_URL's role what it needs, then closes it and serves as DATABASE_URL's role; unset = DATABASE_URL's role does all (refused in production when that role owns the tables, is a superuser or has CREATEROLE; docs/operations/postgres.md \"Database roles\", decisions B97–B99)",
  ),
  BRIDGE_SINGLE_INSTANCE: Env.bool(
    false,
    "`true` declares that this bridge is the only one: its embedded canisters (no IC_* canister ids) are one process's state and never scale out. Required with NODE_ENV=production unless the canisters are on an IC network; a second bridge on the same database is refused in every mode (decisions B101, B102)",
  ),
  EMBEDDED_DATABASE_FSYNC: Env.bool(
    true,
    "embedded database (PGlite under DATA_DIR): `true` = every commit is fsynced before its answer and checkpoints sync what they write (survives a power cut; each commit blocks the process for one fsync); `false` = PGlite's own fsync off (survives a process crash only; decision P16)",
  ),
  BACKUP_SOCKET: Env.bool(
    true,
    '`true` = the running bridge serves `npm run backup` on `DATA_DIR/backup.sock` (0600) when it holds embedded state, the only way to back up a running embedded platform; `false` = no socket (back up with the platform stopped, or by a filesystem snapshot taken with it stopped; decisions B115, B121)',
  ),
  SESSION_STORE: Env.enumOf(['database', 'redis'], 'database', 'where sessions live'),
  SESSION_REDIS_URL: Env.string('Redis URL when SESSION_STORE=redis'),
  SESSION_KEY_PREFIX: Env.string('Redis key prefix of sessions', 'bridge:session:'),
  SESSION_IDLE_MINUTES: Env.int(120, 'a session unused this long ends', 5, 7 * 24 * 60),
  SESSION_ABSOLUTE_HOURS: Env.int(24, 'a session ends this long after login, used or not', 1, 30 * 24),
  LOGIN_MAX_FAILURES: Env.int(
    5,
    'login attempts per (account, client address) within the window before 429; per client address × 10, per account over all addresses × 20 (decision B30); an IPv6 client is its /64 (decision B119)',
    1,
    1000,
  ),
  LOGIN_WINDOW_MINUTES: Env.int(15, 'window of the login attempt counts', 1, 24 * 60),
  REGISTRATION_LIMIT_PER_CLIENT: Env.int(
    10,
    'registrations per client address (an IPv6 client: its /64, decision B119) per hour before 429 (decision B33)',
    1,
    100_000,
  ),
  EMAIL_LIMIT_PER_RECIPIENT: Env.int(
    3,
    'emails a client can make the bridge send to one address per hour (registration, resend, password reset) before 429; each client has its own count, an IPv6 client per /64 (decisions B33, B84)',
    1,
    1000,
  ),
  PROPOSAL_LIMIT_PER_HOUR: Env.int(
    5,
    'proposals one member can make through the bridge per hour before 429 RATE_LIMITED with Retry-After; counted when the request reaches the canister (decision V35)',
    1,
    100_000,
  ),
  DELEGATION_CHANGE_LIMIT_PER_HOUR: Env.int(
    20,
    'delegations one member can set or take back per hour (PUT and DELETE /api/governance/delegation together) before 429 RATE_LIMITED with Retry-After (decision V36)',
    1,
    100_000,
  ),
  MEMBER_SEARCH_LIMIT_PER_MINUTE: Env.int(
    30,
    'member searches by name (GET /api/members) one member can make per minute before 429 RATE_LIMITED with Retry-After (decision B93)',
    1,
    100_000,
  ),
  HPKE_PRIVATE_KEY: Env.secret(
    'registration encryption key: base64url of the 32-byte P-256 private key (HPKE DHKEM(P-256), HKDF-SHA256, AES-256-GCM)',
  ),
  BLIND_INDEX_KEY: Env.secret('key of the email blind index: base64url, at least 32 bytes'),
  SESSION_DATA_KEY: Env.secret('AES-256-GCM key sealing session data at rest: base64url, 32 bytes'),
  MEMBER_IDENTITY_SECRET: Env.secret(
    "secret every member's IC key is derived from (HKDF with the user id; decision V6): base64url, 32 bytes; losing it loses every member's principal",
  ),
  ACCESS_TOKEN: Env.secret('bearer token of POST /test-email (at least 16 characters); unset = 503'),
  PAYMENT_WEBHOOK_SECRET: Env.secret(
    "shared secret of the card processor's webhook signatures; unset = the webhook answers 503",
  ),
  MEMBERSHIP_PRICE_MINOR: Env.int(
    2500,
    'price of the annual membership in minor units of MEMBERSHIP_PRICE_CURRENCY; a payment of any other amount goes to escrow',
    1,
    100_000_000,
  ),
  MEMBERSHIP_PRICE_CURRENCY: Env.string(
    'ISO 4217 currency of the membership price; a payment in any other currency goes to escrow',
    'USD',
  ),
  OUTBOX_RECONCILE_SECONDS: Env.int(
    30,
    'how often the outbox reconciler runs pending cross-system operations (canister calls) that a crash or an outage left unfinished; it also runs at start (decision B22)',
    1,
    3600,
  ),
  PAYMENT_WEBHOOK_TOLERANCE_SECONDS: Env.int(300, 'accepted age of a webhook signature timestamp', 10, 3600),
  BOOTSTRAP_ADMIN_EMAILS: Env.string(
    'comma-separated emails that receive the admin role when verified (the first admins): the verified address must be exactly one of them, case aside (decision B83)',
  ),
  DEV_VOTING_MINUTES: Env.int(
    0,
    'development only: new proposals open for voting 1 minute after creation (EmergencyAction at once) and close this many minutes later, every category (embedded canisters only; 0 = the governance settings; refused in production, decision G45)',
    0,
    1440,
  ),
  DEV_FAUCET_DOM: Env.int(
    0,
    'development only: POST /api/dev/faucet mints this many DOM to the signed-in member (embedded canisters only; 0 = off; refused in production, decision L22)',
    0,
    1_000_000,
  ),
  DEV_FAUCET_PER_DAY: Env.int(
    5,
    'development only: how many times one member may take test DOM from POST /api/dev/faucet in 24 hours before 429 RATE_LIMITED with Retry-After (decision B107)',
    1,
    1000,
  ),
  EMBEDDED_TREASURY_DOM: Env.int(
    0,
    "DOM the embedded ledger mints to the treasury's account when it is created (its initial distribution, decision L6); ignored once the ledger exists and on IC networks",
    0,
    1_000_000_000,
  ),
  DEV_CHECKOUT: Env.bool(
    false,
    'development only: POST /api/dev/checkout simulates a card payment of the membership for the signed-in member through the signed webhook (needs PAYMENT_WEBHOOK_SECRET; refused in production; decision F8)',
  ),
  DEV_OUTBOX_FILE: Env.string(
    'development only: append every email the bridge sends (type, recipient and its links) to this JSON-lines file, so any member email (verification, password reset, invitation, digest) can be followed without a mailbox (refused in production, decision B54)',
  ),
  PRICE_SOURCES: Env.string(
    'price oracle sources as a JSON array (format below this table); unset, with no PRICE_SOURCES_FILE = GET /api/price/dom-usd answers 503',
  ),
  PRICE_SOURCES_FILE: Env.string('path of a JSON file holding the price sources array, instead of PRICE_SOURCES'),
  PRICE_POLL_SECONDS: Env.int(30, 'interval between two polls of every price source', 1, 3600),
  PRICE_OUTLIER_PCT: Type.Number({
    exclusiveMinimum: 0,
    maximum: 100,
    default: 20,
    description: 'observations further than this percentage from the weighted median are rejected (decision O3)',
  }),
  PRICE_MIN_SOURCES: Env.int(2, 'agreeing fresh sources needed for an aggregate (decision O4)', 1, 100),
  PRICE_STALENESS_SECONDS: Env.int(
    300,
    'the price is `stale` when no aggregate was computed for this long; at least twice PRICE_POLL_SECONDS (decision O11)',
    2,
    7 * 86_400,
  ),
  PRICE_PROPOSAL_INTERVAL_SECONDS: Env.int(
    3600,
    'the price-proposal job runs once per interval of this length (decision O20)',
    10,
    7 * 86_400,
  ),
  PRICE_PROPOSAL_MIN_CHANGE_PCT: Type.Number({
    exclusiveMinimum: 0,
    maximum: 100,
    default: 2,
    description:
      'a SetDomPrice proposal is submitted when the aggregate moved at least this percentage from the ratified price (decision O20)',
  }),
  PRICE_PROPOSAL_HEARTBEAT_HOURS: Type.Number({
    exclusiveMinimum: 0,
    maximum: 8760,
    default: 120,
    description:
      'a SetDomPrice proposal is also submitted, whatever the change, once the ratified price is this old; checked at start-up against PRICE_TICK_LIFETIME_HOURS and the SetDomPrice voting time (decisions O19, O20)',
  }),
  PRICE_TICK_LIFETIME_HOURS: Type.Number({
    exclusiveMinimum: 0,
    maximum: 87_600,
    default: 240,
    description:
      "how long a ratified price stays usable: the campaign and treasury canisters' price_max_age (10 days unless they were installed with another)",
  }),
  API_TOKEN: Env.secret(
    'X-API-Token of the automation endpoints (POST /api/admin/price/submit-proposal, POST /api/ai/admin/reindex), at least 16 characters; unset = they answer 503',
  ),
  INFERENCE_URL: Env.string(
    'base URL of an OpenAI-compatible inference server (llama.cpp llama-server, vLLM, Ollama /v1), e.g. `http://127.0.0.1:8080`; unset = every AI endpoint answers 503 CIRCUIT_OPEN and /api/ai/health says `not_configured`',
  ),
  INFERENCE_API_KEY: Env.secret('bearer token sent to the inference server, if it wants one'),
  INFERENCE_DEFAULT_MODEL: Env.string(
    'model for summaries and drafts, as the server names it at /v1/models (spec: a quantized 7B drafting model)',
    'draft-7b-q4',
  ),
  INFERENCE_EMBED_MODEL: Env.string(
    'model for embeddings (4096 dimensions), as the server names it at /v1/models (spec: a 3B model)',
    'embed-3b',
  ),
  INFERENCE_TIMEOUT_MS: Env.int(
    30000,
    'one inference call may take this long; a call that makes the server swap models gets INFERENCE_SWAP_ALLOWANCE_MS more (decision A6)',
    1000,
    600_000,
  ),
  INFERENCE_SWAP_ALLOWANCE_MS: Env.int(
    30000,
    'extra time given to a call that needs a model swap (spec: a swap takes 10–30 s; decision A6)',
    0,
    600_000,
  ),
  INFERENCE_CIRCUIT_OPEN_THRESHOLD: Env.int(
    3,
    'consecutive inference failures that open the circuit (spec 2 Inference circuit breaker)',
    1,
    1000,
  ),
  INFERENCE_CIRCUIT_RESET_MS: Env.int(60000, 'an open circuit lets one probe through after this long', 100, 3_600_000),
  AI_CACHE_TTL_SECONDS: Env.int(3600, 'lifetime of a cached proposal summary', 1, 30 * 86_400),
  SENTRY_DSN: Env.string(
    'error tracker DSN (Sentry or a Sentry-compatible server): the AI alerts ai.circuit_open, ai.latency_high and ai.cache_miss_rate are sent there too; unset = structured log lines only',
  ),
  AI_RATE_LIMIT_PER_MINUTE: Env.int(
    20,
    'inference-backed AI requests (summaries not served from cache, drafts, embeddings, searches) per member per minute before 429 RATE_LIMITED (decision A9)',
    1,
    100_000,
  ),
  EMAIL_BRAND_DOMAIN: Env.string(
    'brand domain the bridge sends email for (a notification service brand)',
    'domdao.example',
  ),
  EMAIL_LINK_BASE_URL: Env.string(
    "https base URL the links in members' email point at (unsubscribe, activity, proposals, invitations): the public edge that serves the member app and routes /unsubscribe to the bridge; unset = https://EMAIL_BRAND_DOMAIN (spec 3 unsubscribe_url shape; decision N3)",
  ),
  SIGNING_SECRET: Env.secret(
    'HMAC-SHA256 key of unsubscribe tokens (spec 3), at least 32 characters; unset = generated once into DATA_DIR/keys.json (refused in production)',
  ),
  SIGNING_SECRET_PREVIOUS: Env.secret(
    'the SIGNING_SECRET before a rotation: tokens it signed still verify; remove it one UNSUBSCRIBE_TOKEN_DAYS after the rotation (decision N2)',
  ),
  UNSUBSCRIBE_TOKEN_DAYS: Env.int(30, 'lifetime of the unsubscribe token in each digest (spec 3: 30 days)', 1, 365),
  DIGEST_CONCURRENCY: Env.int(8, 'digests the job sends at once (decision N9)', 1, 64),
  BRAND_DAO_NAME: Env.string(
    "the member web app's brand name: the same variable as the notification service's DAO brand (decision F4); no member may take it as a display name (decision B91)",
    'DOM DAO',
  ),
  BRAND_DAO_PRIMARY_COLOR: Env.string(
    "the member web app's brand colour #RRGGBB (as the emails, decision F4)",
    '#4338CA',
  ),
  BRAND_DAO_BACKGROUND_COLOR: Env.string(
    "the member web app's page background #RRGGBB (as the emails, decision F4)",
    '#F4F4F7',
  ),
  BRAND_DAO_LOGO_URL: Env.string(
    "the member web app's logo: an https URL (allowed by its Content-Security-Policy) or a path on the bridge; unset = the brand name only (decision F4)",
  ),
  PORTAL_DIR: Env.string('the built member web app (apps/portal/dist by default; `npm run build:portal`)'),
  AUDIT_RETENTION_DAYS: Env.int(
    365,
    'audit log rows older than this many days are deleted by the daily job audit:retention (GET /api/admin/audit; decision B65)',
    1,
    3650,
  ),
  AUDIT_RETENTION_BATCH: Env.int(
    1000,
    'audit rows the retention job deletes per transaction (it repeats until none is older; decision B65)',
    1,
    100_000,
  ),
  LIVE_POLL_MS: Env.int(
    1000,
    'how often the live stream (GET /api/governance/live) reads events other bridge instances published, ms (decision V32)',
    100,
    60_000,
  ),
  LIVE_HEARTBEAT_SECONDS: Env.int(
    15,
    'a comment line on each idle live stream this often, so proxies keep it open (decision V32)',
    1,
    300,
  ),
  LIVE_MAX_STREAMS: Env.int(
    1000,
    'live streams one bridge instance serves at once; one more is answered 503 LIVE_STREAMS_FULL (decision V32)',
    1,
    100_000,
  ),
  LIVE_ANONYMOUS_STREAMS_PERCENT: Env.int(
    20,
    'percent of LIVE_MAX_STREAMS (rounded down) open to visitors who are not signed in; one more visitor is answered 503 LIVE_STREAMS_FULL, the rest is kept for members (decision V37)',
    0,
    90,
  ),
  LIVE_STREAMS_PER_CLIENT: Env.int(
    8,
    'live streams one client holds at once (a member by account, a visitor by address, IPv6 by /64); one more is answered 429 TOO_MANY_STREAMS (decision V37)',
    1,
    1000,
  ),
  LIVE_MAX_BUFFER_BYTES: Env.int(
    65_536,
    'bytes a live stream may have waiting for a reader that does not keep up; past them the stream is dropped (decision V38)',
    1024,
    16_777_216,
  ),
  ...observabilityEnv('bridge'),
});
