export { EmbeddedHost, ReentrantCallError, type EmbeddedHostOptions } from './host.ts';
export { CorruptStateError, LogWriteError } from './wal.ts';
export { syncDirectory } from './wal-files.ts';
export { DirectoryLockedError, lockDirectory, type DirectoryLock } from './lock.ts';
