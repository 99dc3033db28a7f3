// The audit log's rows are removed by the retention job only, and only past retention (issue 45
// item 9; decisions B97–B99), on the real PostgreSQL server with two roles of this run's own: an
// owner that the bridge migrates with (DATABASE_MIGRATION_URL) and the app role it serves with
// (DATABASE_URL). The app role cannot delete, update, truncate or unguard the table, whatever it
// sets; the retention function deletes by the server's clock and the recorded floor, whatever cutoff
// it is handed. Production refuses a DATABASE_URL role that could remove rows.
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { ConfigError } from '@domdao/config';
import { loadBridgeConfig } from '../src/config.ts';
import { AUDIT_RETENTION_JOB } from '../src/core/audit/retention.ts';
import { ADMIN_EMAIL, BACKENDS, bridge, PG_URL, type Bridge } from './harness.ts';

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
const id = randomUUID().replace(/-/g, '').slice(0, 16);
const OWNER = `domdao_owner_${id}`;
const APP = `domdao_app_${id}`;
const DB = `audit_roles_${id}`;
const urlAs = (role: string, database = DB) =>
  Object.assign(new URL(PG_URL), { username: role, pathname: `/${database}` }).href;
const OWNER_URL = urlAs(OWNER);
const APP_URL = urlAs(APP);
const SUPERUSER_URL = urlAs(new URL(PG_URL).username || 'postgres');

// Decision B100: a database belongs to one canister set, so the bridges this file starts one after
// another on one database share one DATA_DIR (one set of embedded canisters) per database.
const dataDirs = new Map<string, string>();
const dataDirFor = (url: string) => {
  const database = new URL(url).pathname;
  if (!dataDirs.has(database)) dataDirs.set(database, mkdtempSync(join(tmpdir(), 'domdao-audit-roles-')));
  return dataDirs.get(database)!;
};
after(() => {
  for (const dir of dataDirs.values()) rmSync(dir, { recursive: true, force: true });
});
// Decision B109: every bridge on one database has the same secrets, so this file gives all of its bridges one set.
const key = () => randomBytes(32).toString('base64url');
const SECRETS = {
  HPKE_PRIVATE_KEY: key(),
  BLIND_INDEX_KEY: key(),
  SESSION_DATA_KEY: key(),
  MEMBER_IDENTITY_SECRET: key(),
  SIGNING_SECRET: `${key()}${key()}`,
};
const bridgeOn = (env: Record<string, string>, options: Parameters<typeof bridge>[2] = {}) =>
  bridge(
    BACKENDS[0],
    { ...(env.DATABASE_URL && { DATA_DIR: dataDirFor(env.DATABASE_URL) }), ...SECRETS, ...env },
    options,
  );

/** Runs `statements` on one connection as `url`'s role, closed afterwards. */
async function as<T>(url: string, run: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return await run(c);
  } finally {
    await c.end();
  }
}

const count = (url: string) =>
  as(url, async (c) => Number((await c.query<{ n: string }>('select count(*) as n from audit_log')).rows[0]!.n));

/** The environment of a production bridge: every secret explicit (the harness sets the rest). */
function productionEnv(databaseUrl: string): Record<string, string> {
  return {
    NODE_ENV: 'production',
    // Decision B102: production with the embedded canisters is a declared single instance.
    BRIDGE_SINGLE_INSTANCE: 'true',
    DATABASE_URL: databaseUrl,
    ...SECRETS,
  };
}

/** A bridge that must refuse to start: the one problem it names. */
async function refusal(env: Record<string, string>): Promise<string> {
  let problem = '';
  await assert.rejects(bridgeOn(env), (e: unknown) => {
    assert.ok(e instanceof ConfigError, String(e));
    assert.equal(e.problems.length, 1, e.message);
    problem = e.problems[0]!;
    return true;
  });
  // One sentence: no line break, one full stop at most and only at its end.
  assert.doesNotMatch(problem, /\n|\.\s/, problem);
  return problem;
}

/** Audit rows through the public interface: failed sign-ins, at the bridge's clock. */
async function failedSignIns(h: Bridge, n: number, tag: string): Promise<void> {
  for (let i = 0; i < n; i++)
    assert.equal((await h.login(`${tag}-${i}@domdao.example`, 'guess guess guess')).res.statusCode, 401);
}

/** Moves the bridge's clock to `at` (the rows it writes carry it). */
const clockTo = (h: Bridge, at: number) => h.advance(at - h.now());

describe('the audit log with an owner role and an app role on PostgreSQL (decisions B97–B99, issue 45 item 9)', () => {
  before(async () => {
    await as(PG_URL, async (c) => {
      await c.query(`create role ${OWNER} login`);
      await c.query(`create role ${APP} login`);
      await c.query(`create database ${DB} owner ${OWNER}`);
    });
    // What docs/operations/postgres.md has an operator run: nobody but the owner creates in the schema.
    await as(SUPERUSER_URL, (c) => c.query('revoke create on schema public from public'));
  });
  after(async () => {
    await as(PG_URL, async (c) => {
      await c.query(`drop database if exists ${DB} with (force)`);
      await c.query(`drop role if exists ${APP}`);
      await c.query(`drop role if exists ${OWNER}`);
    });
  });

  it('decision B98: a role that does not own audit_log cannot delete its rows by setting domdao.audit_retention, even with DELETE granted (the bypass of issue 45 item 9)', async () => {
    // The tables made by their owner (a bridge run as the owner), then the grants the old advice
    // gave a non-owner bridge role so the retention job could run: SELECT, INSERT, DELETE.
    const h = await bridgeOn({ DATABASE_URL: OWNER_URL });
    try {
      await failedSignIns(h, 2, 'bypass');
    } finally {
      await h.close();
    }
    await as(OWNER_URL, async (c) => {
      await c.query(`grant select, insert, delete on audit_log to ${APP}`);
      await c.query(`grant usage on sequence audit_log_id_seq to ${APP}`);
    });
    const rows = await count(OWNER_URL);
    assert.ok(rows >= 2);
    await as(APP_URL, async (c) => {
      await c.query('begin');
      await c.query(`set local domdao.audit_retention = 'on'`);
      await assert.rejects(c.query('delete from audit_log'), /append-only: DELETE refused/);
      await c.query('rollback');
      await c.query(`select set_config('domdao.audit_retention', 'on', false)`);
      await assert.rejects(
        c.query('delete from audit_log where id = (select min(id) from audit_log)'),
        /append-only: DELETE refused/,
      );
    });
    assert.equal(await count(OWNER_URL), rows, 'every row is still there');
  });

  describe('the documented set-up: migrated as the owner (DATABASE_MIGRATION_URL), served as the app role (DATABASE_URL)', () => {
    let h: Bridge;
    before(async () => {
      // The retention job runs only when a test runs it: these tests move the bridge's clock by days,
      // and the runner's own timer would run each day's slot as the clock reaches it, racing runNow.
      h = await bridgeOn(
        {
          DATABASE_URL: APP_URL,
          DATABASE_MIGRATION_URL: OWNER_URL,
          AUDIT_RETENTION_DAYS: '30',
          AUDIT_RETENTION_BATCH: '2',
        },
        { jobTimer: false },
      );
    });
    after(() => h.close());

    it('decision B97: the bridge serves as the app role, which owns nothing: registration, verification, the first admin (the outbox), sign-in and the audit page work with its grants; no warning about its role', async () => {
      const r = await as(SUPERUSER_URL, (c) =>
        c.query<{ owner: string; tables: string }>(
          `select (select pg_get_userbyid(relowner) from pg_class where oid = 'audit_log'::regclass) as owner,
                  (select count(*) from pg_class where relowner = (select oid from pg_roles where rolname = $1)) as tables`,
          [APP],
        ),
      );
      assert.deepEqual(r.rows[0], { owner: OWNER, tables: '0' });
      assert.equal((await h.request({ method: 'GET', url: '/health/ready' })).statusCode, 200);
      const admin = await h.member(ADMIN_EMAIL);
      const audit = await h.request({
        method: 'GET',
        url: '/api/admin/audit?event=roles.bootstrap_admin_granted',
        jar: admin.jar,
      });
      assert.equal(audit.statusCode, 200, audit.body);
      assert.equal((audit.json() as { items: unknown[] }).items.length, 1);
      assert.equal((await h.request({ method: 'POST', url: '/auth/logout', jar: admin.jar })).statusCode, 200);
      assert.deepEqual(h.logs.events('database.role_can_remove_audit'), []);
      // Its serving connection is the app role's.
      const pool = h.opened.db;
      const { rows } = await (await import('kysely')).sql<{ u: string }>`select current_user as u`.execute(pool);
      assert.equal(rows[0]!.u, APP);
    });

    it('decision B98: as the app role, DELETE (with domdao.audit_retention on), UPDATE, TRUNCATE, disabling or dropping the trigger, replica mode and rewriting the floor are all refused; no row changes', async () => {
      await failedSignIns(h, 2, 'app-role');
      const rows = await count(APP_URL);
      const refused: Array<[string, RegExp]> = [
        ['delete from audit_log', /permission denied for table audit_log/],
        ['update audit_log set actor = $$someone$$', /permission denied for table audit_log/],
        ['truncate audit_log', /permission denied for table audit_log/],
        ['alter table audit_log disable trigger audit_log_no_update', /must be owner of table audit_log/],
        ['alter table audit_log disable trigger all', /must be owner of table audit_log/],
        ['drop trigger audit_log_no_update on audit_log', /must be owner of (table|relation) audit_log/],
        [
          'create or replace function audit_log_append_only() returns trigger language plpgsql as $$begin return old; end$$',
          /permission denied for schema public/,
        ],
        ['set local session_replication_role = replica', /permission denied to set parameter/],
        ['update audit_retention_floor set days = 1', /permission denied for table audit_retention_floor/],
        ['insert into audit_retention_floor (days) values (1)', /permission denied for table audit_retention_floor/],
        ['alter table audit_log owner to current_user', /must be owner of table audit_log/],
      ];
      await as(APP_URL, async (c) => {
        for (const [statement, error] of refused) {
          await c.query('begin');
          await c.query(`set local domdao.audit_retention = 'on'`);
          await assert.rejects(c.query(statement), error, statement);
          await c.query('rollback');
        }
      });
      assert.equal(await count(APP_URL), rows);
    });

    it('decision B98: the retention job (its public job path) deletes rows past AUDIT_RETENTION_DAYS in batches, and keeps the others', async () => {
      // Rows 40 days old and rows of now, by the real clock the server's now() shares.
      const real = Date.now();
      clockTo(h, real - 40 * DAY_MS);
      await failedSignIns(h, 3, 'old');
      clockTo(h, real);
      await failedSignIns(h, 1, 'recent');
      const ats = await as(APP_URL, async (c) =>
        (await c.query<{ at: Date }>('select at from audit_log')).rows.map((r) => r.at.getTime()),
      );
      const old = ats.filter((t) => t < real - 30 * DAY_MS).length;
      assert.ok(old >= 3, `old rows: ${old}`);
      const run = await h.app.jobs.runNow(AUDIT_RETENTION_JOB);
      assert.equal(run.status, 'succeeded', run.error ?? '');
      const detail = run.detail as { deleted: number; batches: number };
      assert.equal(detail.deleted, old);
      assert.equal(detail.batches, Math.ceil(old / 2));
      const left = await as(APP_URL, async (c) =>
        (await c.query<{ at: Date }>('select at from audit_log')).rows.map((r) => r.at.getTime()),
      );
      assert.equal(left.length, ats.length - old);
      assert.ok(left.every((t) => t >= real - 30 * DAY_MS));
    });

    it('decision B98: a cutoff later than the server clock minus the floor deletes nothing more: the job with the bridge clock ten days ahead, and the app role calling audit_log_purge with infinity, keep a row 29 days old and delete one 31 days old', async () => {
      // The server's clock is not ours to move: the rows sit an hour inside and outside its limit.
      const real = Date.now();
      clockTo(h, real - 30 * DAY_MS + HOUR_MS);
      await failedSignIns(h, 1, 'inside');
      clockTo(h, real - 30 * DAY_MS - HOUR_MS);
      await failedSignIns(h, 1, 'outside');
      const inside = new Date(real - 30 * DAY_MS + HOUR_MS).toISOString();
      const subjects = async () =>
        as(APP_URL, async (c) =>
          (await c.query<{ at: Date }>('select at from audit_log order by at')).rows.map((r) => r.at.toISOString()),
        );
      const all = await subjects();
      assert.ok(all.includes(inside));
      // The bridge's clock ten days ahead: its own cutoff would take the row 29 days old too.
      clockTo(h, real + 10 * DAY_MS);
      const run = await h.app.jobs.runNow(AUDIT_RETENTION_JOB);
      assert.equal(run.status, 'succeeded', run.error ?? '');
      assert.equal((run.detail as { deleted: number }).deleted, 1, 'only the row past the floor');
      assert.deepEqual(
        await subjects(),
        all.filter((t) => t !== new Date(real - 30 * DAY_MS - HOUR_MS).toISOString()),
      );
      // The app role's own call, a cutoff in the future and the largest batch: nothing left to take.
      await as(APP_URL, async (c) => {
        const r = await c.query<{ n: number }>(`select audit_log_purge('infinity', 100000) as n`);
        assert.equal(r.rows[0]!.n, 0);
        // A null cutoff is no cutoff (the function is strict).
        assert.equal((await c.query<{ n: number | null }>('select audit_log_purge(null, 10) as n')).rows[0]!.n, null);
        // Its batch at the limits of AUDIT_RETENTION_BATCH and one past.
        for (const ok of [1, 100000]) await c.query('select audit_log_purge(now(), $1)', [ok]);
        for (const bad of [0, 100001])
          await assert.rejects(c.query('select audit_log_purge(now(), $1)', [bad]), /batch .* outside 1 to 100000/);
      });
      assert.ok((await subjects()).includes(inside));
    });

    it('decision B98: audit_log_purge runs with its own search_path: tables the caller makes in pg_temp do not stand in for the floor or the log', async () => {
      const before = await count(APP_URL);
      await as(APP_URL, async (c) => {
        await c.query('create temp table audit_retention_floor (id boolean primary key, days integer)');
        await c.query('insert into audit_retention_floor values (true, 0)');
        await c.query('create temp table audit_log (id bigint, at timestamptz)');
        await c.query('set search_path = pg_temp, public');
        assert.equal(
          (await c.query<{ n: number }>(`select public.audit_log_purge('infinity', 100000) as n`)).rows[0]!.n,
          0,
        );
      });
      assert.equal(await count(APP_URL), before);
      const acl = await as(SUPERUSER_URL, (c) =>
        c.query<{ public: boolean; app: boolean; definer: boolean; config: string[] }>(
          `select has_function_privilege('public', p.oid, 'execute') as public, has_function_privilege($1, p.oid, 'execute') as app,
                  p.prosecdef as definer, p.proconfig as config
             from pg_proc p where p.proname = 'audit_log_purge'`,
          [APP],
        ),
      );
      assert.equal(acl.rows.length, 1);
      const f = acl.rows[0]!;
      assert.deepEqual(
        [f.public, f.app, f.definer],
        [false, true, true],
        'EXECUTE revoked from PUBLIC, granted to the app role; SECURITY DEFINER',
      );
      assert.ok(
        f.config.some((s) => /^search_path=.*pg_temp$/.test(s)),
        f.config.join(' '),
      );
    });
  });

  describe('decision B99: a role that could remove audit rows', () => {
    it('decision B99: production refuses to start as the owner of the tables, or as a superuser, in one sentence naming DATABASE_MIGRATION_URL; it starts with the two roles', async () => {
      const asOwner = await refusal(productionEnv(OWNER_URL));
      assert.match(asOwner, new RegExp(`^DATABASE_URL: connects as ${OWNER}, which owns audit_log`));
      assert.match(asOwner, /DATABASE_MIGRATION_URL/);
      const asSuperuser = await refusal(productionEnv(SUPERUSER_URL));
      assert.match(asSuperuser, /which is a superuser/);
      // Before PostgreSQL 16 a role with CREATEROLE can grant itself the owner role.
      const version = await as(SUPERUSER_URL, async (c) =>
        Number((await c.query<{ v: string }>(`select current_setting('server_version_num') as v`)).rows[0]!.v),
      );
      await as(SUPERUSER_URL, (c) => c.query(`alter role ${APP} createrole`));
      try {
        if (version < 160000)
          assert.match(
            await refusal({ ...productionEnv(APP_URL), DATABASE_MIGRATION_URL: OWNER_URL }),
            /which has CREATEROLE/,
          );
      } finally {
        await as(SUPERUSER_URL, (c) => c.query(`alter role ${APP} nocreaterole`));
      }
      const h = await bridgeOn({ ...productionEnv(APP_URL), DATABASE_MIGRATION_URL: OWNER_URL });
      try {
        assert.equal((await h.request({ method: 'GET', url: '/health' })).statusCode, 200);
      } finally {
        await h.close();
      }
    });

    it('decision B99: outside production the owner role starts with a warning line (database.role_can_remove_audit)', async () => {
      const h = await bridgeOn({ DATABASE_URL: OWNER_URL });
      try {
        const lines = h.logs.events('database.role_can_remove_audit');
        assert.equal(lines.length, 1);
        assert.deepEqual([lines[0]!.role, lines[0]!.reason, lines[0]!.level], [OWNER, 'owner', 'warn']);
      } finally {
        await h.close();
      }
    });

    it('decision B97: without DATABASE_MIGRATION_URL a role that does not own the tables refuses to start in one sentence; DATABASE_MIGRATION_URL alone (the embedded database) is refused', async () => {
      const problem = await refusal({ DATABASE_URL: APP_URL });
      assert.match(problem, /^DATABASE_URL: the migration step failed as /);
      assert.match(problem, /set DATABASE_MIGRATION_URL/);
      assert.throws(
        () => loadBridgeConfig({ DATABASE_MIGRATION_URL: OWNER_URL }),
        (e: unknown) =>
          e instanceof ConfigError &&
          e.problems.length === 1 &&
          /^DATABASE_MIGRATION_URL: needs DATABASE_URL/.test(e.problems[0]!),
      );
    });
  });
});

describe('decision B97: an existing one-role database moved to two roles with the SQL of docs/operations/postgres.md', () => {
  const OLD = `domdao_single_${id}`;
  const NEW_OWNER = `domdao_newowner_${id}`;
  const MOVED = `audit_moved_${id}`;
  after(async () => {
    await as(PG_URL, async (c) => {
      await c.query(`drop database if exists ${MOVED} with (force)`);
      await c.query(`drop role if exists ${OLD}`);
      await c.query(`drop role if exists ${NEW_OWNER}`);
    });
  });

  it('decision B97: after reassigning what the old role owned, the bridge starts with DATABASE_URL unchanged and DATABASE_MIGRATION_URL the new owner; the old role can no longer delete audit rows', async () => {
    await as(PG_URL, async (c) => {
      await c.query(`create role ${OLD} login`);
      await c.query(`create database ${MOVED} owner ${OLD}`);
    });
    const oldUrl = urlAs(OLD, MOVED);
    let h = await bridgeOn({ DATABASE_URL: oldUrl });
    try {
      await failedSignIns(h, 1, 'one-role');
    } finally {
      await h.close();
    }
    // The documented move, as a superuser connected to the database.
    await as(urlAs(new URL(PG_URL).username || 'postgres', MOVED), async (c) => {
      await c.query(`create role ${NEW_OWNER} login`);
      await c.query(`alter database ${MOVED} owner to ${NEW_OWNER}`);
      await c.query(`reassign owned by ${OLD} to ${NEW_OWNER}`);
    });
    h = await bridgeOn({ ...productionEnv(oldUrl), DATABASE_MIGRATION_URL: urlAs(NEW_OWNER, MOVED) });
    try {
      await failedSignIns(h, 1, 'two-roles');
      const rows = await count(oldUrl);
      assert.ok(rows >= 2);
      await as(oldUrl, async (c) => {
        await c.query('begin');
        await c.query(`set local domdao.audit_retention = 'on'`);
        await assert.rejects(c.query('delete from audit_log'), /permission denied for table audit_log/);
        await c.query('rollback');
      });
      assert.equal(await count(oldUrl), rows);
    } finally {
      await h.close();
    }
  });
});

describe('the audit log on the embedded database, one role (decision B99)', () => {
  let h: Bridge;
  before(async () => {
    // As above: no timer runs the job's slots while the tests move the clock by days.
    h = await bridgeOn({ AUDIT_RETENTION_DAYS: '30', AUDIT_RETENTION_BATCH: '2' }, { jobTimer: false });
  });
  after(() => h.close());

  it('decision B99: the retention job deletes through audit_log_purge, by the process clock and the floor; a DELETE without the job is refused', async () => {
    const real = Date.now();
    clockTo(h, real - 40 * DAY_MS);
    await failedSignIns(h, 2, 'embedded-old');
    clockTo(h, real - 29 * DAY_MS);
    await failedSignIns(h, 1, 'embedded-inside');
    clockTo(h, real + 10 * DAY_MS);
    const run = await h.app.jobs.runNow(AUDIT_RETENTION_JOB);
    assert.equal(run.status, 'succeeded', run.error ?? '');
    assert.equal((run.detail as { deleted: number }).deleted, 2);
    const { sql } = await import('kysely');
    const left = await sql<{ at: Date }>`select at from audit_log`.execute(h.opened.db);
    assert.ok(left.rows.length >= 1 && left.rows.every((r) => new Date(r.at).getTime() >= real - 30 * DAY_MS));
    await assert.rejects(sql`delete from audit_log`.execute(h.opened.db), /append-only: DELETE refused/);
  });
});
