// Decision R13: a bridge test on PGlite starts from a copy of a new, migrated embedded database
// instead of making one. Making one (initdb in a child process, then every migration) took about
// 4 s of CPU a bridge, and the suite opens well over a hundred; copying the directory and opening
// it, as a restart does, takes about 0.5 s. The template is made once by the production path
// (`openDatabase` on a new directory, then a clean close) and shared by every file of one
// `npm test` run through `TEST_RUN_CACHE_DIR`, which scripts/test.mjs makes and removes; a file
// run on its own keeps one for its process. What only a new directory does (initdb in a child, the
// rename, the first sync of the tree) is tested by embedded-database.test.ts on its own directories.
import { cpSync, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../src/core/db/index.ts';

const TEMPLATE = 'bridge-pglite';

let cacheDir: string | undefined;
let made: Promise<string> | undefined;

function cache(): string {
  if (cacheDir) return cacheDir;
  const shared = process.env.TEST_RUN_CACHE_DIR;
  if (shared) {
    mkdirSync(shared, { recursive: true });
    return (cacheDir = shared);
  }
  const own = mkdtempSync(join(tmpdir(), 'domdao-test-cache-'));
  process.once('exit', () => rmSync(own, { recursive: true, force: true }));
  return (cacheDir = own);
}

/** The template's path, made by whichever process of the run needs it first. */
function template(): Promise<string> {
  return (made ??= (async () => {
    const root = cache();
    const path = join(root, TEMPLATE);
    if (existsSync(path)) return path;
    // Built in a directory of this process's own (the embedded database discards other builds
    // beside it as a crash's leftovers), then renamed in: another worker that won the race keeps its.
    const scratch = mkdtempSync(join(root, `build-${process.pid}-`));
    try {
      const database = await openDatabase({ dir: join(scratch, 'pglite') });
      await database.close();
      try {
        renameSync(join(scratch, 'pglite'), path);
      } catch (e) {
        if (!existsSync(path)) throw e;
      }
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
    return path;
  })());
}

/** Puts a new, migrated embedded database at `dir` (which must not exist yet). */
export async function seedEmbeddedDatabase(dir: string): Promise<void> {
  cpSync(await template(), dir, { recursive: true });
}

/**
 * A new DATA_DIR (under the temporary directory, named from `prefix`) holding a copy of the template
 * as its embedded database, for a bridge or a whole platform a test starts as a process of its own: it
 * opens the database as a restart does, without initdb's child (about 5 CPU-s on a 2-CPU machine).
 * What a first start does is tested where it is the subject (embedded-database, start-and-register,
 * and start-signals' signal during the creation).
 */
export async function seededDataDir(prefix: string): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  await seedEmbeddedDatabase(join(dir, 'pglite'));
  return dir;
}

/**
 * `openDatabase({})` for tests that drive a feature's functions on PGlite: a copy of the template in a
 * directory of its own (removed by `close`), without fsync, as an in-memory database would be.
 */
export async function openTemplateDatabase(): ReturnType<typeof openDatabase> {
  const dir = mkdtempSync(join(tmpdir(), 'domdao-test-db-'));
  try {
    await seedEmbeddedDatabase(join(dir, 'pglite'));
    const database = await openDatabase({ dir: join(dir, 'pglite'), embeddedFsync: false });
    return {
      ...database,
      async close() {
        try {
          await database.close();
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      },
    };
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
}
