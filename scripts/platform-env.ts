// Where the platform of `npm start` listens and keeps its development outbox, read from the variables
// `npm start` reads, as it reads them (empty counts as unset; a wildcard HOST is reached on loopback),
// so that `npm run register` and `npm run journey` follow a moved port or data directory (decision R16).
import { existsSync, readFileSync } from 'node:fs';

export interface PlatformEnv {
  /** The bridge's base URL: BRIDGE_URL, else HOST and BRIDGE_PORT (3200) as `npm start` listens. */
  bridge: string;
  /** The development outbox file: DEV_OUTBOX_FILE, else `<DATA_DIR or .data/bridge>/dev-outbox.jsonl`. */
  outbox: string;
}

export function platformEnv(env: NodeJS.ProcessEnv = process.env): PlatformEnv {
  const get = (name: string): string | undefined => (env[name] === '' ? undefined : env[name]);
  const host = get('HOST');
  const reach = !host || host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  return {
    bridge: (get('BRIDGE_URL') ?? `http://${reach}:${get('BRIDGE_PORT') ?? '3200'}`).replace(/\/+$/, ''),
    outbox: get('DEV_OUTBOX_FILE') ?? `${get('DATA_DIR') ?? '.data/bridge'}/dev-outbox.jsonl`,
  };
}

/** The sentence for a bridge that does not answer, naming how to point the command at it. */
export function notRunning(bridge: string, err: unknown, also = ''): string {
  const cause = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).message;
  return `the bridge at ${bridge} did not answer (${cause}); is \`npm start\` running? If it is, give this command the BRIDGE_PORT (or BRIDGE_URL) and HOST it runs with${also}`;
}

/** The newest link of `type` the development outbox holds for `to`; a sentence (thrown) when there is no outbox. */
export function outboxLink(outbox: string, to: string, type: string): string | undefined {
  if (!existsSync(outbox)) {
    throw new Error(
      `no development outbox at ${outbox}: give this command the DATA_DIR (or DEV_OUTBOX_FILE) that npm start runs with`,
    );
  }
  const lines = readFileSync(outbox, 'utf8')
    .trim()
    .split('\n')
    .filter((l) => l !== '');
  return lines
    .map((l) => JSON.parse(l) as { to: string; type?: string; link: string })
    .filter((l) => l.to === to && l.type === type)
    .at(-1)?.link;
}
