// A yardstick for the memory benchmark: PGlite alone, opened as the bridge opens it (a data directory,
// the vector extension), answering /health on PORT with its own settings; nothing else loaded.
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite/vector';

const db = new PGlite(join(mkdtempSync(join(tmpdir(), 'bench-pglite-')), 'pglite'), { extensions: { vector } });
const settings = await db.query<{ name: string; setting: string; unit: string | null }>("select name, setting, unit from pg_settings where name in ('shared_buffers', 'wal_buffers', 'temp_buffers')");
const body = JSON.stringify(Object.fromEntries(settings.rows.map((r) => [r.name, `${r.setting}${r.unit ?? ''}`])));
createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(body)).listen(Number(process.env.PORT), process.env.HOST);
