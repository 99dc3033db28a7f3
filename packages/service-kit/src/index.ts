export { parseForeignTokens, TokenRegistry, tokenPrefix, TOKEN_WIDTH, type AuthResult } from './bearer.ts';
export { createLogger, type ServiceLogger } from './logger.ts';
export { parseTrustProxy } from './trust-proxy.ts';
export { isRfc4122Uuid, requestIdFor } from './request-id.ts';
export { drainOnClose, type DrainableApp } from './drain.ts';
