// GET /api/admin/users (decision B39): exact email through the blind index, role,
// membership status from the membership canister, cursor paging that never repeats or skips a user.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ADMIN_EMAIL, BACKENDS, bridge, type Bridge } from './harness.ts';

type Page = {
  users: Array<{
    user_id: string;
    roles: string[];
    membership_status: string;
    email_verified: boolean;
    created_at: string;
  }>;
  next_cursor: string | null;
};

async function all(h: Bridge, jar: { cookie?: string }, query: string): Promise<{ ids: string[]; pages: Page[] }> {
  const pages: Page[] = [];
  let cursor: string | null = null;
  do {
    const r = await h.request({
      method: 'GET',
      url: `/api/admin/users?${query}${cursor ? `&cursor=${cursor}` : ''}`,
      jar,
    });
    assert.equal(r.statusCode, 200, r.body);
    const page = r.json() as Page;
    pages.push(page);
    cursor = page.next_cursor;
  } while (cursor !== null && pages.length < 50);
  return { ids: pages.flatMap((p) => p.users.map((u) => u.user_id)), pages };
}

for (const backend of [BACKENDS[0]!, BACKENDS[2]!]) {
  describe(`admin user search on ${backend.db} (decision B39)`, () => {
    it('decision B39: paged by cursor; filters by exact email, role and membership status', async (t) => {
      const h = await bridge(backend);
      t.after(() => h.close());
      const root = await h.member(ADMIN_EMAIL);
      const members = [root.user_id];
      for (const name of ['carol', 'dave', 'erin', 'finn'])
        members.push((await h.member(`${name}@example.org`)).user_id);
      // Registered a minute later by the bridge's clock, which is what created_at says (decision B81).
      h.advance(60_000);
      const pending = (await h.register('pending@example.org')).json().user_id as string;
      const everyone = [...members, pending].sort();

      const { ids, pages } = await all(h, root.jar, 'limit=2');
      assert.deepEqual(ids, everyone, 'every user once, in id order');
      const created = Object.fromEntries(pages.flatMap((p) => p.users.map((u) => [u.user_id, u.created_at])));
      assert.equal(created[pending], new Date(h.now()).toISOString());
      assert.equal(created[root.user_id], new Date(h.now() - 60_000).toISOString());
      assert.ok(pages.every((p) => p.users.length <= 2));
      assert.equal(pages.length, 3);

      const carol = (
        await h.request({
          method: 'GET',
          url: `/api/admin/users?email=${encodeURIComponent(' Carol@Example.org ')}`,
          jar: root.jar,
        })
      ).json() as Page;
      assert.deepEqual(
        carol.users.map((u) => u.user_id),
        [members[1]],
      );
      assert.deepEqual(carol.users[0]!.roles, ['member']);
      assert.equal(carol.users[0]!.membership_status, 'Registered');
      assert.equal(carol.next_cursor, null);
      // Decision F28: admins see the address and the display name, and find users by name.
      const carolRow = carol.users[0] as unknown as { email: string; display_name: string };
      assert.equal(carolRow.email, 'carol@example.org');
      const carolSession = (await h.login('carol@example.org')).jar;
      assert.equal(
        (
          await h.request({
            method: 'PUT',
            url: '/api/me/display-name',
            jar: carolSession,
            payload: { display_name: 'Carol_50 Off' },
          })
        ).statusCode,
        200,
      );
      const byName = async (q: string) =>
        (
          (
            await h.request({ method: 'GET', url: `/api/admin/users?name=${encodeURIComponent(q)}`, jar: root.jar })
          ).json() as Page
        ).users.map((u) => u.user_id);
      assert.deepEqual(await byName('carol_50'), [members[1]]);
      assert.deepEqual(await byName('l_5'), [members[1]], '_ is literal');
      assert.deepEqual(await byName('%%'), [], '% is literal');
      assert.deepEqual(await byName('a_r'), [], 'not a wildcard');
      assert.equal(
        (await h.request({ method: 'GET', url: '/api/admin/users?name=c', jar: root.jar })).statusCode,
        400,
        'two characters at least',
      );
      assert.deepEqual(
        (await h.request({ method: 'GET', url: '/api/admin/users?email=nobody%40example.org', jar: root.jar })).json(),
        {
          users: [],
          next_cursor: null,
        },
      );

      assert.deepEqual((await all(h, root.jar, 'role=admin')).ids, [root.user_id]);
      assert.deepEqual((await all(h, root.jar, 'role=user')).ids, [pending], '`user` = no explicit role');
      assert.deepEqual((await all(h, root.jar, 'role=member&limit=1')).ids, [...members].sort());
      assert.deepEqual((await all(h, root.jar, 'role=moderator')).ids, []);

      const none = await all(h, root.jar, 'status=none');
      assert.deepEqual(none.ids, [pending]);
      assert.equal(none.pages[0]!.users[0]!.email_verified, false);
      const registered = await all(h, root.jar, 'status=Registered&limit=1');
      assert.deepEqual(registered.ids, [...members].sort(), 'status pages follow the cursor without repeats');
      assert.deepEqual((await all(h, root.jar, 'status=Active')).ids, []);
      assert.deepEqual((await all(h, root.jar, 'status=Registered&role=admin')).ids, [root.user_id]);

      const carolJar = (await h.login('carol@example.org')).jar;
      assert.equal((await h.request({ method: 'GET', url: '/api/admin/users', jar: carolJar })).statusCode, 403);
      assert.equal((await h.request({ method: 'GET', url: '/api/admin/users' })).statusCode, 401);
      for (const bad of [
        'limit=0',
        'limit=101',
        'status=active',
        'role=Admin',
        'cursor=%27%20OR%201%3D1',
        `cursor=${Buffer.from('not-a-user-id').toString('base64url')}`,
      ]) {
        const r = await h.request({ method: 'GET', url: `/api/admin/users?${bad}`, jar: root.jar });
        assert.equal(r.statusCode, 400, bad);
        assert.equal(r.json().error, 'VALIDATION_ERROR', bad);
      }
    });
  });
}

describe('KYC decisions from the console (decisions F28, F35)', () => {
  it('decision F35: a rejection with a reason is recorded and its reason is read back on the user; the reference is 200 characters at most', async (t) => {
    const h = await bridge();
    t.after(() => h.close());
    const root = await h.member(ADMIN_EMAIL);
    const ann = await h.member('ann-kyc@example.org');
    const bo = await h.member('bo-kyc@example.org');
    const kyc = (user: string, body: Record<string, unknown>) =>
      h.request({ method: 'POST', url: `/api/admin/users/${user}/kyc`, jar: root.jar, payload: body });
    const find = async (email: string) =>
      (
        (
          await h.request({ method: 'GET', url: `/api/admin/users?email=${encodeURIComponent(email)}`, jar: root.jar })
        ).json() as {
          users: Array<{ kyc_status: string; kyc_reference: string | null }>;
        }
      ).users[0]!;
    assert.deepEqual(
      await find('ann-kyc@example.org').then((u) => [u.kyc_status, u.kyc_reference]),
      ['none', null],
      'no decision yet',
    );
    // The console sends `rejected: <reason>` with a reason of at most 190 characters: 200 in all.
    const reason = `rejected: ${'r'.repeat(190)}`;
    assert.equal(reason.length, 200);
    const tooLong = await kyc(ann.user_id, { approved: false, reference: `${reason}r` });
    assert.deepEqual([tooLong.statusCode, tooLong.json().error], [400, 'VALIDATION_ERROR']);
    assert.equal((await find('ann-kyc@example.org')).kyc_status, 'none', 'a refused request changes nothing');
    const rejected = await kyc(ann.user_id, { approved: false, reference: reason });
    assert.deepEqual([rejected.statusCode, rejected.json()], [200, { user_id: ann.user_id, kyc_status: 'rejected' }]);
    assert.deepEqual(await find('ann-kyc@example.org').then((u) => [u.kyc_status, u.kyc_reference]), [
      'rejected',
      reason,
    ]);
    // Approved later: the new decision and its reference replace the rejection.
    assert.equal((await kyc(ann.user_id, { approved: true, reference: 'provider-case-7' })).statusCode, 200);
    assert.deepEqual(await find('ann-kyc@example.org').then((u) => [u.kyc_status, u.kyc_reference]), [
      'approved',
      'provider-case-7',
    ]);
    // Without a reference the bridge names the admin and the time.
    assert.equal((await kyc(bo.user_id, { approved: true })).statusCode, 200);
    assert.match((await find('bo-kyc@example.org')).kyc_reference!, new RegExp(`^admin:${root.user_id}:\\d{4}-`));
    assert.equal(
      (await kyc(bo.user_id, { approved: false, reference: '' })).statusCode,
      400,
      'an empty reference is refused',
    );
  });
});
