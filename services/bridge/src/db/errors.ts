/** PostgreSQL (and PGlite) unique_violation: a concurrent insert of the same key won the race. */
export const isUniqueViolation = (e: unknown): boolean => (e as { code?: string } | null)?.code === '23505';

/** A bridge user id (UUID) as a JSON-schema pattern for route parameters and bodies. */
export const USER_ID_PATTERN = '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$';
