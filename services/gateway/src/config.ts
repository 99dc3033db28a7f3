// Environment of the platform gateway (decision E1), validated at start-up like every service's.
import { Type, type Static } from '@sinclair/typebox';
import { ConfigError, Env, loadConfig } from '@domdao/config';
import { observabilityEnv, parseForeignTokens } from '@domdao/service-kit';

export const GatewayEnv = Type.Object({
  PORT: Env.port(3000, 'listen port (`npm start`: GATEWAY_PORT)'),
  HOST: Env.string('listen address', '0.0.0.0'),
  LOG_LEVEL: Env.logLevel(),
  TRUST_PROXY: Env.string(
    'Fastify trustProxy for a load balancer in front of the gateway: `true`, a hop count, or comma-separated addresses/CIDRs; `false` = X-Forwarded-For from clients is replaced',
    'false',
  ),
  BRIDGE_URL: Env.string(
    'base URL of the bridge (every path but /notify, and POST /register)',
    'http://127.0.0.1:3200',
  ),
  NOTIFICATION_URL: Env.string(
    'base URL of the notification service (/notify/* with the prefix stripped)',
    'http://127.0.0.1:3100',
  ),
  NOTIFICATION_SERVICE_TOKEN: Env.secret(
    "the notification service's SERVICE_TOKEN, checked at the edge before /notify is forwarded; unset = /notify answers 503 (fail-closed)",
  ),
  FOREIGN_SERVICE_TOKENS: Env.string(
    'comma-separated `scope=token` pairs of other platform services (as the notification service reads them); presenting one at /notify answers 403 forbidden',
  ),
  MAX_BODY_BYTES: Env.int(
    41_943_040,
    'largest request body the gateway forwards (declared or streamed); larger answers 413 (the services apply their own, smaller limits)',
    1024,
    1024 * 1024 * 1024,
  ),
  UPSTREAM_CONNECT_TIMEOUT_MS: Env.int(5000, 'longest wait for a connection to a service', 100, 60_000),
  UPSTREAM_TIMEOUT_MS: Env.int(
    120_000,
    "longest wait for a service's response headers, and between two chunks of its body; then 504",
    1000,
    600_000,
  ),
  REQUEST_TIMEOUT_MS: Env.int(
    120_000,
    'longest time a client may take to send a whole request (slow senders are cut off)',
    1000,
    600_000,
  ),
  ...observabilityEnv('gateway'),
});
export type GatewayConfig = Static<typeof GatewayEnv>;

export function loadGatewayConfig(env: NodeJS.ProcessEnv = process.env): GatewayConfig {
  const c = loadConfig(GatewayEnv, env);
  const problems: string[] = [];
  for (const name of ['BRIDGE_URL', 'NOTIFICATION_URL'] as const) {
    if (!isBaseUrl(c[name])) problems.push(`${name}: ${c[name]} is not an http(s) base URL without query or fragment`);
  }
  if (c.NOTIFICATION_SERVICE_TOKEN !== undefined && c.NOTIFICATION_SERVICE_TOKEN.length < 16)
    problems.push('NOTIFICATION_SERVICE_TOKEN: at least 16 characters (as SERVICE_TOKEN)');
  try {
    parseForeignTokens(c.FOREIGN_SERVICE_TOKENS, c.NOTIFICATION_SERVICE_TOKEN, 'notification');
  } catch (e) {
    if (e instanceof ConfigError) problems.push(...e.problems);
    else throw e;
  }
  if (problems.length) throw new ConfigError(problems);
  return c;
}

function isBaseUrl(s: string): boolean {
  try {
    const u = new URL(s);
    return (
      (u.protocol === 'http:' || u.protocol === 'https:') &&
      u.search === '' &&
      u.hash === '' &&
      u.username === '' &&
      u.password === ''
    );
  } catch {
    return false;
  }
}
