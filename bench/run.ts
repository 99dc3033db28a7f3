// `npm run bench [name…]`: runs the benchmarks and prints Markdown for the closing notes.
import { benchAccessLog } from './access-log.ts';
import { benchAi } from './ai.ts';
import { benchBridge } from './bridge.ts';
import { benchCanisters } from './canisters.ts';
import { benchGateway } from './gateway.ts';
import { benchDurability } from './durability.ts';
import { benchLedger } from './ledger.ts';
import { benchNotification } from './notification.ts';
import { benchPrice } from './price.ts';
import { benchSeveralBridges } from './several-bridges.ts';
import { benchGovernance } from './governance.ts';
import { benchMemory } from './memory.ts';
import { benchWasm } from './wasm.ts';

const benches: Record<string, () => Promise<string>> = {
  notification: benchNotification,
  canisters: benchCanisters,
  bridge: benchBridge,
  price: benchPrice,
  ledger: benchLedger,
  governance: benchGovernance,
  gateway: benchGateway,
  durability: benchDurability,
  ai: benchAi,
  memory: benchMemory,
  wasm: benchWasm,
  'access-log': benchAccessLog,
  'several-bridges': benchSeveralBridges,
};
const wanted = process.argv.slice(2);
const names = wanted.length > 0 ? wanted : Object.keys(benches);
console.log(
  `# Benchmarks (${new Date().toISOString()}, Node ${process.version}, ${(await import('node:os')).cpus().length} CPUs)\n`,
);
for (const name of names) {
  const run = benches[name];
  if (!run) {
    console.error(`unknown benchmark ${name}; known: ${Object.keys(benches).join(', ')}`);
    process.exit(2);
  }
  console.log(await run());
  console.log();
}
