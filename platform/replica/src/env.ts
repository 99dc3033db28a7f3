// The environment `npm run replica` reads (decisions W12, R30), declared once: main.ts parses it and
// `npm run docs:config` documents it (docs/reference/config-replica.md) from this same list.

/** One variable: its default and what it means, as docs/reference/config-replica.md shows it. */
export interface EnvVariable {
  name: string;
  default?: string;
  accepts: string;
  description: string;
}

export const REPLICA_ENV: readonly EnvVariable[] = [
  {
    name: 'REPLICA_PORT',
    default: '4943',
    accepts: 'port 0–65535',
    description: "port of the IC HTTP interface (a local replica's usual port); `0` takes a free one",
  },
  {
    name: 'REPLICA_DIR',
    default: '.data/replica',
    accepts: 'path',
    description:
      "the canisters' state, keys, identity and `ic.env` (the bridge's `IC_*` variables), kept across restarts; remove it to start afresh",
  },
  {
    name: 'REPLICA_HOST',
    default: '127.0.0.1',
    accepts: 'loopback address',
    description:
      'listen address: loopback only (`127.0.0.1` or `::1`), since the replica is a development and test tool with a test root key',
  },
];

export interface ReplicaEnv {
  port: number;
  dir: string;
  host: string;
}

const defaults = Object.fromEntries(REPLICA_ENV.map((v) => [v.name, v.default!]));

/** The replica's settings, or the sentence that says which variable is wrong (thrown). */
export function readReplicaEnv(source: NodeJS.ProcessEnv = process.env): ReplicaEnv {
  // Empty counts as unset, as in the services (a copied .env.example leaves many variables empty).
  const env = (name: string): string =>
    source[name] === undefined || source[name] === '' ? defaults[name]! : source[name];
  const portText = env('REPLICA_PORT');
  const port = Number(portText);
  if (!/^\d+$/.test(portText) || port > 65_535)
    throw new Error(`REPLICA_PORT=${portText} is not a port number (0–65535)`);
  return { port, dir: env('REPLICA_DIR'), host: env('REPLICA_HOST') };
}
