export * from './api.ts';
export { EMBEDDED_CANISTER_IDS, isPrincipalText, principalFromBytes, principalFromSeed } from './principals.ts';
export { METHOD_TABLES } from './tables.ts';
