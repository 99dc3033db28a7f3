// Request correlation (spec 3 "Request correlation"), shared by every service and the gateway.
import { randomUUID } from 'node:crypto';

// RFC 4122: version nibble 1-5 and the 10xx variant; case-insensitive.
const RFC4122 = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-5][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

export function isRfc4122Uuid(value: string): boolean {
  return RFC4122.test(value);
}

/** Keeps a caller's X-Request-Id only when it is a well-formed UUID of versions 1 to 5. */
export function requestIdFor(header: string | string[] | undefined): string {
  return typeof header === 'string' && isRfc4122Uuid(header) ? header : randomUUID();
}
