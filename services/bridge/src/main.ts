// `npm run bridge`: the bridge alone, configured by the environment (README "Bridge service").
import { loadBridgeConfig } from './config.ts';
import { openBridge } from './app.ts';

const config = loadBridgeConfig();
const { app, canisters, dbKind } = await openBridge(config, process.env);
await app.listen({ port: config.PORT, host: config.HOST });
app.log.info({ event: 'bridge.started', port: config.PORT, database: dbKind, sessions: config.SESSION_STORE, canisters: canisters.mode, canister_principal: canisters.principal }, 'bridge listening');
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    app.close().then(() => process.exit(0), () => process.exit(1));
  });
}
