// Decision R13 on PostgreSQL (postgres-template.ts): the migrated template is made once per migration
// set by whichever process needs it first. On a server of the test's own: the shared server's template
// is in use by the run's other files.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, describe, it } from 'node:test';
import pg from 'pg';
import { startPrivatePostgres } from '@domdao/test-helpers';
import { forgetPostgresTemplate, postgresTemplate, withDatabase } from './postgres-template.ts';

describe('decision R13: the PostgreSQL template', () => {
  it("a template another process renamed in first is taken as it is; another set's and a killed maker's are dropped, a live maker's kept", async () => {
    const server = await startPrivatePostgres();
    const admin = new pg.Client({ connectionString: server.url });
    await admin.connect();
    // The client first, then its server (after-hooks run in the order they were added).
    after(async () => {
      await admin.end();
      await server.close();
    });
    const templates = async () =>
      (
        await admin.query<{ datname: string }>(
          "select datname from pg_database where datname like 'bridge\\_template\\_%' order by datname",
        )
      ).rows.map((r) => r.datname);
    // What earlier runs left: another migration set's template, one a killed process was building (no
    // such pid), and one a running process is building (the runner, this process's parent).
    const live = `bridge_template_1111111111111111_building_${process.ppid}`;
    for (const name of [
      'bridge_template_0000000000000000',
      'bridge_template_0000000000000000_building_999999999',
      live,
    ])
      await admin.query(`create database ${name}`);

    forgetPostgresTemplate();
    after(forgetPostgresTemplate); // the run's next file finds or makes the shared server's own
    const making = postgresTemplate(server.url);
    let scratch: string | undefined;
    for (let i = 0; i < 1000 && !scratch; i++) {
      scratch = (await templates()).find((n) => n.endsWith(`_building_${process.pid}`));
      if (!scratch) await sleep(5);
    }
    assert.ok(scratch, 'this process builds its own beside the others');
    // While a connection holds the half-built one (a database in use cannot be renamed, so its maker
    // waits), another process's template takes the name.
    const holder = new pg.Client({ connectionString: withDatabase(server.url, scratch) });
    await holder.connect();
    // Its maker drops it `with (force)` once the name is taken, which may end this connection first.
    holder.on('error', () => undefined);
    const name = scratch.replace(/_building_\d+$/, '');
    await admin.query(`create database ${name}`);
    await holder.end().catch(() => undefined);

    assert.equal(await making, name);
    assert.deepEqual(await templates(), [live, name].sort());
    const other = new pg.Client({ connectionString: withDatabase(server.url, name) });
    await other.connect();
    const tables = await other.query(
      "select count(*)::int as n from information_schema.tables where table_schema = 'public'",
    );
    await other.end();
    assert.deepEqual(
      tables.rows,
      [{ n: 0 }],
      'the template that was there first is kept, not replaced by this process’s',
    );
    forgetPostgresTemplate();
    assert.equal(await postgresTemplate(server.url), name, 'found again, nothing built');
    assert.deepEqual(await templates(), [live, name].sort());
  });
});
