// Builds the member web app (decision F1): esbuild bundles src/ into dist/ with content-hashed file
// names; dist/index.html names them. `npm start` and `npm test` call buildPortal(), which rebuilds only
// when a source file changed since the last build (a hash of src/ kept in dist/build.json).
// Hosted on another origin than the bridge (decision F11): PORTAL_BRIDGE_ORIGIN (or --bridge-origin)
// names the bridge in index.html's <meta name="domdao-bridge">, and --out-dir writes the build there.
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ROOT = dirname(fileURLToPath(import.meta.url));
const DEFAULT_DIST = join(ROOT, 'dist');
export const PORTAL_DIST = DEFAULT_DIST;
const SOURCES = [
  join(ROOT, 'src'),
  join(ROOT, 'build.ts'),
  join(ROOT, '../../packages/registration/src'),
  join(ROOT, '../../packages/canister-kit/src/rules.ts'),
  join(ROOT, '../../packages/canister-kit/src/bidi.ts'),
  join(ROOT, '../../packages/proposal-text/src'),
];

function files(p: string): string[] {
  return statSync(p).isDirectory()
    ? readdirSync(p)
        .sort()
        .flatMap((f) => files(join(p, f)))
    : [p];
}

/** An http(s) origin without path, or '' (the app calls its own origin). Throws on anything else. */
export function bridgeOrigin(value: string | undefined): string {
  if (!value) return '';
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    throw new Error(
      `PORTAL_BRIDGE_ORIGIN must be an http(s) origin such as https://bridge.example.org, not ${JSON.stringify(value)}`,
    );
  }
  if (!/^https?:$/.test(u.protocol) || u.origin === 'null' || value.replace(/\/+$/, '') !== u.origin) {
    throw new Error(
      `PORTAL_BRIDGE_ORIGIN must be an http(s) origin such as https://bridge.example.org (no path, query or credentials), not ${JSON.stringify(value)}`,
    );
  }
  return u.origin;
}

const escapeAttr = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

function sourceHash(bridge: string): string {
  const h = createHash('sha256').update(`bridge:${bridge}\0`);
  for (const f of SOURCES.flatMap(files)) h.update(relative(ROOT, f)).update('\0').update(readFileSync(f)).update('\0');
  return h.digest('hex');
}

/** Builds into dist/ unless it is current; returns whether it built. */
export async function buildPortal(
  opts: { force?: boolean; log?: (s: string) => void; bridgeOrigin?: string; outDir?: string } = {},
): Promise<boolean> {
  const bridge = bridgeOrigin(opts.bridgeOrigin ?? process.env.PORTAL_BRIDGE_ORIGIN);
  const PORTAL_DIST = opts.outDir ?? DEFAULT_DIST;
  const hash = sourceHash(bridge);
  if (!opts.force) {
    try {
      if (
        (JSON.parse(readFileSync(join(PORTAL_DIST, 'build.json'), 'utf8')) as { source_hash?: string }).source_hash ===
        hash
      )
        return false;
    } catch {
      // no build yet
    }
  }
  const t0 = Date.now();
  rmSync(PORTAL_DIST, { recursive: true, force: true });
  mkdirSync(join(PORTAL_DIST, 'assets'), { recursive: true });
  const result = await build({
    entryPoints: { app: join(ROOT, 'src/main.tsx') },
    bundle: true,
    format: 'esm',
    target: ['chrome120', 'firefox120', 'safari17'],
    minify: true,
    sourcemap: false,
    jsx: 'automatic',
    jsxImportSource: 'preact',
    entryNames: 'assets/[name]-[hash]',
    outdir: PORTAL_DIST,
    metafile: true,
    legalComments: 'none',
    logLevel: 'silent',
  });
  const outputs = Object.keys(result.metafile.outputs).map((o) => relative(PORTAL_DIST, o));
  const js = outputs.find((o) => o.endsWith('.js'))!;
  const css = outputs.find((o) => o.endsWith('.css'));
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<title>DOM DAO</title>
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
<meta name="domdao-bridge" content="${escapeAttr(bridge)}">
${css ? `<link rel="stylesheet" href="/${css}">\n` : ''}<script type="module" src="/${js}"></script>
</head>
<body>
<noscript>The DOM DAO app needs JavaScript. Without it: <a href="${escapeAttr(bridge)}/login">sign in</a>, <a href="${escapeAttr(bridge)}/activity">activity</a>, <a href="${escapeAttr(bridge)}/preferences">email preferences</a>.</noscript>
<div id="app"></div>
</body>
</html>
`;
  writeFileSync(join(PORTAL_DIST, 'index.html'), html);
  writeFileSync(
    join(PORTAL_DIST, 'build.json'),
    `${JSON.stringify({ source_hash: hash, files: outputs, built_ms: Date.now() - t0 }, null, 2)}\n`,
  );
  opts.log?.(`portal built in ${Date.now() - t0} ms: ${outputs.join(', ')}`);
  return true;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const arg = (name: string) => {
    const i = process.argv.indexOf(name);
    return i > 0 ? process.argv[i + 1] : undefined;
  };
  const origin = arg('--bridge-origin');
  const outDir = arg('--out-dir');
  const built = await buildPortal({
    force: process.argv.includes('--force'),
    log: (s) => console.log(s),
    ...(origin !== undefined && { bridgeOrigin: origin }),
    ...(outDir && { outDir }),
  });
  if (!built) console.log('portal build is current');
}
