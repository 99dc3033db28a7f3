// EmbeddedPlatform.as() builds a principal's five clients once and returns them
// again; each principal's clients still call as that principal.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EmbeddedPlatform } from '../src/embedded/index.ts';
import { principalFromSeed } from '../src/principals.ts';

describe('EmbeddedPlatform.as (decision K8)', () => {
  it('returns the same clients for a principal, and different principals keep their own caller', async () => {
    const admin = principalFromSeed('as-cache-admin');
    const other = principalFromSeed('as-cache-other');
    const p = await EmbeddedPlatform.open({ admins: [admin], scheduler: false });
    try {
      assert.equal(p.as(admin), p.as(admin), 'built once per principal');
      assert.equal(p.as(admin).governance, p.as(admin).governance);
      assert.notEqual(p.as(other), p.as(admin));
      assert.deepEqual(await p.as(admin).governance.list_admin_events(undefined, 1), []);
      await assert.rejects(
        p.as(other).governance.list_votes(1n),
        /NotAuthorized/,
        'the cached clients of another principal call as that principal',
      );
      assert.ok(
        await p
          .as(admin)
          .governance.list_votes(1n)
          .then(
            () => true,
            (e: Error) => !/NotAuthorized/.test(e.message),
          ),
        'the admin is not refused',
      );
    } finally {
      p.close();
    }
  });
});
