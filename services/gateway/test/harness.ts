// The real platform for the edge tests: `npm start` (scripts/start.ts) as its own process on free
// ports, with a temporary DATA_DIR, a known service token, a foreign-scoped token and a shared cookie
// domain, its JSON log lines kept so a test can tell whether a request reached a service.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, rmSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, START_DEV_FLAGS } from '@domdao/test-helpers';
import { seededDataDir } from '@domdao/bridge-service/testing/embedded-template';
import { buildGateway } from '../src/app.ts';
import { loadGatewayConfig } from '../src/config.ts';

export const root = new URL('../../..', import.meta.url).pathname;
export const SERVICE_TOKEN = 'edge-test-service-token-0123456789';
export const FOREIGN_TOKEN = 'edge-test-payments-token-0123456789';
export const COOKIE_DOMAIN = '.domdao.test';

export interface Platform {
  gatewayPort: number;
  bridgePort: number;
  notificationPort: number;
  pid: number;
  /** Every JSON log line the platform wrote so far. */
  logs(): Array<Record<string, unknown>>;
  /** Verification links from the development outbox (decision B54: it holds every email), oldest first. */
  outbox(): Array<{ to: string; link: string }>;
  stop(): Promise<void>;
}

export async function startPlatform(
  env: (ports: { gateway: number; bridge: number; notification: number }) => Record<string, string>,
): Promise<Platform> {
  // The embedded database copied from the run's template (decision R13): the platform opens it as a restart does.
  const dir = await seededDataDir('domdao-edge-');
  const ports = { gateway: await freePort(), bridge: await freePort(), notification: await freePort() };
  const child: ChildProcess = spawn(process.execPath, [...START_DEV_FLAGS, 'scripts/start.ts'], {
    cwd: root,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      NODE_ENV: 'development',
      DATA_DIR: dir,
      LOG_LEVEL: 'info',
      GATEWAY_PORT: String(ports.gateway),
      BRIDGE_PORT: String(ports.bridge),
      NOTIFICATION_PORT: String(ports.notification),
      METRICS_PORT: String(await freePort()),
      SERVICE_TOKEN,
      FOREIGN_SERVICE_TOKENS: `payments=${FOREIGN_TOKEN}`,
      COOKIE_DOMAIN,
      REGISTRATION_LIMIT_PER_CLIENT: '1000',
      ...env(ports),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let banner = '';
  child.stdout!.on('data', (d) => (out += d));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`npm start did not come up in 60 s:\n${banner}`)), 60_000);
    child.stderr!.on('data', (d) => {
      banner += d;
      if (/DOM DAO platform is up[\s\S]*try: curl/.test(banner)) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`npm start exited with ${code}:\n${banner}`));
    });
  });
  const outboxFile = join(dir, 'dev-outbox.jsonl');
  return {
    gatewayPort: ports.gateway,
    bridgePort: ports.bridge,
    notificationPort: ports.notification,
    pid: child.pid!,
    logs: () =>
      out
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as Record<string, unknown>),
    outbox: () =>
      existsSync(outboxFile)
        ? readFileSync(outboxFile, 'utf8')
            .split('\n')
            .filter(Boolean)
            .map((l) => JSON.parse(l) as { to: string; type?: string; link: string })
            .filter((m) => m.type === undefined || m.type === 'verification')
        : [],
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
        if (child.exitCode === null) child.kill('SIGKILL');
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A gateway in this process whose bridge and notification service are both the one service at `url`. */
export const gatewayFor = (url: string) =>
  buildGateway({
    config: loadGatewayConfig({
      LOG_LEVEL: 'silent',
      NOTIFICATION_SERVICE_TOKEN: SERVICE_TOKEN,
      BRIDGE_URL: url,
      NOTIFICATION_URL: url,
    }),
  });
