// The run path of `npm start` (decision P14): scripts/start.ts and everything it imports from this
// repository bundled by esbuild into one ES module (plus lazily loaded chunks), so the running
// platform loads no TypeScript loader. tsx costs ≈32 MiB of resident memory on its own and more per
// module it transforms; development and the tests keep using it. Packages from npm stay external,
// each resolved from the file that imports it (a workspace may hold its own version of one), and
// every bundled file keeps its own import.meta.url, so relative paths (the portal's dist, the initdb
// script) and the services' "am I the entry point" checks behave as in the source.
// Plain JavaScript, so it runs before anything is built. Usage: node scripts/build-run-path.mjs [outdir]
import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const DEFAULT_OUTDIR = resolve(ROOT, '.build/run');
/** Node's flags for the built platform; package.json's start script uses the same (a test checks). */
// --max-semi-space-size=4 (decision P20): V8's young generation stops at 4 MiB semi-spaces instead of
// growing to 16, which was the idle climb of P19.
export const RUN_FLAGS = ['--liftoff-only', '--enable-source-maps', '--max-semi-space-size=4'];

const runPath = {
  name: 'run-path',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, async (args) => {
      if (args.path.startsWith('@domdao/') || args.path.startsWith('node:') || args.pluginData === 'inner')
        return undefined;
      const found = await build.resolve(args.path, {
        kind: args.kind,
        resolveDir: args.resolveDir,
        importer: args.importer,
        pluginData: 'inner',
      });
      if (found.errors.length > 0) return { errors: found.errors };
      return { path: found.path, external: true };
    });
    build.onLoad({ filter: /\.(ts|mts|js|mjs)$/, namespace: 'file' }, async (args) => {
      if (args.path.includes('/node_modules/')) return undefined;
      const text = await readFile(args.path, 'utf8');
      if (!text.includes('import.meta.url')) return undefined;
      return {
        contents: text.replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href)),
        loader: /\.m?ts$/.test(args.path) ? 'ts' : 'js',
        resolveDir: dirname(args.path),
      };
    });
  },
};

/** Builds the run path into `outdir`; its entry is `<outdir>/start.js`. */
export async function buildRunPath(outdir = DEFAULT_OUTDIR) {
  try {
    await esbuild.build({
      entryPoints: [resolve(ROOT, 'scripts/start.ts')],
      bundle: true,
      splitting: true,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      outdir,
      sourcemap: 'linked',
      plugins: [runPath],
      logLevel: 'warning',
    });
  } finally {
    // esbuild's service process would otherwise outlive the build.
    await esbuild.stop();
  }
  return resolve(outdir, 'start.js');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  await buildRunPath(process.argv[2] ? resolve(process.argv[2]) : DEFAULT_OUTDIR);
}
