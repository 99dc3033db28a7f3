// `npm start` as a process manager runs it (decisions R14, R27): spawned in its own process group,
// its processes marked in their environment so that a test finds (and, after a failure, ends) every
// one of them, whatever their parent or group.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from './free-port.ts';

const root = join(import.meta.dirname, '..', '..', '..');
const MARKER = 'DOMDAO_SIGNAL_TEST';

/** Every live process whose environment carries this run's marker, with its command line. */
export function markedProcesses(marker: string): Array<{ pid: number; cmd: string }> {
  const found: Array<{ pid: number; cmd: string }> = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (!readFileSync(`/proc/${name}/environ`, 'latin1').split('\0').includes(`${MARKER}=${marker}`)) continue;
      const state = /^State:\s+(\S)/m.exec(readFileSync(`/proc/${name}/status`, 'latin1'))?.[1];
      if (state === 'Z') continue; // exited, waiting for its parent to reap it
      found.push({
        pid: Number(name),
        cmd: readFileSync(`/proc/${name}/cmdline`, 'latin1').split('\0').join(' ').trim(),
      });
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return found;
}

export interface Started {
  npm: ChildProcess;
  marker: string;
  ports: number[];
  gateway: number;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves once the output matches `re` (or rejects when npm exits first). */
  waitFor: (re: RegExp) => Promise<void>;
}

/**
 * A guard against hanging, not a measure of speed: before decision R14 a SIGINT to npm left npm, its
 * shell and the platform all waiting, so the case fails here instead of at the runner's watchdog,
 * which would not reach npm's own process group.
 */
export function unlessHung<T>(p: Promise<T>, what: string, s: Started): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: nothing happened for 120 s\n${s.output()}`)), 120_000);
  });
  return Promise.race([p, hung]).finally(() => clearTimeout(timer));
}

/** Ends what a failed case left (processes this file started, found by their marker), so the next case starts clean. */
export async function endLeftovers(marker: string): Promise<void> {
  for (let left = markedProcesses(marker); left.length > 0; left = markedProcesses(marker)) {
    for (const p of left) {
      try {
        process.kill(p.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

export function startNpm(
  dataDir: string,
  ports: { gateway: number; bridge: number; notification: number; metrics: number },
  extra: NodeJS.ProcessEnv = {},
): Started {
  const marker = randomUUID();
  const npm = spawn('npm', ['start'], {
    cwd: root,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      NODE_ENV: 'development',
      LOG_LEVEL: 'warn',
      DATA_DIR: dataDir,
      GATEWAY_PORT: String(ports.gateway),
      BRIDGE_PORT: String(ports.bridge),
      NOTIFICATION_PORT: String(ports.notification),
      METRICS_PORT: String(ports.metrics),
      npm_config_update_notifier: 'false',
      [MARKER]: marker,
      ...extra,
    },
    // Its own process group, as under a process manager; the test still signals npm's PID only.
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const waiters = new Set<() => void>();
  const onData = (d: Buffer) => {
    out += d.toString();
    for (const w of waiters) w();
  };
  npm.stdout.on('data', onData);
  npm.stderr.on('data', onData);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    npm.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const waitFor = (re: RegExp) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (re.test(out)) {
          waiters.delete(check);
          resolve();
        }
      };
      waiters.add(check);
      check();
      void exited.then(() => {
        waiters.delete(check);
        if (!re.test(out)) reject(new Error(`npm exited before printing ${re}:\n${out}`));
      });
    });
  return {
    npm,
    marker,
    ports: [ports.gateway, ports.bridge, ports.notification, ports.metrics],
    gateway: ports.gateway,
    output: () => out,
    exited,
    waitFor,
  };
}

/** Free ports for the platform's four listeners. */
export async function platformPorts() {
  return {
    gateway: await freePort(),
    bridge: await freePort(),
    notification: await freePort(),
    metrics: await freePort(),
  };
}

/** What `npm start` prints once the gateway, the bridge and the notification service all listen. */
const UP = /DOM DAO platform is up[\s\S]*try: curl/;

/**
 * `npm start` on free ports at LOG_LEVEL info (the notification service logs each stub send, email.stub_send,
 * with its request id), once it is up; its listeners' base URLs. A start that fails or hangs ends what it started.
 */
export async function startPlatform(
  dataDir: string,
): Promise<{ s: Started; gateway: string; bridge: string; notification: string }> {
  const ports = await platformPorts();
  const s = startNpm(dataDir, ports, { LOG_LEVEL: 'info' });
  try {
    await unlessHung(s.waitFor(UP), 'start', s);
  } catch (e) {
    await endLeftovers(s.marker);
    throw e;
  }
  const url = (port: number) => `http://127.0.0.1:${port}`;
  return { s, gateway: url(ports.gateway), bridge: url(ports.bridge), notification: url(ports.notification) };
}

/** A welcome email sent in stub mode with `token` to the send endpoint `url`; its request id names it in email.stub_send. */
export function stubSend(url: string, token: string) {
  const id = randomUUID();
  return {
    method: 'POST' as const,
    url,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, 'x-request-id': id },
    body: JSON.stringify({
      type: 'welcome',
      to: 'ada@example.com',
      domain: 'domdao.example',
      data: { user_name: 'Ada' },
    }),
    id,
  };
}

/** The request ids of the sends the notification service made in stub mode (its email.stub_send lines in `output`). */
export function stubSends(output: string): Set<string> {
  const ids = new Set<string>();
  for (const line of output.split('\n')) {
    if (!line.includes('"email.stub_send"')) continue;
    const id = (JSON.parse(line) as { request_id?: string }).request_id;
    if (id) ids.add(id);
  }
  return ids;
}
