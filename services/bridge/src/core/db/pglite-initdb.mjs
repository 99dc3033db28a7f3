// Creates a new PGlite data directory and exits (decision P13). Run as a child process of the bridge:
// initdb's one-time memory (its own wasm instance, the code compiled for it) is returned to the
// system when this process ends, instead of staying in the bridge's resident set for its lifetime.
// Plain JavaScript, so it runs with any node, with or without a TypeScript loader.
// Usage: node pglite-initdb.mjs <data directory> <start parameters as a JSON array>
import { PGlite } from '@electric-sql/pglite';

const [dir, params] = process.argv.slice(2);
if (!dir || !params) {
  process.stderr.write('usage: pglite-initdb.mjs <dir> <start parameters as JSON>\n');
  process.exit(2);
}
const db = new PGlite(dir, { startParams: JSON.parse(params) });
await db.waitReady;
await db.close();
// PGlite leaves a handle open after close; the directory is complete, so end here.
process.exit(0);
