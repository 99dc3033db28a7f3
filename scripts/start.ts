// `npm start`: the whole platform on embedded defaults, no external server needed.
// The notification service in stub mode and the bridge (PGlite and the embedded canisters under
// .data/bridge, email through that notification service).
import { ConfigError } from '@domdao/config';
import { startNotificationService } from '../services/notification/src/main.ts';
import { startBridge } from '../services/bridge/src/main.ts';

/** Documented in README: only for local development, never for a deployment. */
import type { AddressInfo } from 'node:net';
import { DEV_ADMIN_EMAIL, DEV_DOM_PRICE_USD, DEV_HOST, DEV_NOTIFICATION_TOKEN, DEV_WEBHOOK_SECRET, JOURNEY_PASSWORD } from './dev-defaults.ts';
import { devPriceSources, startDevPriceSource } from './dev-price-source.ts';

// Empty counts as unset, as in the services (a copied .env.example leaves many variables empty).
const env: NodeJS.ProcessEnv = Object.fromEntries(Object.entries(process.env).filter(([, v]) => v !== undefined && v !== ''));
// Development secrets must not be reachable from the network: loopback unless HOST says otherwise (decision R10).
env.HOST ??= DEV_HOST;
let generatedToken = false;
if (!env.SERVICE_TOKEN) {
  env.SERVICE_TOKEN = DEV_NOTIFICATION_TOKEN;
  generatedToken = true;
}

// Each service keeps its own default port unless NOTIFICATION_PORT / BRIDGE_PORT say otherwise.
const { PORT: _port, ...shared } = env;

try {
  const notification = await startNotificationService({ ...shared, ...(env.NOTIFICATION_PORT && { PORT: env.NOTIFICATION_PORT }) });
  const url = (a: AddressInfo) => `http://${a.family === 'IPv6' ? `[${a.address}]` : a.address}:${a.port}`;
  const base = url(notification.server.address() as AddressInfo);
  // Where this process reaches the notification service (a wildcard listener is reachable on loopback).
  const local = base.replace(/\/\/(0\.0\.0\.0|\[::\])/, '//127.0.0.1');
  // Development conveniences of `npm start` only, printed below; the services alone never default them.
  const dataDir = env.DATA_DIR ?? '.data/bridge';
  // Development price sources unless the environment names its own (decision O14).
  const fakePrice = env.PRICE_SOURCES || env.PRICE_SOURCES_FILE ? undefined : await startDevPriceSource(DEV_DOM_PRICE_USD);
  const bridge = await startBridge({
    ...shared,
    DEV_OUTBOX_FILE: env.DEV_OUTBOX_FILE ?? `${dataDir}/dev-outbox.jsonl`,
    PAYMENT_WEBHOOK_SECRET: env.PAYMENT_WEBHOOK_SECRET ?? DEV_WEBHOOK_SECRET,
    BOOTSTRAP_ADMIN_EMAILS: env.BOOTSTRAP_ADMIN_EMAILS ?? DEV_ADMIN_EMAIL,
    ...(env.BRIDGE_PORT && { PORT: env.BRIDGE_PORT }),
    // Links and the allowed origin follow BRIDGE_PORT (the bridge's own defaults assume 3200).
    PUBLIC_URL: env.PUBLIC_URL ?? `http://127.0.0.1:${env.BRIDGE_PORT ?? 3200}`,
    FRONTEND_ORIGINS: env.FRONTEND_ORIGINS ?? `http://127.0.0.1:${env.BRIDGE_PORT ?? 3200}`,
    NOTIFICATION_SERVICE_URL: env.NOTIFICATION_SERVICE_URL ?? local,
    NOTIFICATION_SERVICE_TOKEN: env.NOTIFICATION_SERVICE_TOKEN ?? env.SERVICE_TOKEN,
    ...(fakePrice && { PRICE_SOURCES: devPriceSources(DEV_DOM_PRICE_USD, fakePrice.url) }),
  });
  const bridgeBase = url(bridge.app.server.address() as AddressInfo);
  const exposed = env.HOST !== DEV_HOST ? `  WARNING: HOST=${env.HOST}: the development secrets below are reachable from the network` : '';
  const mode = env.EMAIL_PROVIDER_API_KEY ? `delivering through ${env.EMAIL_PROVIDER ?? 'resend'}` : 'stub mode: nothing is delivered';
  console.error(
    [
      '',
      'DOM DAO platform is up (embedded defaults)',
      `  notification service  ${base}  (${mode})`,
      `  bridge service        ${bridgeBase}  (${bridge.dbKind} database, ${bridge.config.SESSION_STORE} sessions, ${bridge.canisters.mode} canisters, state in ${bridge.config.DATA_DIR})`,
      `  service token         ${generatedToken ? `${DEV_NOTIFICATION_TOKEN}  (development default; set SERVICE_TOKEN to override)` : 'from SERVICE_TOKEN'}`,
      '',
      ...(exposed ? [exposed, ''] : []),
      `  home ${bridgeBase}/   sign in at ${bridgeBase}/login`,
      `  register: npm run register -- --email ada@example.org --name 'Ada Lovelace' --dob 1990-05-01   (asks for the password)`,
      `  first admin: ${DEV_ADMIN_EMAIL} (admin once verified). It has no password until it is registered: register it as above`,
      `               with the password you choose, or let \`npm run journey\` register it with the password '${JOURNEY_PASSWORD}'`,
      `  development defaults: verification links in ${dataDir}/dev-outbox.jsonl, payment webhook secret ${DEV_WEBHOOK_SECRET};`,
      `                        \`npm run journey\` walks the whole membership journey against this platform`,
      `  price: ${bridgeBase}/api/price/dom-usd   history: ${bridgeBase}/api/price/dom-usd/history`,
      `         ${fakePrice ? `development sources: fixed ${DEV_DOM_PRICE_USD} USD and a local fake JSON source at ${fakePrice.url}` : 'sources from PRICE_SOURCES / PRICE_SOURCES_FILE'}`,
      `  governance: ${bridgeBase}/api/governance/proposals   ratified price: ${bridgeBase}/api/governance/price   settings: ${bridgeBase}/api/governance/settings`,
      `              members sign in, then POST /api/governance/propose, /vote, /execute (session cookie, from a front-end origin)`,
      `  try: curl -s ${bridgeBase}/health`,
      `       curl -s ${base}/api/v1/health`,
      `       curl -s -X POST ${base}/api/v1/send -H 'authorization: Bearer ${generatedToken ? DEV_NOTIFICATION_TOKEN : '$SERVICE_TOKEN'}' \\`,
      `            -H 'content-type: application/json' \\`,
      `            -d '{"type":"welcome","to":"ada@example.com","domain":"domdao.example","data":{"user_name":"Ada"}}'`,
      '',
    ].join('\n'),
  );
  const stop = () => void Promise.all([bridge.app.close(), notification.close(), fakePrice?.close()]).then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
} catch (err) {
  if (err instanceof ConfigError) {
    console.error(`platform: ${err.message}`);
    process.exit(1);
  }
  throw err;
}
