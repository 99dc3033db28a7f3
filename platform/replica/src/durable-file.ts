// How the replica's files reach the disk (decisions W13, W28, W34): written beside their name, synced, renamed over
// it, so a crash leaves either the old file or the whole new one; the folder is synced so the rename itself survives.
import { closeSync, fsyncSync, openSync, renameSync, writeSync } from 'node:fs';
import { syncDirectory } from '@domdao/canister-kit/embedded';

/** Makes a created or renamed file's directory entry durable: the canister kit's log does it the same way. */
export const syncDir = syncDirectory;

/** `bytes` in `file` (0600) whole or not at all; the caller syncs the folder (once for several files). */
export function writeSynced(file: string, bytes: Uint8Array): void {
  const fd = openSync(`${file}.tmp`, 'w', 0o600);
  try {
    writeSync(fd, bytes);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(`${file}.tmp`, file);
}
