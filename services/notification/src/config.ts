// Environment of the notification service (spec 3 "Environment variables" plus what production needs).
import { Type, type Static } from '@sinclair/typebox';
import { Env, loadConfig } from '@domdao/config';
import { observabilityEnv } from '@domdao/service-kit';

const MiB = 1024 * 1024;

export const NotificationEnv = Type.Object({
  PORT: Env.port(3100, 'listen port'),
  HOST: Env.string('listen address', '0.0.0.0'),
  LOG_LEVEL: Env.logLevel(),
  NODE_ENV: Env.nodeEnv('`test` skips the brand URL assertions; `production` also refuses the example brand domains'),
  SERVICE_TOKEN: Type.Optional(
    Type.String({
      minLength: 16,
      maxLength: 512,
      pattern: '^[A-Za-z0-9._~+/-]+=*$',
      description: 'bearer token callers present; unset = every request answers 503 (fail-closed)',
    }),
  ),
  FOREIGN_SERVICE_TOKENS: Env.string(
    'comma-separated `scope=token` pairs of other platform services; presenting one answers 403 forbidden',
  ),
  TRUST_PROXY: Env.string(
    'Fastify trustProxy: `true`, a hop count, or comma-separated addresses/CIDRs of the gateway',
    'false',
  ),

  EMAIL_PROVIDER: Env.enumOf(
    ['resend', 'smtp'],
    'resend',
    'delivery transport used when EMAIL_PROVIDER_API_KEY is set',
  ),
  EMAIL_PROVIDER_API_KEY: Env.secret('provider API key (resend) or SMTP password (smtp); unset = stub mode'),
  EMAIL_PROVIDER_API_URL: Env.url('base URL of the provider HTTP API (Resend-compatible)', 'https://api.resend.com'),
  SMTP_HOST: Env.string('SMTP server host (EMAIL_PROVIDER=smtp)', 'localhost'),
  SMTP_PORT: Env.port(587, 'SMTP server port'),
  SMTP_SECURE: Env.bool(false, 'true = implicit TLS (port 465); false = STARTTLS when offered'),
  SMTP_REQUIRE_TLS: Env.bool(true, 'refuse to send over SMTP without STARTTLS (set false only for a local relay)'),
  SMTP_USER: Env.string('SMTP user name; the password is EMAIL_PROVIDER_API_KEY'),
  PROVIDER_TIMEOUT_MS: Env.int(15000, 'timeout of one provider call', 100, 600000),
  PROVIDER_RETRY_BUDGET_MS: Env.int(
    20000,
    'total time a send may spend retrying provider rate limits (429 / SMTP 4xx)',
    0,
    600000,
  ),
  PROVIDER_MAX_ATTEMPTS: Env.int(4, 'provider attempts per send, the first included', 1, 10),

  MAX_BODY_BYTES: Env.int(
    40 * MiB,
    'largest accepted request body; larger answers 413 payload_too_large',
    1024,
    1024 * MiB,
  ),
  INFLIGHT_BODY_BYTES: Env.int(
    128 * MiB,
    'request bytes processed at once; further requests wait, bounding memory',
    1024,
    8192 * MiB,
  ),
  BODY_READ_TIMEOUT_MS: Env.int(
    60000,
    'longest time a request body may take to arrive once reading it began; a slower connection is closed and its budget freed',
    100,
    600000,
  ),

  IDEMPOTENCY_REDIS_URL: Env.string(
    'Redis URL for the Idempotency-Key store shared by replicas; unset = in-process store',
  ),
  IDEMPOTENCY_KEY_PREFIX: Env.string('Redis key prefix of the idempotency store', 'notification:idem:'),
  IDEMPOTENCY_TTL_SECONDS: Env.int(
    86400,
    'how long a completed send is remembered under its Idempotency-Key',
    60,
    7 * 86400,
  ),
  IDEMPOTENCY_REDIS_TIMEOUT_MS: Env.int(
    2000,
    "how long one idempotency-store command may take before the send goes on without it: a Redis host lost without a reset must not hold a delivered email's answer (decision D47)",
    50,
    60000,
  ),
  IDEMPOTENCY_MAX_ENTRIES: Env.int(100000, 'size bound of the in-process idempotency store', 100, 10000000),

  BRAND_DAO_DOMAIN: Env.string('primary DAO brand domain <dao_domain>', 'domdao.example'),
  BRAND_DAO_NAME: Env.string('DAO brand organisation name', 'DOM DAO'),
  BRAND_DAO_SUPPORT_URL: Env.string('DAO brand support URL', 'https://domdao.example/support'),
  BRAND_DAO_POSTAL_ADDRESS: Env.string(
    'DAO brand physical mailing address (CAN-SPAM)',
    '100 Example Street, Suite 1, Springfield, ST 00000, USA',
  ),
  BRAND_DAO_LOGO_URL: Env.string(
    'DAO brand logo (absolute URL, ideally a 2x PNG)',
    'https://domdao.example/assets/email-logo.png',
  ),
  BRAND_DAO_PRIMARY_COLOR: Env.string('DAO brand primary colour #RRGGBB', '#4338CA'),
  BRAND_DAO_BACKGROUND_COLOR: Env.string('DAO brand page background colour #RRGGBB', '#F4F4F7'),
  BRAND_PRODUCT_DOMAIN: Env.string('secondary product brand domain <product_domain>', 'domapp.example'),
  BRAND_PRODUCT_NAME: Env.string('product brand organisation name', 'DOM App'),
  BRAND_PRODUCT_SUPPORT_URL: Env.string('product brand support URL', 'https://domapp.example/help'),
  BRAND_PRODUCT_POSTAL_ADDRESS: Env.string(
    'product brand physical mailing address (CAN-SPAM)',
    '100 Example Street, Suite 2, Springfield, ST 00000, USA',
  ),
  BRAND_PRODUCT_LOGO_URL: Env.string(
    'product brand logo (absolute URL)',
    'https://domapp.example/assets/email-logo.png',
  ),
  BRAND_PRODUCT_PRIMARY_COLOR: Env.string('product brand primary colour #RRGGBB', '#0F766E'),
  BRAND_PRODUCT_BACKGROUND_COLOR: Env.string('product brand page background colour #RRGGBB', '#F3F6F6'),
  ...observabilityEnv('notification'),
});

export type NotificationConfig = Static<typeof NotificationEnv>;

export function loadNotificationConfig(env: NodeJS.ProcessEnv = process.env): NotificationConfig {
  return loadConfig(NotificationEnv, env);
}
