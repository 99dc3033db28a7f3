// The embedded host's state directory (see wal.ts for the formats): its file names, the open log's
// positional writes, the logs closed by unfinished compactions, durable directory entries, and the
// errors the state raises.
import { closeSync, constants, fsyncSync, openSync, readdirSync, writeSync } from 'node:fs';
import { open as openFile } from 'node:fs/promises';

export class CorruptStateError extends Error {
  override name = 'CorruptStateError';
}

/** The log failed to write or fsync: what it acknowledged is safe, nothing after it is (PostgreSQL panics likewise). */
export class LogWriteError extends Error {
  override name = 'LogWriteError';
}

export const SNAPSHOT = 'snapshot.bin';
export const LEGACY_SNAPSHOT = 'snapshot.json';
export const LOG = 'wal.jsonl';
export const CLOSED_LOG = /^wal\.(\d+)\.jsonl$/;
export const SNAPSHOT_TMP = /^snapshot\.bin(\..+)?\.tmp$/;

/** The open log, for positional writes (not O_APPEND: the file is written ahead with zeros). */
export const openLog = (path: string) => openSync(path, constants.O_RDWR | constants.O_CREAT, 0o600);
export function writeAll(fd: number, buf: Buffer, position: number): void {
  let written = 0;
  while (written < buf.length) written += writeSync(fd, buf, written, buf.length - written, position + written);
}

export const closedLogName = (lastSeq: number) => `wal.${String(lastSeq).padStart(16, '0')}.jsonl`;
/** Logs closed by compactions that did not finish, oldest first, with the last sequence each holds. */
export function closedLogs(dir: string): Array<{ name: string; lastSeq: number }> {
  return readdirSync(dir)
    .flatMap((name) => {
      const m = CLOSED_LOG.exec(name);
      return m ? [{ name, lastSeq: Number(m[1]) }] : [];
    })
    .sort((a, b) => a.lastSeq - b.lastSeq);
}

/** Makes a directory entry (a created or renamed file) durable. */
export function syncDirectory(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

export async function syncDirectoryAsync(dir: string): Promise<void> {
  const handle = await openFile(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
