// `npm start`: the whole platform on embedded defaults, no external server needed.
// The notification service in stub mode, the bridge (PGlite and the embedded canisters under
// .data/bridge, email through that notification service) and, in front of both, the platform gateway:
// the one origin a person opens (decision E1).
import { ConfigError } from '@domdao/config';
import { startNotificationService } from '../services/notification/src/main.ts';
import { startBridge } from '../services/bridge/src/main.ts';
import { databaseProgressLine } from '../services/bridge/src/core/db/migrate.ts';
import { CanisterSetRefused } from '../services/bridge/src/core/canister-set/refused.ts';
import { startGateway } from '../services/gateway/src/main.ts';
import { buildPortal } from '../apps/portal/build.ts';
import { Metrics, NPM_START_METRICS_PORT, serveMetrics } from '@domdao/service-kit';

/** Documented in docs/reference/config-start.md: only for local development, never for a deployment. */
import type { AddressInfo } from 'node:net';
import {
  DEV_ADMIN_EMAIL,
  DEV_DOM_PRICE_USD,
  DEV_FAUCET_DOM,
  DEV_TREASURY_DOM,
  DEV_VOTING_MINUTES,
  DEV_HOST,
  DEV_NOTIFICATION_TOKEN,
  DEV_WEBHOOK_SECRET,
  DEV_API_TOKEN,
  JOURNEY_PASSWORD,
} from './dev-defaults.ts';
import { devPriceSources, startDevPriceSource } from './dev-price-source.ts';

/** A start-up problem of the launcher itself, said in one line like a configuration error. */
class StartError extends Error {}

/** PRICE_SOURCE_PORT: a port number (0: any free one). */
function priceSourcePort(value: string | undefined): number {
  if (value === undefined) return 0;
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535)
    throw new StartError(`PRICE_SOURCE_PORT must be a port number from 0 to 65535, got ${JSON.stringify(value)}`);
  return port;
}

// Empty counts as unset, as in the services (a copied .env.example leaves many variables empty).
const env: NodeJS.ProcessEnv = Object.fromEntries(
  Object.entries(process.env).filter(([, v]) => v !== undefined && v !== ''),
);

/**
 * Stopping (decision R14). A SIGTERM or SIGINT stops what has started, newest first (the gateway,
 * then the bridge, then what the bridge calls), each answering the requests it has in flight and
 * taking no new ones; whatever is still open when the grace period ends is cut off and the process
 * exits 1. A signal during start-up lets the step under way finish within the grace period and
 * starts nothing after it. A repeated signal changes nothing: a Ctrl-C in a
 * terminal reaches this process twice, from the terminal and forwarded by npm.
 */
const GRACE_DEFAULT_SECONDS = 8;
function shutdownGraceSeconds(raw: string | undefined): number {
  if (raw === undefined) return GRACE_DEFAULT_SECONDS;
  const n = Number(raw.trim());
  if (!/^\d+$/.test(raw.trim()) || n < 1 || n > 3600)
    throw new ConfigError([
      `SHUTDOWN_GRACE_SECONDS: must be a whole number of seconds from 1 to 3600 (got ${JSON.stringify(raw)})`,
    ]);
  return n;
}
const running: Array<{ name: string; close: () => Promise<unknown> }> = [];
let stopping: NodeJS.Signals | undefined;
let up = false;
let stopped: Promise<never> | undefined;

/** Closes what runs, newest first, then exits: `code`, or 1 when something failed to close. */
function stopAll(code = 0): Promise<never> {
  stopped ??= (async () => {
    for (const { name, close } of running.reverse()) {
      try {
        const t0 = Date.now();
        await close();
        console.error(`platform: closed the ${name} (${Date.now() - t0} ms)`);
      } catch (err) {
        code = 1;
        console.error(`platform: closing the ${name} failed: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    console.error('platform: stopped');
    process.exit(code);
  })();
  return stopped;
}

function onSignal(signal: NodeJS.Signals, grace: number): void {
  if (stopping) return;
  stopping = signal;
  console.error(`platform: ${signal} received: stopping (requests in flight are answered; grace period ${grace} s)`);
  setTimeout(() => {
    console.error(`platform: not stopped within ${grace} s: exiting with requests still open`);
    process.exit(1);
  }, grace * 1000);
  if (up) void stopAll();
}

/** Records a started part for stopAll; a signal received while it started stops here. */
async function started<T>(name: string, part: T, close: (part: T) => Promise<unknown>): Promise<T> {
  running.push({ name, close: () => close(part) });
  if (stopping) await stopAll();
  return part;
}

// Development secrets must not be reachable from the network: loopback unless HOST says otherwise (decision R10).
env.HOST ??= DEV_HOST;
let generatedToken = false;
if (!env.SERVICE_TOKEN) {
  env.SERVICE_TOKEN = DEV_NOTIFICATION_TOKEN;
  generatedToken = true;
}

// Each service keeps its own default port unless NOTIFICATION_PORT / BRIDGE_PORT / GATEWAY_PORT say
// otherwise; the development price source takes PRICE_SOURCE_PORT, else a free one. The banner names
// every port the platform opens (decision R16).
const {
  PORT: _port,
  METRICS_PORT: _metricsPort,
  METRICS_HOST: _metricsHost,
  METRICS_TOKEN: metricsToken,
  ...shared
} = env;
// Decision B70: the three services share one registry and one metrics listener (one process, one scrape).
shared.METRICS_PORT = '0';
const metrics = new Metrics({ processMetrics: true });
function metricsPort(value: string | undefined): number {
  if (value === undefined) return NPM_START_METRICS_PORT;
  const port = Number(value);
  if (!/^\d+$/.test(value) || port < 1 || port > 65535)
    throw new StartError(`METRICS_PORT must be a port number from 1 to 65535, got ${JSON.stringify(value)}`);
  return port;
}
const gatewayPort = env.GATEWAY_PORT ?? '3000';
// Links, the login page and the allowed front-end origin are the gateway's: the one URL a person opens.
const gatewayOrigin = `http://${env.HOST === DEV_HOST || env.HOST === '0.0.0.0' || env.HOST === '::' ? DEV_HOST : env.HOST}:${gatewayPort}`;
// The services see the client's address behind the gateway (it runs on loopback here).
shared.TRUST_PROXY ??= 'loopback';

try {
  const grace = shutdownGraceSeconds(env.SHUTDOWN_GRACE_SECONDS);
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => onSignal(signal, grace));
  // The member web app the bridge serves at / (decision F1): built when missing or stale (well under a second).
  if (!env.PORTAL_DIR) await buildPortal({ log: (line) => console.log(line) });
  if (stopping) await stopAll();
  const notification = await started(
    'notification service',
    await startNotificationService(
      { ...shared, ...(env.NOTIFICATION_PORT && { PORT: env.NOTIFICATION_PORT }) },
      { metrics },
    ),
    (app) => app.close(),
  );
  const url = (a: AddressInfo) => `http://${a.family === 'IPv6' ? `[${a.address}]` : a.address}:${a.port}`;
  const base = url(notification.server.address() as AddressInfo);
  // Where this process reaches the notification service (a wildcard listener is reachable on loopback).
  const local = base.replace(/\/\/(0\.0\.0\.0|\[::\])/, '//127.0.0.1');
  // Development conveniences of `npm start` only, printed below; the services alone never default them.
  const dataDir = env.DATA_DIR ?? '.data/bridge';
  // Development price sources unless the environment names its own (decision O14).
  const fakePrice =
    env.PRICE_SOURCES || env.PRICE_SOURCES_FILE
      ? undefined
      : await started(
          'development price source',
          await startDevPriceSource(DEV_DOM_PRICE_USD, priceSourcePort(env.PRICE_SOURCE_PORT)).catch(
            (e: NodeJS.ErrnoException) => {
              throw new StartError(
                `the development price source cannot listen on port ${env.PRICE_SOURCE_PORT}: ${e.code ?? e.message} (set PRICE_SOURCE_PORT to a free port, or leave it unset)`,
              );
            },
          ),
          (source) => source.close(),
        );
  const bridge = await started(
    'bridge',
    await startBridge(
      {
        ...shared,
        DEV_OUTBOX_FILE: env.DEV_OUTBOX_FILE ?? `${dataDir}/dev-outbox.jsonl`,
        PAYMENT_WEBHOOK_SECRET: env.PAYMENT_WEBHOOK_SECRET ?? DEV_WEBHOOK_SECRET,
        API_TOKEN: env.API_TOKEN ?? DEV_API_TOKEN,
        BOOTSTRAP_ADMIN_EMAILS: env.BOOTSTRAP_ADMIN_EMAILS ?? DEV_ADMIN_EMAIL,
        ...(env.BRIDGE_PORT && { PORT: env.BRIDGE_PORT }),
        // Links go through the gateway; the bridge's own port stays usable directly (its origin is allowed too).
        PUBLIC_URL: env.PUBLIC_URL ?? gatewayOrigin,
        FRONTEND_ORIGINS: env.FRONTEND_ORIGINS ?? `${gatewayOrigin},http://127.0.0.1:${env.BRIDGE_PORT ?? 3200}`,
        NOTIFICATION_SERVICE_URL: env.NOTIFICATION_SERVICE_URL ?? local,
        NOTIFICATION_SERVICE_TOKEN: env.NOTIFICATION_SERVICE_TOKEN ?? env.SERVICE_TOKEN,
        ...(fakePrice && { PRICE_SOURCES: devPriceSources(DEV_DOM_PRICE_USD, fakePrice.url) }),
        // The member web app's simulated card checkout (decision F8), through the signed webhook.
        DEV_CHECKOUT: env.DEV_CHECKOUT ?? 'true',
        // Development DOM (decision L22): a faucet for members and a funded treasury, on the embedded ledger only.
        ...(!env.IC_GOVERNANCE_CANISTER_ID && {
          DEV_FAUCET_DOM: env.DEV_FAUCET_DOM ?? String(DEV_FAUCET_DOM),
          EMBEDDED_TREASURY_DOM: env.EMBEDDED_TREASURY_DOM ?? String(DEV_TREASURY_DOM),
          // Decision G45: proposals open in a minute and close in minutes, so a newcomer can see a vote through.
          DEV_VOTING_MINUTES: env.DEV_VOTING_MINUTES ?? String(DEV_VOTING_MINUTES),
        }),
      },
      // Decision R32: the first start creates the database for a while; a person sees it happen.
      { metrics, onProgress: (p) => console.error(`platform: ${databaseProgressLine(p)}`) },
    ),
    (b) => b.app.close(),
  );
  const bridgeBase = url(bridge.app.server.address() as AddressInfo);
  const gateway = await started(
    'gateway',
    await startGateway(
      {
        ...shared,
        PORT: gatewayPort,
        BRIDGE_URL: bridgeBase.replace(/\/\/(0\.0\.0\.0|\[::\])/, '//127.0.0.1'),
        NOTIFICATION_URL: local,
        NOTIFICATION_SERVICE_TOKEN: env.SERVICE_TOKEN,
        // The gateway trusts only what a load balancer in front of it would say; here nothing is in front.
        TRUST_PROXY: 'false',
      },
      { metrics },
    ),
    (g) => g.app.close(),
  );
  const metricsHost = env.METRICS_HOST ?? DEV_HOST;
  const scrape = await started(
    'metrics listener',
    await serveMetrics({
      metrics,
      host: metricsHost,
      port: metricsPort(env.METRICS_PORT),
      token: metricsToken,
      log: gateway.app.log,
    }).catch((e: NodeJS.ErrnoException) => {
      throw new StartError(
        `the metrics listener cannot listen on ${metricsHost}:${env.METRICS_PORT ?? NPM_START_METRICS_PORT}: ${e.code ?? e.message} (set METRICS_PORT to a free port)`,
      );
    }),
    (m) => m.close(),
  );
  const home = url(gateway.app.server.address() as AddressInfo);
  const exposed =
    env.HOST !== DEV_HOST
      ? `  WARNING: HOST=${env.HOST}: the development secrets below are reachable from the network`
      : '';
  const mode = env.EMAIL_PROVIDER_API_KEY
    ? `delivering through ${env.EMAIL_PROVIDER ?? 'resend'}`
    : 'stub mode: nothing is delivered';
  console.error(
    [
      '',
      'DOM DAO platform is up (embedded defaults)',
      `  platform gateway      ${home}  (open this one: the web app at /, the bridge's routes, POST /register, /notify/* → notification; GATEWAY_PORT moves it)`,
      `  notification service  ${base}  (${mode}; NOTIFICATION_PORT moves it)`,
      `  bridge service        ${bridgeBase}  (${bridge.dbKind} database, ${bridge.config.SESSION_STORE} sessions, ${bridge.canisters.mode} canisters, state in ${bridge.config.DATA_DIR}; BRIDGE_PORT moves it)`,
      ...(fakePrice
        ? [
            `  dev price source      ${new URL(fakePrice.url).origin}  (a fake JSON exchange the bridge polls; PRICE_SOURCE_PORT fixes its port)`,
          ]
        : []),
      `  metrics               ${scrape.url}  (Prometheus text, all three services${metricsToken ? ', bearer METRICS_TOKEN' : ''}; METRICS_PORT moves it)`,
      `  service token         ${generatedToken ? `${DEV_NOTIFICATION_TOKEN}  (development default; set SERVICE_TOKEN to override)` : 'from SERVICE_TOKEN'}`,
      '',
      ...(exposed ? [exposed, ''] : []),
      `  member web app ${home}/   join at ${home}/join, sign in at ${home}/login, admin console ${home}/admin (simulated checkout on /me: development only)`,
      `  API reference  ${home}/api/docs   (the bridge's OpenAPI document, rendered; the guide is docs/api/README.md)`,
      `  or register from a terminal: npm run register -- --email ada@example.org --name 'Ada Lovelace' --dob 1990-05-01   (asks for the password)`,
      `  first admin: ${DEV_ADMIN_EMAIL} (admin once verified). It has no password until it is registered: register it as above`,
      `               with the password you choose, or let \`npm run journey\` register it with the password '${JOURNEY_PASSWORD}'`,
      `  development defaults: every email and its links in ${dataDir}/dev-outbox.jsonl, payment webhook secret ${DEV_WEBHOOK_SECRET};`,
      `                        \`npm run journey\` walks the whole membership journey against this platform`,
      `  price: ${home}/api/price/dom-usd   history: ${home}/api/price/dom-usd/history`,
      `         ${fakePrice ? `development sources: fixed ${DEV_DOM_PRICE_USD} USD and a local fake JSON source at ${fakePrice.url}` : 'sources from PRICE_SOURCES / PRICE_SOURCES_FILE'}`,
      `  price proposals: job price:proposal every ${bridge.config.PRICE_PROPOSAL_INTERVAL_SECONDS / 60} min (min change ${bridge.config.PRICE_PROPOSAL_MIN_CHANGE_PCT} %, heartbeat ${bridge.config.PRICE_PROPOSAL_HEARTBEAT_HOURS} h); runs: ${home}/api/admin/jobs/runs?job=price:proposal (admin)`,
      `                   run now: curl -s -X POST ${home}/api/admin/price/submit-proposal -H 'x-api-token: ${env.API_TOKEN ? '$API_TOKEN' : DEV_API_TOKEN}'  (or the button in ${home}/admin)`,
      `  governance: ${home}/api/governance/proposals   ratified price: ${home}/api/governance/price   settings: ${home}/api/governance/settings`,
      `              members sign in, then POST /api/governance/propose, /vote, /execute (session cookie, from a front-end origin)`,
      `              voting: ${
        bridge.config.DEV_VOTING_MINUTES > 0
          ? `new proposals open 1 min after they are made and close ${bridge.config.DEV_VOTING_MINUTES} min later (DEV_VOTING_MINUTES, development only; 0 restores the 1 h delay and 3–14 day windows)`
          : 'the governance settings (DEV_VOTING_MINUTES=10 shortens them to a 1 min delay and 10 min windows, development only)'
      }`,
      `  DOM:        POST ${home}/api/dev/faucet gives a signed-in member ${DEV_FAUCET_DOM} test DOM (development only); campaigns at ${home}/api/campaigns, treasury ${home}/api/treasury`,
      `  AI: ${bridge.config.INFERENCE_URL ? `inference at ${bridge.config.INFERENCE_URL} (models ${bridge.config.INFERENCE_DEFAULT_MODEL}, ${bridge.config.INFERENCE_EMBED_MODEL})` : 'no inference server configured (set INFERENCE_URL to an OpenAI-compatible server): /api/ai/* answer 503 CIRCUIT_OPEN'};  health: ${home}/api/ai/health`,
      `  try: curl -s ${home}/health   ready: curl -s ${home}/health/ready   metrics: curl -s ${scrape.url}`,
      `       curl -s ${home}/notify/api/v1/health`,
      `       curl -s -X POST ${home}/notify/api/v1/send -H 'authorization: Bearer ${generatedToken ? DEV_NOTIFICATION_TOKEN : '$SERVICE_TOKEN'}' \\`,
      `            -H 'content-type: application/json' \\`,
      `            -d '{"type":"welcome","to":"ada@example.com","domain":"domdao.example","data":{"user_name":"Ada"}}'`,
      '',
    ].join('\n'),
  );
  up = true;
} catch (err) {
  if (err instanceof StartError || err instanceof ConfigError) {
    console.error(`platform: ${err.message}`);
    process.exit(1);
  }
  if (running.length === 0) throw err;
  // What had started is closed before the error ends the process; a bridge refused its canister set's
  // database (decisions B100, B101) says why in one sentence.
  console.error(err instanceof CanisterSetRefused ? `platform: bridge: ${err.message}` : err);
  await stopAll(1);
}
if (stopping) await stopAll();
