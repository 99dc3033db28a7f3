// Bearer authentication shared by the services (spec 3 "Authentication", spec 2 POST /test-email):
// constant-time comparison over fixed-width zero-padded buffers, 401 for absent/malformed/wrong, 403
// for a token that belongs to another platform service.
import { createHash, timingSafeEqual } from 'node:crypto';
import { ConfigError } from '@domdao/config';

/** Every token is compared inside a buffer of this width, so its length never shows in the timing. */
export const TOKEN_WIDTH = 512;

interface Registered {
  scope: string;
  padded: Buffer;
  length: number;
}

export type AuthResult =
  | { ok: true; scope: string }
  | { ok: false; status: 401; reason: 'absent' | 'malformed' | 'wrong' }
  | { ok: false; status: 403; reason: 'foreign_scope'; scope: string };

// RFC 6750 b64token.
const BEARER = /^Bearer +([A-Za-z0-9._~+/-]+=*) *$/i;

function pad(token: string): Buffer {
  const buf = Buffer.alloc(TOKEN_WIDTH);
  buf.write(token, 'utf8');
  return buf;
}

export class TokenRegistry {
  private readonly tokens: Registered[];
  private readonly scratch = Buffer.alloc(TOKEN_WIDTH);

  /** `ownScope` names this service; `own` is its token (unset: nothing is accepted). */
  constructor(
    private readonly ownScope: string,
    own: string | undefined,
    foreign: Array<{ scope: string; token: string }>,
  ) {
    this.tokens = [];
    if (own !== undefined) this.tokens.push({ scope: ownScope, padded: pad(own), length: Buffer.byteLength(own) });
    for (const { scope, token } of foreign)
      this.tokens.push({ scope, padded: pad(token), length: Buffer.byteLength(token) });
  }

  /** False when the service's own token was unset at boot: it then answers 503. */
  get configured(): boolean {
    return this.tokens.some((t) => t.scope === this.ownScope);
  }

  check(authorization: string | undefined): AuthResult {
    if (authorization === undefined) return { ok: false, status: 401, reason: 'absent' };
    const m = BEARER.exec(authorization);
    const token = m?.[1];
    if (token === undefined || Buffer.byteLength(token) > TOKEN_WIDTH)
      return { ok: false, status: 401, reason: 'malformed' };
    // One scratch buffer, refilled per call: the check is synchronous, so it is never shared.
    const presented = this.scratch.fill(0);
    const length = presented.write(token, 'utf8');
    let matched: string | undefined;
    // Compare against every registered token, with no early exit, so timing says nothing about which.
    for (const t of this.tokens) {
      const same = timingSafeEqual(presented, t.padded);
      const sameLength = length === t.length;
      if (same && sameLength && matched === undefined) matched = t.scope;
    }
    if (matched === undefined) return { ok: false, status: 401, reason: 'wrong' };
    if (matched !== this.ownScope) return { ok: false, status: 403, reason: 'foreign_scope', scope: matched };
    return { ok: true, scope: matched };
  }
}

/** `scope=token,scope=token` (FOREIGN_SERVICE_TOKENS). */
export function parseForeignTokens(
  value: string | undefined,
  own: string | undefined,
  ownScope: string,
): Array<{ scope: string; token: string }> {
  if (value === undefined) return [];
  const problems: string[] = [];
  const pairs = value
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)
    .map((pair) => {
      const eq = pair.indexOf('=');
      const scope = pair.slice(0, eq).trim();
      const token = pair.slice(eq + 1).trim();
      if (eq <= 0 || !/^[a-z0-9-]+$/.test(scope) || !BEARER.test(`Bearer ${token}`)) {
        problems.push(
          'FOREIGN_SERVICE_TOKENS: each entry must be scope=token (scope lowercase letters, digits, dashes)',
        );
      } else if (scope === ownScope) {
        problems.push(`FOREIGN_SERVICE_TOKENS: scope "${ownScope}" is this service's own; use SERVICE_TOKEN`);
      } else if (token === own) {
        problems.push(`FOREIGN_SERVICE_TOKENS: the token of scope "${scope}" equals SERVICE_TOKEN`);
      }
      return { scope, token };
    });
  if (problems.length > 0) throw new ConfigError([...new Set(problems)]);
  return pairs;
}

/** First 8 hex characters of SHA-256 of the presented credentials, or null with no Authorization header. */
export function tokenPrefix(authorization: string | undefined): string | null {
  if (authorization === undefined) return null;
  const presented = BEARER.exec(authorization)?.[1] ?? authorization;
  return createHash('sha256').update(presented).digest('hex').slice(0, 8);
}
