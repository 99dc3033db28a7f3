// Issue 48 item 2. Decision F47: the name members see is chosen at join (POST /api/auth/register's
// display_name, or the owner's answers when a link starts the account afresh), held to the profile's
// rules (F22, B89–B91); the random default stays only for accounts that never chose one. Decision
// B106: admins find an account by whole words of the name given at registration, through a keyed index
// of its words (the name itself stays sealed); members' own search never reads it.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { ADMIN_EMAIL, BACKENDS, bridge, eventually, type Bridge, type Jar } from './harness.ts';

const PASSWORD = 'correct horse battery staple';

async function register(h: Bridge, email: string, o: { name?: string; display_name?: string } = {}) {
  const fields = await h.encrypt({ email, name: o.name ?? 'Ada Lovelace', dob: '1990-05-01' });
  return h.request({
    method: 'POST',
    url: '/api/auth/register',
    payload: {
      ...fields,
      password: PASSWORD,
      tos_accepted: true,
      ...(o.display_name !== undefined && { display_name: o.display_name }),
    },
  });
}
async function joined(h: Bridge, email: string, o: { name?: string; display_name?: string } = {}) {
  const r = await register(h, email, o);
  assert.equal(r.statusCode, 201, r.body);
  assert.equal((await h.verify(email)).statusCode, 200);
  const { res, jar } = await h.login(email);
  assert.equal(res.statusCode, 200);
  return { jar, id: r.json().user_id as string };
}
const profile = async (h: Bridge, jar: Jar) =>
  (await h.request({ method: 'GET', url: '/api/me/profile', jar })).json() as {
    display_name: string;
    default_name: string;
    chosen: boolean;
  };
const search = async (h: Bridge, jar: Jar, q: string) =>
  (
    (await h.request({ method: 'GET', url: `/api/members?q=${encodeURIComponent(q)}`, jar })).json() as {
      items: { display_name: string }[];
    }
  ).items.map((m) => m.display_name);

describe('the name members see, chosen at join (decision F47)', () => {
  it('decision F47: the display_name given at registration is the name members see and find; without one the random default stays', async () => {
    const h = await bridge();
    after(() => h.close());
    const ada = await joined(h, 'ada@example.org', { display_name: '  Ada   Lovelace ' });
    assert.deepEqual(await profile(h, ada.jar), {
      ...(await profile(h, ada.jar)),
      display_name: 'Ada Lovelace',
      chosen: true,
    });
    const grace = await joined(h, 'grace@example.org', { name: 'Grace Hopper' });
    const g = await profile(h, grace.jar);
    assert.deepEqual([g.chosen, g.display_name], [false, g.default_name], 'no display_name: the random default');
    assert.match(g.display_name, /^\p{L}+ \p{L}+ #[0-9a-f]{4}$/u);
    assert.deepEqual(await search(h, grace.jar, 'lovelace'), ['Ada Lovelace']);
  });

  it('decision F47: refused by the profile rules (length at 32 and 33, characters, reserved, same name, look-alike), audited, nothing stored', async () => {
    const h = await bridge();
    after(() => h.close());
    await joined(h, 'tom@example.org', { display_name: 'Tom Smith' });
    const users = async () => (await h.opened.db.selectFrom('users').select('id').execute()).length;
    const before = await users();
    const cases: Array<[string, number, string, RegExp, string]> = [
      ['x'.repeat(33), 400, 'VALIDATION_ERROR', /^display_name: 3 to 32 characters/, 'display_name'],
      ['Ada#1', 400, 'VALIDATION_ERROR', /^display_name: letters, digits/, 'display_name'],
      [
        'Ad\u200Bmin',
        400,
        'VALIDATION_ERROR',
        /invisible characters are not allowed \(U\+200B\)/,
        'display_name_invisible',
      ],
      ['ADMIN', 400, 'VALIDATION_ERROR', /reserved for the DAO and its admins/, 'display_name_reserved'],
      ['tom smith', 409, 'NAME_TAKEN', /another member already uses this name/, 'display_name'],
      [
        'Т\u043em Smith',
        409,
        'NAME_TAKEN',
        /another member's name looks the same as this one/,
        'display_name_lookalike',
      ],
    ];
    for (const [name, status, code, message, reason] of cases) {
      const r = await register(h, `x${cases.findIndex((c) => c[0] === name)}@example.org`, { display_name: name });
      assert.equal(r.statusCode, status, `${name}: ${r.body}`);
      assert.equal(r.json().error, code);
      assert.match(r.json().message, message);
      const row = await h.opened.db
        .selectFrom('audit_log')
        .select('detail')
        .where('event', '=', 'registration.refused')
        .orderBy('id', 'desc')
        .executeTakeFirstOrThrow();
      assert.deepEqual(row.detail, { error: code, reason }, name);
    }
    assert.equal(await users(), before, 'nothing stored');
    const schema = await register(h, 'long@example.org', { display_name: 'x'.repeat(129) });
    assert.equal(schema.statusCode, 400, 'more than 128 characters sent');
    // At the limit: 32 characters are a name.
    const at = await register(h, 'thirtytwo@example.org', { display_name: 'y'.repeat(32) });
    assert.equal(at.statusCode, 201, at.body);
  });

  it('decision F47: a registration holds its name; the one it replaces (same address, unverified) does not stand in its own way', async () => {
    const h = await bridge();
    after(() => h.close());
    assert.equal((await register(h, 'ada@example.org', { display_name: 'Ada L' })).statusCode, 201);
    const other = await register(h, 'someone@example.org', { display_name: 'ada l' });
    assert.equal(other.statusCode, 409, 'an unverified registration holds the name too');
    const again = await register(h, 'ada@example.org', { display_name: 'Ada L' });
    assert.equal(again.statusCode, 201, again.body);
  });

  it("decision F47 with B86: the link page's new account shows the owner's name (the field left empty) and the attacker's chosen name is free again", async () => {
    const h = await bridge();
    after(() => h.close());
    assert.equal(
      (await register(h, 'victim@example.org', { name: 'Eve Attacker', display_name: 'Eve' })).statusCode,
      201,
    );
    const v = await h.verify('victim@example.org', { newPassword: 'the owner chose this one', name: 'Olive Owner' });
    assert.equal(v.statusCode, 200, v.body);
    const { jar } = await h.login('victim@example.org', 'the owner chose this one');
    assert.deepEqual([(await profile(h, jar)).display_name, (await profile(h, jar)).chosen], ['Olive Owner', true]);
    assert.equal(
      (await register(h, 'eve@example.org', { display_name: 'Eve' })).statusCode,
      201,
      'the replaced registration gave up its name',
    );
  });

  it('decision F47: the JSON confirmation takes display_name with new_password only; a taken one is 409 NAME_TAKEN and changes nothing', async () => {
    const h = await bridge();
    after(() => h.close());
    await joined(h, 'taken@example.org', { display_name: 'Olive Owner' });
    assert.equal((await register(h, 'owner@example.org', { name: 'Someone Else' })).statusCode, 201);
    const token = new URL(h.verificationPath('owner@example.org'), 'https://x.example').searchParams.get('token')!;
    const sealed = await h.encrypt({ email: 'owner@example.org', name: 'Olive Owner', dob: '1984-02-29' });
    const answers = { name_encrypted: sealed.name_encrypted, dob_encrypted: sealed.dob_encrypted, tos_accepted: true };
    const confirm = (body: object) =>
      h.request({ method: 'POST', url: '/api/auth/verify-email', payload: { token, ...body } });
    const withPassword = await confirm({ password: PASSWORD, display_name: 'Olive' });
    assert.equal(withPassword.statusCode, 400);
    assert.match(withPassword.json().message, /display_name go with new_password only/);
    const taken = await confirm({
      new_password: 'a long and private passphrase',
      ...answers,
      display_name: 'olive owner',
    });
    assert.deepEqual([taken.statusCode, taken.json().error], [409, 'NAME_TAKEN']);
    assert.equal((await h.opened.db.selectFrom('users').select('id').execute()).length, 2, 'nothing created');
    const ok = await confirm({ new_password: 'a long and private passphrase', ...answers, display_name: 'Olive O' });
    assert.equal(ok.statusCode, 200, ok.body);
    const { jar } = await h.login('owner@example.org', 'a long and private passphrase');
    assert.equal((await profile(h, jar)).display_name, 'Olive O');
  });
});

for (const backend of [BACKENDS[0]!, BACKENDS[2]!]) {
  describe(`admins find a member by the name given at registration, on ${backend.db} (decision B106)`, () => {
    it('decision B106: whole words of the registration name, case and accents aside; never part of a word; members cannot; the name is never stored in clear', async () => {
      const h = await bridge(backend);
      after(() => h.close());
      const root = await h.member(ADMIN_EMAIL);
      const jose = await joined(h, 'jose@example.org', { name: 'José Lovelace-Byron' });
      await joined(h, 'other@example.org', { name: 'Joseph Other' });
      const find = async (q: string) => {
        const r = await h.request({
          method: 'GET',
          url: `/api/admin/users?name=${encodeURIComponent(q)}`,
          jar: root.jar,
        });
        assert.equal(r.statusCode, 200, r.body);
        return (r.json() as { users: { user_id: string; registration_name: string | null }[] }).users;
      };
      for (const q of ['jose', 'BYRON', 'Lovelace Jose', 'josé lovelace byron'])
        assert.deepEqual(
          (await find(q)).map((u) => u.user_id),
          [jose.id],
          q,
        );
      assert.equal((await find('jose'))[0]!.registration_name, 'José Lovelace-Byron');
      for (const q of ['Jos', 'lovelac', 'jose smith'])
        assert.deepEqual(await find(q), [], `${q}: whole words, every one`);
      assert.deepEqual(await search(h, root.jar, 'jose'), [], "members' search knows display names only");
      const row = await h.opened.db.selectFrom('users').selectAll().where('id', '=', jose.id).executeTakeFirstOrThrow();
      assert.ok(
        !JSON.stringify(row, (_k, v: unknown) =>
          v instanceof Uint8Array ? Buffer.from(v).toString('latin1') : v,
        ).match(/jos|lovelace|byron/i),
      );
      assert.equal(row.name_index!.length, 3);
    });
  });
}

describe('accounts made before the index (decision B106)', () => {
  it('decision B106: an account without an index gets one at the next start, and is found', async () => {
    const h = await bridge();
    after(() => h.close());
    const root = await h.member(ADMIN_EMAIL);
    const old = await joined(h, 'old@example.org', { name: 'Zoe Quill' });
    await h.opened.db.updateTable('users').set({ name_index: null }).execute();
    const r = await h.request({ method: 'GET', url: '/api/admin/users?name=quill', jar: root.jar });
    assert.deepEqual(r.json().users, [], 'not yet');
    await h.restart();
    await eventually('the index filled', async () =>
      (await h.opened.db.selectFrom('users').select('id').where('name_index', 'is', null).execute()).length === 0
        ? true
        : undefined,
    );
    const again = await h.request({
      method: 'GET',
      url: '/api/admin/users?name=quill',
      jar: (await h.login(ADMIN_EMAIL)).jar,
    });
    assert.deepEqual(
      (again.json() as { users: { user_id: string }[] }).users.map((u) => u.user_id),
      [old.id],
    );
  });
});
