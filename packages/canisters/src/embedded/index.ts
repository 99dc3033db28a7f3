export { EmbeddedPlatform, type EmbeddedPlatformOptions } from './platform.ts';
