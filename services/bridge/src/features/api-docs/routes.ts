// The bridge's API reference as a page (decision S30): GET /api/docs renders the bridge's own OpenAPI
// document (GET /api/openapi.json) with Redoc's standalone bundle, installed from npm and served by
// the bridge itself (no CDN). The page keeps the bridge's strict Content-Security-Policy but for what
// Redoc needs: it injects its stylesheets as <style> elements, so this page alone allows the styles
// carrying its per-answer nonce, and the blob: worker its search runs in. No inline script, no eval,
// no other origin. Every other page keeps PAGE_CSP or the web app's policy unchanged.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { BridgeApp } from '../../core/http/typed.ts';
import { OPENAPI_PATH } from '../../core/http/openapi.ts';

export const API_DOCS_PATH = '/api/docs';
const REDOC_PATH = `${API_DOCS_PATH}/redoc.standalone.js`;
const INIT_PATH = `${API_DOCS_PATH}/init.js`;

/** The page's policy: PAGE_CSP's sources plus the nonce's styles, data: images and fonts Redoc inlines, and the search worker. */
export function apiDocsCsp(nonce: string): string {
  return `default-src 'none'; script-src 'self'; style-src 'self' 'nonce-${nonce}'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; worker-src blob:; form-action 'none'; frame-ancestors 'none'; base-uri 'none'`;
}

// Reads its options from the element, so no inline script is needed; the nonce is the answer's own.
const INIT = `(function () {
  var el = document.getElementById('redoc');
  window.Redoc.init(el.getAttribute('data-spec-url'), {
    nonce: el.getAttribute('data-nonce'),
    expandResponses: '200,201',
    hideDownloadButton: false,
    sortTagsAlphabetically: false,
    theme: { colors: { primary: { main: '#4338CA' } } }
  }, el);
})();
`;

const page = (
  nonce: string,
): string => `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>DOM DAO bridge API</title><link rel="icon" href="/favicon.svg" type="image/svg+xml"></head>
<body><noscript>This page renders the bridge's OpenAPI document with JavaScript; the document itself is at <a href="${OPENAPI_PATH}">${OPENAPI_PATH}</a>.</noscript>
<div id="redoc" data-spec-url="${OPENAPI_PATH}" data-nonce="${nonce}"></div>
<script src="${REDOC_PATH}" nonce="${nonce}"></script><script src="${INIT_PATH}"></script></body></html>`;

/**
 * Two edits of the pinned bundle (redoc 2.5.4), each of one exact string: the stylesheets it injects
 * while it loads, before Redoc.init can pass the nonce, take it from the <script> element that loads
 * the bundle (webpack's `__webpack_nonce__`, which the bundle otherwise resets to undefined); and the
 * sidebar's "API docs by Redocly" logo, fetched from Redocly's CDN, is an empty inline image instead.
 * A bundle without either string (another version) is served as it is, and the page test fails.
 */
export const REDOC_EDITS: ReadonlyArray<[string, string]> = [
  ['r.nc=void 0', 'r.nc=document.currentScript&&document.currentScript.nonce||void 0'],
  ['"https://cdn.redoc.ly/redoc/logo-mini.svg"', `"data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg'/%3E"`],
];

export function editRedoc(bundle: string): { text: string; missing: string[] } {
  let text = bundle;
  const missing: string[] = [];
  for (const [from, to] of REDOC_EDITS) {
    if (text.split(from).length !== 2) missing.push(from);
    else text = text.replace(from, to);
  }
  return { text, missing };
}

export default async function apiDocs(app: BridgeApp): Promise<void> {
  // Read once at start: the bundle is part of the installed release, like the web app's assets.
  const { text: redoc, missing } = editRedoc(
    readFileSync(createRequire(import.meta.url).resolve('redoc/bundles/redoc.standalone.js'), 'utf8'),
  );
  if (missing.length)
    app.log.warn(
      { event: 'api_docs.bundle_unexpected', missing },
      'the Redoc bundle is not the version this page was made for: /api/docs may break its policy',
    );

  app.get(
    API_DOCS_PATH,
    {
      schema: {
        operationId: 'getApiDocs',
        summary: 'The API reference: this document rendered by Redoc (decision S30)',
        description: `Public: an HTML page that loads ${OPENAPI_PATH} and renders it; its scripts are served by the bridge.`,
        tags: ['pages'],
        security: [],
        response: { 200: { description: 'HTML', content: { 'text/html': { schema: { type: 'string' } } } } },
      },
    },
    async (_req, reply) => {
      const nonce = randomBytes(16).toString('base64');
      return reply
        .type('text/html; charset=utf-8')
        .header('content-security-policy', apiDocsCsp(nonce))
        .header('x-frame-options', 'DENY')
        .header('x-content-type-options', 'nosniff')
        .header('referrer-policy', 'same-origin')
        .header('cache-control', 'no-store')
        .send(page(nonce));
    },
  );

  const script = (body: string, cache: string) => async (_req: unknown, reply: import('fastify').FastifyReply) =>
    reply
      .type('text/javascript; charset=utf-8')
      .header('x-content-type-options', 'nosniff')
      .header('cache-control', cache)
      .send(body);
  app.get(REDOC_PATH, { schema: { hide: true } }, script(redoc, 'public, max-age=3600'));
  app.get(INIT_PATH, { schema: { hide: true } }, script(INIT, 'public, max-age=3600'));
}
