/** PostgreSQL (and PGlite) unique_violation: a concurrent insert of the same key won the race. */
export const isUniqueViolation = (e: unknown): boolean => (e as { code?: string } | null)?.code === '23505';

const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENOTFOUND',
  '57P01',
  '57P02',
  '57P03',
  '53300',
]);

/**
 * The database cannot be reached (down, restarting, refusing connections): answered 503, retried by
 * the client; the pool reconnects by itself when the server is back (decision B17).
 */
export const isDatabaseUnavailable = (e: unknown): boolean => {
  const err = e as { code?: string; message?: string } | null;
  if (!err) return false;
  if (err.code && (UNAVAILABLE_CODES.has(err.code) || err.code.startsWith('08'))) return true;
  return /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|terminating connection/i.test(
    err.message ?? '',
  );
};

/**
 * A sync of the embedded database's directory failed (decision P16). PostgreSQL answers the commit with
 * a PANIC (what it wrote may not be on disk, so it must not go on), and PGlite cannot run past a PANIC:
 * its next statement never returns and blocks the process. So every later statement is refused with
 * this error instead, as the canisters' log refuses updates after its own failed sync; a restart
 * recovers from the log on disk. Here, not in embedded.ts, so that the error handler does not load PGlite.
 */
export class EmbeddedDatabaseFailed extends Error {
  override readonly name = 'EmbeddedDatabaseFailed';
}

/** The error, or one it wraps (`cause`), is EmbeddedDatabaseFailed. */
export const isEmbeddedDatabaseFailed = (e: unknown): boolean => {
  for (let cur = e, depth = 0; cur instanceof Error && depth < 5; cur = cur.cause, depth++)
    if (cur instanceof EmbeddedDatabaseFailed) return true;
  return false;
};
