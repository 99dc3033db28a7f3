export { parseForeignTokens, TokenRegistry, tokenPrefix, TOKEN_WIDTH, type AuthResult } from './bearer.ts';
export { createLogger, type ServiceLogger } from './logger.ts';
export { parseTrustProxy } from './trust-proxy.ts';
