// `npm run replica` (decisions W12–W16, R30): the test replica over the IC's HTTP interface, for
// development and tests only. REPLICA_PORT (default 4943, a local replica's usual port; 0 takes a free
// one), REPLICA_DIR (default .data/replica: the canisters' state, keys, identity and ic.env, kept
// across restarts), REPLICA_HOST (loopback only: 127.0.0.1 by default, or ::1). SIGTERM and SIGINT
// stop it with a snapshot; a second signal exits at once (the journal keeps every answered call).
import { performance } from 'node:perf_hooks';
import { readReplicaEnv, type ReplicaEnv } from './env.ts';
import { ReplicaConfigError, startReplica } from './server.ts';

const started = performance.now();
const fail = (message: string): never => {
  console.error(`replica: ${message}`);
  process.exit(1);
};
let settings: ReplicaEnv;
try {
  settings = readReplicaEnv();
} catch (e) {
  fail((e as Error).message);
}
const { port, dir, host } = settings!;
// Decision W18: `npm run replica -- --empty` makes a new REPLICA_DIR with no canister, for `npm run deploy`.
const args = process.argv.slice(2);
for (const a of args)
  if (a !== '--empty')
    fail(`unknown option ${a}: the only option is --empty (start a new REPLICA_DIR with no canisters)`);
const empty = args.includes('--empty');

try {
  const r = await startReplica({ dir, empty, port, host, log: (l) => console.log(l) });
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.log(
    [
      'DOM DAO test replica: a development and test tool, NOT an IC network (the canisters run in Node, metered, with a test root key)',
      r.empty
        ? `  no canisters but those \`npm run deploy\` installed (an --empty replica) in ${r.dir}`
        : `  ${r.installed ? 'installed the six canisters in' : 'restored the canisters from'} ${r.dir}`,
      `  IC HTTP interface: ${r.url} (root key from /api/v2/status: agents need fetchRootKey)`,
      r.empty
        ? `  identity (a controller for npm run deploy): ${r.principal}`
        : `  identity (controller, admin, registrar, trusted proposer): ${r.principal}`,
      `  bridge variables: ${r.dir}/ic.env   (set -a && . ${r.dir}/ic.env && set +a && npm start)`,
      `ready in ${seconds} s at ${r.url}`,
    ].join('\n'),
  );
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) process.exit(1);
    stopping = true;
    console.log(`replica: ${signal} received: writing a snapshot and stopping`);
    r.stop().then(
      () => {
        console.log('replica: stopped');
        process.exit(0);
      },
      (e: unknown) => fail(`stopping failed: ${(e as Error).message}`),
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
} catch (e) {
  if (e instanceof ReplicaConfigError) fail(e.message);
  const code = (e as { code?: string }).code;
  if (code === 'EADDRINUSE') fail(`port ${port} is taken: set REPLICA_PORT to another one (0 takes a free port)`);
  throw e;
}
