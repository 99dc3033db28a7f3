/**
 * Node's options for a bridge or platform a test starts from source, as `npm run start:dev` starts it:
 * tsx for the TypeScript, and WebAssembly on V8's baseline compiler only, as `npm start` runs (decision
 * R21). `scripts/test/start-and-register.test.ts` holds the script to these.
 */
export const START_DEV_FLAGS: readonly string[] = ['--liftoff-only', '--import', 'tsx'];
