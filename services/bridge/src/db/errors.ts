/** PostgreSQL (and PGlite) unique_violation: a concurrent insert of the same key won the race. */
export const isUniqueViolation = (e: unknown): boolean => (e as { code?: string } | null)?.code === '23505';

const UNAVAILABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENOTFOUND', '57P01', '57P02', '57P03', '53300']);

/**
 * The database cannot be reached (down, restarting, refusing connections): answered 503, retried by
 * the client; the pool reconnects by itself when the server is back (decision B17).
 */
export const isDatabaseUnavailable = (e: unknown): boolean => {
  const err = e as { code?: string; message?: string } | null;
  if (!err) return false;
  if (err.code && (UNAVAILABLE_CODES.has(err.code) || err.code.startsWith('08'))) return true;
  return /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|terminating connection/i.test(err.message ?? '');
};
