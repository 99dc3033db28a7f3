// CORS for the front-end suites (decision B45): a page on a configured origin (FRONTEND_ORIGINS) may
// call the bridge with `credentials: 'include'` and read the answer; every other origin gets no CORS
// header at all, so the browser keeps the answer from it. CORS only governs what a page may READ;
// what it may DO is still the CSRF guard's (csrf.ts): a request from another origin is refused there.
// Registered on the root instance (the plugin is not encapsulated), so it covers every route.
import type { FastifyCorsOptions } from '@fastify/cors';

export const CORS_MAX_AGE_SECONDS = 600;

export function corsOptions(origins: ReadonlySet<string>): FastifyCorsOptions {
  return {
    // Echo the request's Origin only when it is configured (never `*`: credentials need the exact origin).
    origin: (origin, cb) => cb(null, origin !== undefined && origins.has(origin)),
    credentials: true,
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    allowedHeaders: ['Content-Type', 'X-Requested-With', 'Idempotency-Key'],
    exposedHeaders: ['Retry-After'],
    maxAge: CORS_MAX_AGE_SECONDS,
    strictPreflight: true,
  };
}
