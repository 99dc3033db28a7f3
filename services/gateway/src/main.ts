// `npm run gateway`: the gateway alone, configured by the environment (docs/reference/config-gateway.md).
import { pathToFileURL } from 'node:url';
import { ConfigError } from '@domdao/config';
import { listenForMetrics, runService, type Metrics } from '@domdao/service-kit';
import { buildGateway } from './app.ts';
import { loadGatewayConfig } from './config.ts';

export async function startGateway(env: NodeJS.ProcessEnv = process.env, options: { metrics?: Metrics } = {}) {
  const config = loadGatewayConfig(env);
  const app = await buildGateway({ config, ...(options.metrics && { metrics: options.metrics }) });
  // Decision B70: metrics on their own listener, never on the gateway's (public) port.
  const metricsListener = await listenForMetrics(app, config);
  await app.listen({ port: config.PORT, host: config.HOST });
  if (config.NOTIFICATION_SERVICE_TOKEN === undefined) {
    app.log.warn(
      { event: 'gateway.notify_fail_closed' },
      'NOTIFICATION_SERVICE_TOKEN is unset: /notify answers 503 service_unavailable',
    );
  }
  app.log.info(
    {
      event: 'gateway.started',
      port: config.PORT,
      bridge: config.BRIDGE_URL,
      notification: config.NOTIFICATION_URL,
      metrics: metricsListener?.url ?? null,
    },
    'gateway listening',
  );
  return { app, config, metricsListener };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href)
  await runService('gateway', () => startGateway(), [ConfigError]);
