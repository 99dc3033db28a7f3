// Decision R24: the embedded databases the test harness lends. A database given back is the
// template's again (no row, identities restarted) or is never lent again; one is lent to one bridge
// at a time and goes on with it through a restart; a bridge whose app closes other than for good or
// for a restart keeps its data in DATA_DIR/pglite, as a bridge that opened its own directory does.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { openBridge } from '../src/compose/open-bridge.ts';
import { loadBridgeConfig } from '../src/config.ts';
import { openDatabase } from '../src/core/db/connect.ts';
import { bridge } from './harness.ts';
import { lendEmbeddedDatabase, type EmbeddedLoan } from './embedded-template.ts';

const count = async (loan: EmbeddedLoan, table: string) =>
  Number((await loan.lite.query<{ n: string }>(`select count(*) as n from ${table}`)).rows[0]!.n);

describe('decision R24: the harness lends started embedded databases', () => {
  it('a database given back is lent again with no row and its identities restarted, the audit log too', async () => {
    const first = await lendEmbeddedDatabase();
    const database = await openDatabase({ lent: { lite: first.lite, release: () => first.giveBack() } });
    await database.db
      .insertInto('audit_log')
      .values({
        at: new Date(),
        event: 'test.event',
        actor: 'system',
        client: '127.0.0.1',
        outcome: 'success',
        detail: '{}',
      })
      .execute();
    await database.db
      .insertInto('audit_log')
      .values({
        at: new Date(),
        event: 'test.event',
        actor: 'system',
        client: '127.0.0.1',
        outcome: 'success',
        detail: '{}',
      })
      .execute();
    await database.db
      .insertInto('secret_fingerprints')
      .values({ name: 'ACCESS_TOKEN', fingerprint: 'x', seen_at: new Date() })
      .execute();
    // A row written and removed again still moved the identity.
    await database.db.deleteFrom('secret_fingerprints').execute();
    assert.equal(await count(first, 'audit_log'), 2);
    await database.close();

    const second = await lendEmbeddedDatabase();
    try {
      assert.equal(second.lite, first.lite, 'the same started database is lent again');
      assert.equal(await count(second, 'audit_log'), 0);
      assert.equal(await count(second, 'secret_fingerprints'), 0);
      const id = await second.lite.query<{ id: string }>(
        "insert into audit_log (at, event, actor, client, outcome, detail) values (now(), 'test.event', 'system', '127.0.0.1', 'success', '{}') returning id",
      );
      assert.equal(String(id.rows[0]!.id), '1', 'the identity starts again at 1');
      // The append-only rule still holds in a database that was reset (decision B61).
      await assert.rejects(second.lite.query('delete from audit_log'), /audit_log is append-only/);
    } finally {
      await second.giveBack();
    }
  });

  it('a database a test changed (a table, a column, a function, a sequence of its own) is not lent again', async () => {
    for (const change of [
      'create table notes (body text)',
      'alter table users add column nickname text',
      'create function answer() returns int language sql as $$ select 42 $$',
      "create sequence counter; select nextval('counter')",
    ]) {
      const changed = await lendEmbeddedDatabase();
      await changed.lite.exec(change);
      await changed.giveBack();
      const next = await lendEmbeddedDatabase();
      try {
        assert.notEqual(next.lite, changed.lite, `lent again after ${change}`);
        const relations = await next.lite.query("select 1 from pg_class where relname in ('notes', 'counter')");
        assert.equal(relations.rows.length, 0);
        const columns = await next.lite.query(
          "select 1 from information_schema.columns where table_name = 'users' and column_name = 'nickname'",
        );
        assert.equal(columns.rows.length, 0);
      } finally {
        await next.giveBack();
      }
    }
  });

  it('a database is lent to one holder at a time and given back once', async () => {
    const a = await lendEmbeddedDatabase();
    const b = await lendEmbeddedDatabase();
    assert.notEqual(a.lite, b.lite);
    await a.giveBack();
    await assert.rejects(a.giveBack(), /already given back/);
    await b.giveBack();
  });

  it('at most two given-back databases wait for the next loan (IDLE_MAX); the third given back is closed', async () => {
    // Three at once leave none waiting, whatever earlier files gave back.
    const [a, b, c] = [await lendEmbeddedDatabase(), await lendEmbeddedDatabase(), await lendEmbeddedDatabase()];
    for (const loan of [a, b, c]) await loan!.giveBack();
    await assert.rejects(c!.lite.query('select 1'), /closed/i, 'the one past the limit is closed');
    const again = [await lendEmbeddedDatabase(), await lendEmbeddedDatabase(), await lendEmbeddedDatabase()];
    try {
      assert.equal(again[0]!.lite, b!.lite, 'the last one kept is lent first');
      assert.equal(again[1]!.lite, a!.lite);
      assert.ok(![a, b, c].some((l) => l!.lite === again[2]!.lite), 'then a new one');
      assert.deepEqual((await again[2]!.lite.query('select 1 as one')).rows, [{ one: 1 }]);
    } finally {
      for (const loan of again) await loan.giveBack();
    }
  });

  it('a restart goes on with the database it had (what was committed is there, no copy in DATA_DIR); a restart with a sync fault opens DATA_DIR/pglite', async () => {
    const h = await bridge();
    try {
      await h.member('restarted@example.org');
      await h.restart();
      assert.equal((await h.login('restarted@example.org')).res.statusCode, 200);
      const pgdir = join(h.env.DATA_DIR!, 'pglite');
      assert.equal(existsSync(pgdir), false);
      const synced: number[] = [];
      await h.restart({ embeddedSyncFault: (fd) => void synced.push(fd) });
      assert.equal(existsSync(join(pgdir, 'PG_VERSION')), true);
      assert.equal((await h.login('restarted@example.org')).res.statusCode, 200);
      assert.ok(synced.length > 0, 'the reopened directory syncs through the hook');
    } finally {
      await h.close();
    }
  });

  it('a bridge whose app closes other than for good keeps its data in DATA_DIR/pglite, where a reopened bridge finds it', async () => {
    const h = await bridge();
    try {
      await h.member('kept@example.org');
      const pgdir = join(h.env.DATA_DIR!, 'pglite');
      assert.equal(existsSync(pgdir), false, 'the lent database is not in DATA_DIR while the bridge runs');
      await h.app.close();
      assert.equal(existsSync(join(pgdir, 'PG_VERSION')), true, 'it is there once the app closed');
      const reopened = await openBridge(loadBridgeConfig(h.env), h.env, { scheduler: false, logStream: h.logs.stream });
      try {
        const users = await reopened.db.selectFrom('users').select('id').execute();
        assert.equal(users.length, 1);
      } finally {
        await reopened.app.close();
      }
      // And a restart of the harness opens the same directory.
      await h.restart();
      assert.equal((await h.login('kept@example.org')).res.statusCode, 200);
    } finally {
      await h.close();
    }
  });
});
