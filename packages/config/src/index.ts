// The package's front door (decision S32): environment configuration, validated once at start-up.
export { ConfigError, describeConfig, loadConfig } from './load.ts';
export { Env } from './env.ts';
