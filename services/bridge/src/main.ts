// `npm run bridge`: the bridge alone, configured by the environment (docs/reference/config-bridge.md).
import { pathToFileURL } from 'node:url';
import { ConfigError } from '@domdao/config';
import { DirectoryLockedError } from '@domdao/canisters/embedded';
import { listenForMetrics, runService } from '@domdao/service-kit';
import { openBridge, type OpenBridgeOptions } from './compose/open-bridge.ts';
import { loadBridgeConfig } from './config.ts';
import { CanisterSetRefused } from './core/canister-set/refused.ts';

export async function startBridge(
  env: NodeJS.ProcessEnv,
  options: Pick<OpenBridgeOptions, 'metrics' | 'onProgress'> = {},
) {
  const config = loadBridgeConfig(env);
  const opened = await openBridge(config, env, {
    ...(options.metrics && { metrics: options.metrics }),
    ...(options.onProgress && { onProgress: options.onProgress }),
  });
  // Decision B70: metrics on their own listener (METRICS_PORT), never on the bridge's public port.
  const metricsListener = await listenForMetrics(opened.app, config);
  await opened.app.listen({ port: config.PORT, host: config.HOST });
  opened.app.log.info(
    {
      event: 'bridge.started',
      port: config.PORT,
      database: opened.dbKind,
      sessions: config.SESSION_STORE,
      canisters: opened.canisters.mode,
      canister_principal: opened.canisters.principal,
      metrics: metricsListener?.url ?? null,
    },
    'bridge listening',
  );
  return { ...opened, config };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href)
  await runService('bridge', () => startBridge(process.env), [ConfigError, DirectoryLockedError, CanisterSetRefused]);
