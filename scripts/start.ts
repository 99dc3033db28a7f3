// `npm start`: the whole platform on embedded defaults, no external server needed.
// The notification service in stub mode and the bridge (PGlite and the embedded canisters under
// .data/bridge, email through that notification service).
import { ConfigError } from '@domdao/config';
import { startNotificationService } from '../services/notification/src/main.ts';
import { startBridge } from '../services/bridge/src/main.ts';

/** Documented in README: only for local development, never for a deployment. */
import { DEV_ADMIN_EMAIL, DEV_NOTIFICATION_TOKEN, DEV_WEBHOOK_SECRET } from './dev-defaults.ts';

const env: NodeJS.ProcessEnv = { ...process.env };
let generatedToken = false;
if (!env.SERVICE_TOKEN) {
  env.SERVICE_TOKEN = DEV_NOTIFICATION_TOKEN;
  generatedToken = true;
}

// Each service keeps its own default port unless NOTIFICATION_PORT / BRIDGE_PORT say otherwise.
const { PORT: _port, ...shared } = env;

try {
  const notification = await startNotificationService({ ...shared, ...(env.NOTIFICATION_PORT && { PORT: env.NOTIFICATION_PORT }) });
  const port = (notification.server.address() as { port: number }).port;
  const base = `http://127.0.0.1:${port}`;
  // Development conveniences of `npm start` only, printed below; the services alone never default them.
  const dataDir = env.DATA_DIR ?? '.data/bridge';
  const bridge = await startBridge({
    ...shared,
    DEV_OUTBOX_FILE: env.DEV_OUTBOX_FILE ?? `${dataDir}/dev-outbox.jsonl`,
    PAYMENT_WEBHOOK_SECRET: env.PAYMENT_WEBHOOK_SECRET ?? DEV_WEBHOOK_SECRET,
    BOOTSTRAP_ADMIN_EMAILS: env.BOOTSTRAP_ADMIN_EMAILS ?? DEV_ADMIN_EMAIL,
    ...(env.BRIDGE_PORT && { PORT: env.BRIDGE_PORT }),
    NOTIFICATION_SERVICE_URL: env.NOTIFICATION_SERVICE_URL ?? base,
    NOTIFICATION_SERVICE_TOKEN: env.NOTIFICATION_SERVICE_TOKEN ?? env.SERVICE_TOKEN,
  });
  const bridgeBase = `http://127.0.0.1:${bridge.config.PORT}`;
  const mode = env.EMAIL_PROVIDER_API_KEY ? `delivering through ${env.EMAIL_PROVIDER ?? 'resend'}` : 'stub mode: nothing is delivered';
  console.error(
    [
      '',
      'DOM DAO platform is up (embedded defaults)',
      `  notification service  ${base}  (${mode})`,
      `  bridge service        ${bridgeBase}  (${bridge.dbKind} database, ${bridge.config.SESSION_STORE} sessions, ${bridge.canisters.mode} canisters, state in ${bridge.config.DATA_DIR})`,
      `  service token         ${generatedToken ? `${DEV_NOTIFICATION_TOKEN}  (development default; set SERVICE_TOKEN to override)` : 'from SERVICE_TOKEN'}`,
      '',
      `  sign in at ${bridgeBase}/login   register with the helper in services/bridge/src/registration/client-crypto.ts`,
      `  development defaults: verification links in ${dataDir}/dev-outbox.jsonl, payment webhook secret ${DEV_WEBHOOK_SECRET},`,
      `                        first admin ${DEV_ADMIN_EMAIL}; \`npm run journey\` walks the whole membership journey against this platform`,
      `  try: curl -s ${bridgeBase}/health`,
      `       curl -s ${base}/api/v1/health`,
      `       curl -s -X POST ${base}/api/v1/send -H 'authorization: Bearer ${generatedToken ? DEV_NOTIFICATION_TOKEN : '$SERVICE_TOKEN'}' \\`,
      `            -H 'content-type: application/json' \\`,
      `            -d '{"type":"welcome","to":"ada@example.com","domain":"domdao.example","data":{"user_name":"Ada"}}'`,
      '',
    ].join('\n'),
  );
  const stop = () => void Promise.all([bridge.app.close(), notification.close()]).then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
} catch (err) {
  if (err instanceof ConfigError) {
    console.error(`platform: ${err.message}`);
    process.exit(1);
  }
  throw err;
}
