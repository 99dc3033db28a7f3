export { EmbeddedPlatform, type EmbeddedPlatformOptions } from './platform.ts';
// A DATA_DIR holds one embedded platform at a time: its users (the bridge) take the lock from here.
export { DirectoryLockedError, lockDirectory, type DirectoryLock } from '@domdao/canister-kit/embedded';
