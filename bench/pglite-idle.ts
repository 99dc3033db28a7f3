// A yardstick for the memory benchmark: PGlite alone, opened as the bridge opens it (openDatabase on a
// data directory: created by a child process, started with the bridge's settings, migrated), answering
// /health on PORT with its own settings; nothing else loaded.
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { openDatabase } from '../services/bridge/src/core/db/connect.ts';

const { db } = await openDatabase({ dir: join(mkdtempSync(join(tmpdir(), 'bench-pglite-')), 'pglite') });
const settings = await sql<{
  name: string;
  setting: string;
  unit: string | null;
}>`select name, setting, unit from pg_settings where name in ('shared_buffers', 'wal_buffers', 'temp_buffers', 'server_version')`.execute(
  db,
);
const body = JSON.stringify(Object.fromEntries(settings.rows.map((r) => [r.name, `${r.setting}${r.unit ?? ''}`])));
createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(body)).listen(
  Number(process.env.PORT),
  process.env.HOST,
);
