// A bridge user's id: a UUID the bridge assigns at registration (the users table's key).

/** A bridge user id as a JSON-schema pattern for route parameters and bodies. */
export const USER_ID_PATTERN = '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$';
