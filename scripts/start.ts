// `npm start`: the whole platform on embedded defaults, no external server needed.
// Today that is the notification service in stub mode; each service joins here as it lands.
import { ConfigError } from '@domdao/config';
import { startNotificationService } from '../services/notification/src/main.ts';

/** Documented in README: only for local development, never for a deployment. */
export const DEV_NOTIFICATION_TOKEN = 'dev-notification-token-change-me';

const env: NodeJS.ProcessEnv = { ...process.env };
let generatedToken = false;
if (!env.SERVICE_TOKEN) {
  env.SERVICE_TOKEN = DEV_NOTIFICATION_TOKEN;
  generatedToken = true;
}

try {
  const notification = await startNotificationService(env);
  const port = (notification.server.address() as { port: number }).port;
  const base = `http://127.0.0.1:${port}`;
  const mode = env.EMAIL_PROVIDER_API_KEY ? `delivering through ${env.EMAIL_PROVIDER ?? 'resend'}` : 'stub mode: nothing is delivered';
  console.error(
    [
      '',
      'DOM DAO platform is up (embedded defaults)',
      `  notification service  ${base}  (${mode})`,
      `  service token         ${generatedToken ? `${DEV_NOTIFICATION_TOKEN}  (development default; set SERVICE_TOKEN to override)` : 'from SERVICE_TOKEN'}`,
      '',
      `  try: curl -s ${base}/api/v1/health`,
      `       curl -s -X POST ${base}/api/v1/send -H 'authorization: Bearer ${generatedToken ? DEV_NOTIFICATION_TOKEN : '$SERVICE_TOKEN'}' \\`,
      `            -H 'content-type: application/json' \\`,
      `            -d '{"type":"welcome","to":"ada@example.com","domain":"domdao.example","data":{"user_name":"Ada"}}'`,
      '',
    ].join('\n'),
  );
  const stop = () => void notification.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
} catch (err) {
  if (err instanceof ConfigError) {
    console.error(`platform: ${err.message}`);
    process.exit(1);
  }
  throw err;
}
