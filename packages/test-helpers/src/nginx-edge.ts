// The committed production edge (deploy/nginx) in front of services a test started: Debian's nginx
// with its njs module, run by the test as its own process on 127.0.0.1 from a temporary directory
// holding a copy of the committed files and site/ files of the test's own (the only part an operator
// edits: upstreams, listen, logs). Used by the edge's own tests and by those of several bridges.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { acceptsConnection, freePort } from './free-port.ts';

export const NGINX = process.env.NGINX_PATH ?? '/usr/sbin/nginx';
export const NJS = '/usr/lib/nginx/modules/ngx_http_js_module.so';
const ROOT = join(import.meta.dirname, '..', '..', '..');
const COMMITTED = ['nginx.conf', 'routes.conf', 'proxy-headers.conf', 'notify-auth.js'];

export interface EdgeOptions {
  /** Ports of the bridge instances on 127.0.0.1: the `domdao_bridge` upstream, in this order. */
  bridges: number[];
  /** Ports of the notification instances; none = one closed port (/notify answers 503). */
  notifications?: number[];
  /** TLS and HTTP/2 with a self-signed certificate for these names and 127.0.0.1; unset = plain HTTP/1.1. */
  tlsNames?: string[];
  /** The nginx master's environment (NOTIFICATION_SERVICE_TOKEN, FOREIGN_SERVICE_TOKENS). */
  env?: Record<string, string>;
  /** The port to listen on (a test that names it in a service's configuration first); unset = a free one. */
  port?: number;
}

export interface AccessLine {
  request_id: string;
  method: string;
  path: string;
  status: number;
  /** The instance that answered, as nginx names it (`127.0.0.1:<port>`, several when it tried more). */
  upstream: string;
  upstream_status: string;
}

export interface Edge {
  /** `http://127.0.0.1:<port>`, or `https://` with tlsNames. */
  base: string;
  port: number;
  dir: string;
  /** The self-signed certificate (PEM) and its file, with tlsNames. */
  ca?: string;
  caFile?: string;
  /** The access log's lines so far (one JSON line per request, the committed `domdao` format). */
  accessLog(): AccessLine[];
  errorLog(): string;
  /** Stops nginx by its PID (the master; its workers follow) and removes the directory (KEEP_NGINX_DIR keeps it). */
  stop(): Promise<void>;
}

export function requireNginx(): void {
  if (!(existsSync(NGINX) && existsSync(NJS)))
    throw new Error(
      `nginx with its njs module is required: apt-get install nginx-light libnginx-mod-http-js (scripts/README.md "Servers and tools the tests need")`,
    );
}

export async function startEdge(o: EdgeOptions): Promise<Edge> {
  requireNginx();
  const dir = mkdtempSync(join(tmpdir(), 'domdao-nginx-'));
  // nginx's workers (not root) must reach the paths below.
  chmodSync(dir, 0o755);
  const port = o.port ?? (await freePort());
  let nginx: ChildProcess | undefined;
  try {
    if (o.tlsNames) {
      execFileSync(
        'openssl',
        [
          ...[
            'req',
            '-x509',
            '-newkey',
            'ec',
            '-pkeyopt',
            'ec_paramgen_curve:P-256',
            '-nodes',
            '-days',
            '2',
            '-subj',
            '/CN=domdao.test',
          ],
          ...['-addext', `subjectAltName=${[...o.tlsNames.map((n) => `DNS:${n}`), 'IP:127.0.0.1'].join(',')}`],
          ...['-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')],
        ],
        { stdio: 'ignore' },
      );
    }
    for (const f of COMMITTED) copyFileSync(join(ROOT, 'deploy/nginx', f), join(dir, f));
    mkdirSync(join(dir, 'site'));
    const notifications = o.notifications?.length ? o.notifications : [await freePort()];
    // As the committed upstreams.conf: every instance with its failure bound, idle connections kept 500 ms (E19).
    const upstream = (name: string, ports: number[]) =>
      `upstream ${name} {\n${ports.map((p) => `  server 127.0.0.1:${p} max_fails=3 fail_timeout=10s;\n`).join('')}  keepalive 8;\n  keepalive_timeout 500ms;\n}\n`;
    writeFileSync(
      join(dir, 'site/upstreams.conf'),
      upstream('domdao_bridge', o.bridges) + upstream('domdao_notification', notifications),
    );
    writeFileSync(
      join(dir, 'site/server.conf'),
      o.tlsNames
        ? `listen 127.0.0.1:${port} ssl http2;\nserver_name _;\nssl_certificate ${dir}/cert.pem;\nssl_certificate_key ${dir}/key.pem;\nssl_session_cache shared:domdao_tls:1m;\n`
        : `listen 127.0.0.1:${port};\nserver_name _;\n`,
    );
    writeFileSync(
      join(dir, 'site/http.conf'),
      `access_log ${dir}/access.log domdao;\nerror_log ${dir}/error.log info;\n` +
        ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((t) => `${t}_temp_path ${dir}/tmp-${t};`).join('\n') +
        '\n',
    );
    const proc = spawn(
      NGINX,
      [
        '-e',
        join(dir, 'error.log'),
        '-p',
        `${dir}/`,
        '-c',
        join(dir, 'nginx.conf'),
        '-g',
        `daemon off; pid ${dir}/nginx.pid;`,
      ],
      {
        env: { PATH: process.env.PATH, ...o.env },
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    nginx = proc;
    let stderr = '';
    proc.stderr.on('data', (d) => (stderr += d));
    // nginx writes its pid file only once its sockets are bound: another process on the port (a
    // concurrent run drew the same free port) fails the start here instead of answering for nginx.
    for (let i = 0; !(existsSync(join(dir, 'nginx.pid')) && (await acceptsConnection(port))); i++) {
      if (proc.exitCode !== null || i > 100)
        throw new Error(
          `nginx did not start: ${stderr}\n${existsSync(join(dir, 'error.log')) ? readFileSync(join(dir, 'error.log'), 'utf8') : ''}`,
        );
      await new Promise((r) => setTimeout(r, 100));
    }
  } catch (e) {
    await stopNginx(nginx);
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
  const read = (f: string) => (existsSync(join(dir, f)) ? readFileSync(join(dir, f), 'utf8') : '');
  return {
    base: `${o.tlsNames ? 'https' : 'http'}://127.0.0.1:${port}`,
    port,
    dir,
    ...(o.tlsNames && { ca: readFileSync(join(dir, 'cert.pem'), 'utf8'), caFile: join(dir, 'cert.pem') }),
    accessLog: () =>
      read('access.log')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as AccessLine),
    errorLog: () => read('error.log'),
    async stop() {
      await stopNginx(nginx);
      if (process.env.KEEP_NGINX_DIR) console.log(`# kept ${dir}`);
      else rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function stopNginx(nginx: ChildProcess | undefined): Promise<void> {
  if (!nginx?.pid || nginx.exitCode !== null || nginx.signalCode !== null) return;
  const exited = new Promise((r) => nginx.once('exit', r));
  nginx.kill('SIGTERM');
  await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
  if (nginx.exitCode === null && nginx.signalCode === null) {
    nginx.kill('SIGKILL');
    await exited;
  }
}
