export * from './api.ts';
export { EMBEDDED_CANISTER_IDS, isPrincipalText, principalFromSeed } from './principals.ts';
export { METHOD_TABLES } from './tables.ts';
