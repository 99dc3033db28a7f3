// Bearer tokens (packages/service-kit/src/bearer.ts): the registry compares fixed-width buffers, so a
// token longer than the width shares its first TOKEN_WIDTH bytes with any prefix of that length; only
// the length check tells them apart.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TOKEN_WIDTH, TokenRegistry } from '../src/bearer.ts';

const long = Array.from(
  { length: 600 },
  (_, i) => 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'[(i * 7) % 62],
).join('');

describe('bearer tokens: a prefix of a longer configured token is refused', () => {
  it(`a ${TOKEN_WIDTH}-character prefix of a 600-character own token is 401 wrong, never accepted`, () => {
    const registry = new TokenRegistry('bridge', long, []);
    assert.equal(TOKEN_WIDTH, 512);
    assert.deepEqual(registry.check(`Bearer ${long.slice(0, TOKEN_WIDTH)}`), {
      ok: false,
      status: 401,
      reason: 'wrong',
    });
  });

  it(`a ${TOKEN_WIDTH}-character prefix of a 600-character foreign token is 401 wrong, not 403`, () => {
    const registry = new TokenRegistry('notification', 'own-token-0123456789', [{ scope: 'bridge', token: long }]);
    assert.deepEqual(registry.check(`Bearer ${long.slice(0, TOKEN_WIDTH)}`), {
      ok: false,
      status: 401,
      reason: 'wrong',
    });
  });

  it('every shorter prefix of a configured token is refused; the token itself is accepted', () => {
    const token = long.slice(0, TOKEN_WIDTH);
    const registry = new TokenRegistry('notification', token, []);
    assert.deepEqual(registry.check(`Bearer ${token}`), { ok: true, scope: 'notification' });
    for (const n of [1, 16, 100, TOKEN_WIDTH - 1]) {
      assert.deepEqual(
        registry.check(`Bearer ${token.slice(0, n)}`),
        { ok: false, status: 401, reason: 'wrong' },
        `prefix of ${n}`,
      );
    }
  });

  it('a presented token longer than the comparison width is malformed', () => {
    const registry = new TokenRegistry('bridge', long, []);
    assert.deepEqual(registry.check(`Bearer ${long}`), { ok: false, status: 401, reason: 'malformed' });
  });
});
