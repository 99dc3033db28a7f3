// Decisions B89–B91: a chosen display name must not pass for someone else's. Invisible characters,
// stacked combining marks and reserved names (Admin, Administrator, Moderator, the DAO's own) are
// 400 VALIDATION_ERROR; a name that looks like another member's (UTS #39 skeleton, case, i/l and
// spacing aside) is 409 NAME_TAKEN; each of those refusals is a log line and an audit row. Names chosen
// before the rules: migration 065 keeps the first account's and resets later look-alikes, and a name
// that became reserved (BRAND_DAO_NAME included) goes back to the default at start-up.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql, type Kysely } from 'kysely';
import { down as downKeys } from '../src/core/db/migrations/065-display-name-keys.ts';
import { ADMIN_EMAIL, bridge, type Bridge, type Jar } from './harness.ts';

const DAO = 'River DAO';
type Profile = { display_name: string; default_name: string; chosen: boolean };
type AuditRow = {
  event: string;
  actor: string;
  subject: string | null;
  outcome: string;
  detail: Record<string, unknown>;
};

let h: Bridge;
let admin: { jar: Jar; user_id: string };
let ann: { jar: Jar; user_id: string };
let ben: { jar: Jar; user_id: string };

const setName = (jar: Jar, display_name: string | null) =>
  h.request({ method: 'PUT', url: '/api/me/display-name', payload: { display_name }, jar });
const profile = async (jar: Jar) => (await h.request({ method: 'GET', url: '/api/me/profile', jar })).json() as Profile;
const audit = async (event: string): Promise<AuditRow[]> => {
  admin.jar = (await h.login(ADMIN_EMAIL)).jar;
  const r = await h.request({ method: 'GET', url: `/api/admin/audit?event=${event}&limit=200`, jar: admin.jar });
  assert.equal(r.statusCode, 200, r.body);
  return (r.json() as { items: AuditRow[] }).items;
};

/** Refused with `status`/`code` and a message matching `message`; the member's name is unchanged. */
async function refused(jar: Jar, name: string, status: number, code: string, message: RegExp): Promise<void> {
  const before = await profile(jar);
  const r = await setName(jar, name);
  assert.deepEqual([r.statusCode, r.json().error], [status, code], `${JSON.stringify(name)}: ${r.body}`);
  assert.match(r.json().message as string, message, JSON.stringify(name));
  assert.deepEqual(await profile(jar), before, `${JSON.stringify(name)} changed nothing`);
}

async function accepted(jar: Jar, name: string | null): Promise<void> {
  const r = await setName(jar, name);
  assert.equal(r.statusCode, 200, `${JSON.stringify(name)}: ${r.body}`);
}

before(async () => {
  h = await bridge(undefined, { BRAND_DAO_NAME: DAO });
  admin = await h.member(ADMIN_EMAIL);
  ann = await h.member('ann-lookalike@example.org');
  h.advance(1000); // Ann registered first (migration 065's tie-break)
  ben = await h.member('ben-lookalike@example.org');
});
after(() => h.close());

describe('display names that pass for someone else (decisions B89–B91)', () => {
  it('decision B89: default-ignorable characters are refused: U+034F after Admin, Hangul fillers, zero-width, variation selectors, bidi controls; audited', async () => {
    const names = [
      'Admin\u034F',
      'Ann\u034Fa',
      '\u3164\u3164\u3164',
      'Ann\u3164',
      '\u115F\u1160Ann',
      'Ann\uFFA0a',
      'An\u200Bna',
      'Anna\uFE0F',
      'Anna\u202E',
      'Anna\u2066',
    ];
    for (const name of names)
      await refused(ben.jar, name, 400, 'VALIDATION_ERROR', /invisible characters are not allowed \(U\+[0-9A-F]{4}\)/);
    const rows = (await audit('members.display_name_refused')).filter((r) => r.detail.reason === 'invisible');
    assert.equal(rows.length, names.length, 'one audit row each');
    for (const row of rows)
      assert.deepEqual([row.actor, row.outcome, row.detail], [ben.user_id, 'denied', { reason: 'invisible' }]);
    const lines = h.logs.lines().filter((l) => l.event === 'members.display_name_refused' && l.reason === 'invisible');
    assert.equal(lines.length, names.length, 'one log line each');
    assert.ok(!JSON.stringify(lines).includes('\u3164'), 'the name itself is not logged');
  });

  it('decision B90: 4 combining marks on one letter accepted, 5 refused, 30 refused; the same mark twice and a mark on no letter refused', async () => {
    const four = 'Ade\u0300\u0323\u0330\u0331';
    await accepted(ben.jar, four);
    assert.equal((await profile(ben.jar)).display_name, four.normalize('NFC'));
    await accepted(ben.jar, 'Nguyễn Thị Ánh');
    await accepted(ben.jar, 'Ade\u0300\u0323\u0330\u0331 Bo\u0301\u0302\u0303\u0304');
    const stacked = (n: number) => `Ad${Array.from({ length: n }, (_, i) => String.fromCodePoint(0x300 + i)).join('')}`;
    const before = await audit('members.display_name_refused');
    await refused(
      ben.jar,
      'Ade\u0300\u0323\u0330\u0331\u0332',
      400,
      'VALIDATION_ERROR',
      /at most 4 combining marks on one letter/,
    );
    await refused(ben.jar, stacked(5), 400, 'VALIDATION_ERROR', /at most 4 combining marks on one letter/);
    await refused(ben.jar, stacked(30), 400, 'VALIDATION_ERROR', /at most 4 combining marks on one letter/);
    await refused(
      ben.jar,
      'Andr\u00e9\u0301',
      400,
      'VALIDATION_ERROR',
      /the same combining mark \(U\+0301\) twice on one letter/,
    );
    await refused(
      ben.jar,
      'Ann \u0301Lee',
      400,
      'VALIDATION_ERROR',
      /combining mark \(U\+0301\) must follow a letter or digit/,
    );
    const rows = await audit('members.display_name_refused');
    assert.deepEqual(
      rows.slice(0, rows.length - before.length).map((r) => r.detail.reason),
      Array(5).fill('combining_marks'),
    );
  });

  it('decision B91: Admin, Administrator, Moderator and the DAO name are reserved in any case, script, digit or spacing; near names are not', async () => {
    const reserved = [
      'Admin',
      'ADMIN',
      'admin',
      '\u0410dmin', // Cyrillic А
      'AdmIn',
      'aDMlN',
      'Adm1n',
      'Ad min',
      'Ad.Min',
      'Administrator',
      'ADMINISTRATOR',
      'Moderator',
      'M0derator',
      'moderat\u03BFr', // Greek ο
      DAO,
      'river dao',
      'River-Dao',
      'RlVER DA0',
    ];
    for (const name of reserved)
      await refused(ann.jar, name, 400, 'VALIDATION_ERROR', /reserved for the DAO and its admins/);
    const rows = (await audit('members.display_name_refused')).filter((r) => r.detail.reason === 'reserved');
    assert.equal(rows.length, reserved.length);
    for (const name of ['Admiral', 'Admins', 'Mod', 'River', 'River DAOs', 'Moderate Ann'])
      await accepted(ann.jar, name);
  });

  it('decision B91: unique by look: a confusable script, a digit for a letter, I for l and separators are NAME_TAKEN and audited; the same name in other case is NAME_TAKEN without audit', async () => {
    await accepted(ann.jar, 'Paul Smith');
    const before = (await audit('members.display_name_refused')).length;
    const lookalikes = [
      '\u0420\u0430ul Smith', // Cyrillic Р and а
      'PauI Smith', // capital I for l
      'Pau1 Smith',
      'Paul_Smith',
      'Paul.Smith',
      'PaulSmith',
      'Paul Srnith', // rn for m
    ];
    for (const name of lookalikes) await refused(ben.jar, name, 409, 'NAME_TAKEN', /looks the same as this one/);
    await refused(ben.jar, 'PAUL SMITH', 409, 'NAME_TAKEN', /already uses this name/);
    const rows = await audit('members.display_name_refused');
    assert.equal(rows.length - before, lookalikes.length, 'the plain collision is not audited');
    assert.deepEqual(
      rows.slice(0, lookalikes.length).map((r) => [r.actor, r.detail.reason]),
      Array(lookalikes.length).fill([ben.user_id, 'lookalike']),
    );
    await accepted(ben.jar, 'Paula Smith');
    await accepted(ann.jar, 'Paul-Smith');
    assert.equal((await profile(ann.jar)).display_name, 'Paul-Smith', 'the holder may respell their own name');
    await accepted(ann.jar, null);
    await accepted(ben.jar, 'Paul Smith');
    assert.equal((await profile(ben.jar)).display_name, 'Paul Smith', 'a name given up is free again');
  });

  it("decision B91: names chosen before the rules: migration 065 keeps the first account's and resets later look-alikes and invisible ones; a reserved name, the DAO's too, is reset at start-up; each audited", async () => {
    const cid = await h.member('cid-lookalike@example.org');
    const dee = await h.member('dee-lookalike@example.org');
    const eve = await h.member('eve-lookalike@example.org');
    // The database as it was before migration 065, with names F22 alone accepted.
    const db = h.opened.db;
    await downKeys(db as unknown as Kysely<unknown>);
    await sql`delete from kysely_migration where name = '065-display-name-keys'`.execute(db);
    const chosen: Array<[string, string]> = [
      [ann.user_id, 'Tom Reed'],
      [ben.user_id, 'T\u041E\u041C Reed'], // Cyrillic ОМ: registered after Ann, gives way
      [cid.user_id, 'Cid\u3164'],
      [dee.user_id, 'Moderator'],
      [eve.user_id, 'River Dao'],
    ];
    for (const [id, name] of chosen) await sql`update users set display_name = ${name} where id = ${id}`.execute(db);
    await h.restart();
    ann.jar = (await h.login('ann-lookalike@example.org')).jar;
    ben.jar = (await h.login('ben-lookalike@example.org')).jar;
    assert.deepEqual(
      [(await profile(ann.jar)).display_name, (await profile(ben.jar)).chosen],
      ['Tom Reed', false],
      'the account registered first keeps the name',
    );
    for (const who of ['cid', 'dee', 'eve']) {
      const p = await profile((await h.login(`${who}-lookalike@example.org`)).jar);
      assert.deepEqual([p.chosen, p.display_name], [false, p.default_name], who);
    }
    const resets = await audit('members.display_name_reset');
    assert.deepEqual(
      resets.map((r) => [r.subject, r.detail.reason, r.actor]).sort(),
      [
        [ben.user_id, 'lookalike', 'system'],
        [cid.user_id, 'invisible', 'system'],
        [dee.user_id, 'reserved', 'system'],
        [eve.user_id, 'reserved', 'system'],
      ].sort(),
    );
    await refused(ben.jar, 'Tom Reed', 409, 'NAME_TAKEN', /already uses this name/);
    await refused(ben.jar, 'T\u041E\u041C Reed', 409, 'NAME_TAKEN', /looks the same/);
  });
});
