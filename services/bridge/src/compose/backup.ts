// Decision B115: the running bridge makes a consistent backup of DATA_DIR when `npm run backup` asks for
// one over a Unix socket in DATA_DIR (`backup.sock`, mode 0600 in a 0700 directory): only the operator
// who owns DATA_DIR can ask, nothing is reachable over the network, and no HTTP route is added. One
// request a connection: a JSON line `{"to": DIR}`, answered by one JSON line, `{"ok": true, "manifest"}`
// or `{"ok": false, "error"}`; one backup at a time.
import { chmodSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join, resolve } from 'node:path';
import type { Kysely } from 'kysely';
import type { EmbeddedHost } from '@domdao/canister-kit/embedded';
import type { ServiceLogger } from '@domdao/service-kit';
import { BACKUP_SOCKET } from '../core/backup/copy.ts';
import { BackupAbandoned, BackupRefused, liveBackup, type LiveSources } from '../core/backup/live.ts';

/** Linux's limit for a socket path (sun_path, 108 bytes with its terminating zero). */
const MAX_SOCKET_PATH = 107;
const MAX_REQUEST = 64 * 1024;

export interface BackupService {
  close(): Promise<void>;
}

export async function serveBackups(
  dataDir: string,
  db: Kysely<unknown> | undefined,
  host: EmbeddedHost | undefined,
  log: ServiceLogger,
  /** Tests only: see LiveSources.pause. */
  pause?: LiveSources['pause'],
): Promise<BackupService | undefined> {
  if (!db && !host) return undefined; // nothing embedded: DATA_DIR holds the keys only, copied at any time
  const path = resolve(dataDir, BACKUP_SOCKET);
  if (Buffer.byteLength(path) > MAX_SOCKET_PATH) {
    log.logger.warn(
      { event: 'backup.socket_unavailable', path },
      `the backup socket path ${path} is longer than ${MAX_SOCKET_PATH} bytes: \`npm run backup\` cannot reach this bridge; give a shorter DATA_DIR, or stop the bridge to back up`,
    );
    return undefined;
  }
  rmSync(path, { force: true }); // a crashed bridge's socket (the DATA_DIR lock is ours)
  let busy = false;
  const server: Server = createServer((socket) => {
    let text = '';
    socket.setEncoding('utf8');
    const answer = (body: object) => socket.end(`${JSON.stringify(body)}\n`);
    socket.on('error', () => undefined);
    socket.on('data', (chunk: string) => {
      text += chunk;
      if (text.length > MAX_REQUEST) return answer({ ok: false, error: 'the request is too long' });
      if (!text.includes('\n')) return;
      socket.removeAllListeners('data');
      let to: unknown;
      try {
        to = (JSON.parse(text) as { to?: unknown }).to;
      } catch {
        /* answered below */
      }
      if (typeof to !== 'string' || to === '')
        return answer({ ok: false, error: 'the request names no backup directory ("to")' });
      if (busy) return answer({ ok: false, error: 'a backup is being made already; ask again once it is done' });
      busy = true;
      const started = Date.now();
      // Decision B120: a requester gone mid-way (`npm run backup` killed) gets no backup finished behind its back.
      let gone = false;
      socket.once('close', () => (gone = true));
      liveBackup({ dataDir, db, host, abandoned: () => gone, ...(pause && { pause }) }, to)
        .then((manifest) => {
          const ms = Date.now() - started;
          log.logger.info(
            { event: 'backup.made', to, files: manifest.files.length, canister_seq: manifest.canister_seq, ms },
            `backup of DATA_DIR made in ${to}`,
          );
          answer({ ok: true, manifest, ms });
        })
        .catch((e: Error) => {
          if (e instanceof BackupAbandoned)
            return log.logger.warn(
              { event: 'backup.abandoned', to, reason: e.message },
              `backup to ${to} abandoned: ${e.message}`,
            );
          log.logger.warn({ event: 'backup.failed', to, err: e.message }, `backup to ${to} failed`);
          answer({ ok: false, error: e instanceof BackupRefused ? e.message : `the backup failed: ${e.message}` });
        })
        .finally(() => (busy = false));
    });
  });
  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen(path, () => ok());
  });
  chmodSync(path, 0o600);
  return {
    close: () =>
      new Promise<void>((ok) => {
        server.close(() => ok());
        rmSync(join(path), { force: true });
      }),
  };
}
