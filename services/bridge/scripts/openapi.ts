// `npm run openapi:bridge`: writes docs/api/bridge.openapi.json from the bridge's routes (decision
// B47). The bridge is built the production way on a throw-away data directory; nothing is kept.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { openBridge } from '../src/compose/open-bridge.ts';
import { inlineRefs } from '../src/core/http/openapi-components.ts';
import { loadBridgeConfig } from '../src/config.ts';

export const BRIDGE_OPENAPI_FILE = new URL('../../../docs/api/bridge.openapi.json', import.meta.url);

/** The committed document with its components written out where they are `$ref`d (decision B127): every
 *  operation's answers in full, as a reader that looks at one operation at a time wants them. */
export function readBridgeOpenApi<T>(): T {
  return inlineRefs(JSON.parse(readFileSync(BRIDGE_OPENAPI_FILE, 'utf8')) as T);
}

/** The document as committed: stable key order from the routes, two-space JSON, final newline. */
export function openApiText(doc: unknown): string {
  return `${JSON.stringify(doc, null, 2)}\n`;
}

export async function generateBridgeOpenApi(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'domdao-openapi-'));
  const env = { NODE_ENV: 'test', LOG_LEVEL: 'silent', DATA_DIR: dir };
  try {
    const { app } = await openBridge(loadBridgeConfig(env), env, { scheduler: false });
    try {
      await app.ready();
      return openApiText(app.swagger());
    } finally {
      await app.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  writeFileSync(BRIDGE_OPENAPI_FILE, await generateBridgeOpenApi());
  console.log(`wrote ${BRIDGE_OPENAPI_FILE.pathname}`);
}
