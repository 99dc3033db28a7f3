// `npm run notification`: the service alone, configured by the environment (spec 3 variables).
import { ConfigError } from '@domdao/config';
import { listenForMetrics, type Metrics } from '@domdao/service-kit';
import { buildApp } from './app.ts';
import { loadNotificationConfig } from './config.ts';

export async function startNotificationService(
  env: NodeJS.ProcessEnv = process.env,
  options: { metrics?: Metrics } = {},
) {
  const config = loadNotificationConfig(env);
  const app = await buildApp({ config, ...(options.metrics && { metrics: options.metrics }) });
  // Decision B70: metrics on their own listener (METRICS_PORT), never on the service's port.
  const metricsListener = await listenForMetrics(app, config);
  await app.listen({ port: config.PORT, host: config.HOST });
  if (metricsListener) app.log.info({ event: 'metrics.listening', url: metricsListener.url }, 'metrics listener up');
  if (config.SERVICE_TOKEN === undefined) {
    app.log.warn(
      { event: 'service.fail_closed' },
      'SERVICE_TOKEN is unset: every request answers 503 service_unavailable',
    );
  }
  return app;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  try {
    const app = await startNotificationService();
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      process.once(signal, () => {
        app.log.info({ event: 'service.stopping', signal }, 'shutting down');
        void app.close().then(() => process.exit(0));
      });
    }
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`notification service: ${err.message}`);
      process.exit(1);
    }
    throw err;
  }
}
