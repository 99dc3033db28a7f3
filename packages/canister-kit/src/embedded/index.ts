export { EmbeddedHost, ReentrantCallError, type EmbeddedHostOptions } from './host.ts';
export { CorruptStateError, LogWriteError } from './wal.ts';
export { DirectoryLockedError, lockDirectory, type DirectoryLock } from './lock.ts';
