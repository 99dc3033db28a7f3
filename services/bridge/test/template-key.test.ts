// Decision R28 (amends R13): the migrated PGlite template of a test run is named by a hash of the
// migrations it was made from, as PostgreSQL's is, so a migration changed while a run's cache holds a
// template makes a new one instead of lending the old schema. The hash on a copy of the migrations
// (a changed byte, an added file); the template's name as the harness makes it.
import assert from 'node:assert/strict';
import { appendFileSync, cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { embeddedTemplate } from './embedded-template.ts';
import { DB_DIR, migrationsHash } from './migrations-hash.ts';

describe('decision R28: the PGlite template is keyed by the migrations', () => {
  const copy = mkdtempSync(join(tmpdir(), 'domdao-migrations-'));
  after(() => rmSync(copy, { recursive: true, force: true }));
  cpSync(join(DB_DIR, 'migrations'), join(copy, 'migrations'), { recursive: true });
  cpSync(join(DB_DIR, 'migrate.ts'), join(copy, 'migrate.ts'));

  it('the same migrations hash the same; a changed byte of one, or one more file, hash otherwise', () => {
    const original = migrationsHash();
    assert.match(original, /^[0-9a-f]{16}$/);
    assert.equal(migrationsHash(copy), original, 'an identical copy');
    appendFileSync(join(copy, 'migrations', '001-initial.ts'), ' ');
    const edited = migrationsHash(copy);
    assert.notEqual(edited, original, 'a migration edited (one space more)');
    writeFileSync(join(copy, 'migrations', '999-added.ts'), 'export async function up() {}\n');
    assert.notEqual(migrationsHash(copy), edited, 'a migration added');
  });

  it("the run's template is named by the hash of the migrations it was made from", async () => {
    assert.equal(basename(await embeddedTemplate()), `bridge-pglite-${migrationsHash()}`);
  });
});
