// Shared by the browser tests that need real sibling subdomains: *.dao.test over HTTPS with a
// certificate generated here (openssl), each hostname resolved to 127.0.0.1 by Chromium
// (--host-resolver-rules) and the self-signed certificate accepted (--ignore-certificate-errors).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { launchChromium } from './browser.ts';

/** HTTPS servers for *.dao.test, not yet listening (written into `dir`: key.pem, cert.pem). */
export function daoTestServers(dir: string, count: number): Server[] {
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=dao.test',
      '-addext',
      'subjectAltName=DNS:dao.test,DNS:*.dao.test',
      '-keyout',
      join(dir, 'key.pem'),
      '-out',
      join(dir, 'cert.pem'),
    ],
    { stdio: 'ignore' },
  );
  const tls = { key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) };
  return Array.from({ length: count }, () => createHttpsServer(tls));
}

/** Listens on 127.0.0.1, port 0; returns the port. */
export async function listen(server: Server): Promise<number> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return (server.address() as AddressInfo).port;
}

/** TLS in front of a plain-HTTP server on 127.0.0.1:port, as the platform gateway does. */
export function proxyTo(server: Server, port: number): void {
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const up = httpRequest(
      { host: '127.0.0.1', port, method: req.method, path: req.url, headers: req.headers },
      (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      },
    );
    up.on('error', () => res.writeHead(502).end());
    req.pipe(up);
  });
}

/** Chromium (the house flags) resolving *.dao.test to 127.0.0.1 and taking daoTestServers' certificate. */
export function launchDaoTestChromium(): Promise<Browser> {
  return launchChromium(['--host-resolver-rules=MAP *.dao.test 127.0.0.1', '--ignore-certificate-errors']);
}

export async function closeServers(servers: Server[]): Promise<void> {
  for (const s of servers) s.closeAllConnections?.();
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
}
