// The member web app (decisions F1–F4) at the bridge's `/`: the build in apps/portal/dist
// (index.html and content-hashed assets), read once at start. Every app path answers index.html
// under a strict Content-Security-Policy (no inline script or style: the app sets its brand colours
// through the CSSOM); assets are immutable. Any other path keeps the bridge's JSON 404, except a browser's
// page load (GET asking for HTML, outside /api/), which gets the app's own "page not found" (decision F24).
import { readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import type { BridgeApp } from '../../core/http/typed.ts';

/** The app's routes (apps/portal/src/routes.tsx): the bridge serves index.html for exactly these. */
export const APP_PATHS = [
  '/',
  '/join',
  '/govern',
  '/proposals/:id',
  '/price',
  '/campaigns',
  '/campaigns/:id',
  '/me',
  '/wallet',
  '/admin',
  '/admin/audit',
  '/delegation',
] as const;

export const DEFAULT_PORTAL_DIR = fileURLToPath(new URL('../../../../../apps/portal/dist/', import.meta.url));

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
};

export interface PortalOptions {
  dir: string;
  /** Given the page answering a browser's unknown path: the app's own "page not found" with status 404 (decision F24). */
  exposeNotFound?(send: (reply: FastifyReply) => FastifyReply): void;
  brand: { name: string; primary_color: string; background_color: string; logo_url: string | null };
}

/** `/proposals/:id` → `getAppProposalsById`, `/` → `getAppRoot`: one operationId per app path. */
export function appPageOperationId(path: string): string {
  const cap = (w: string) => w[0]!.toUpperCase() + w.slice(1);
  const words = path
    .split('/')
    .filter(Boolean)
    .map((w) => (w.startsWith(':') ? `By${cap(w.slice(1))}` : cap(w)));
  return `getApp${words.join('') || 'Root'}`;
}

export function portalCsp(logoUrl: string | null): string {
  const logo = logoUrl?.startsWith('https://') ? ` ${new URL(logoUrl).origin}` : '';
  return `default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:${logo}; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`;
}

export default async function portal(app: BridgeApp, o: PortalOptions): Promise<void> {
  let index: string;
  const assets = new Map<string, Buffer>();
  try {
    index = readFileSync(join(o.dir, 'index.html'), 'utf8');
    for (const f of readdirSync(join(o.dir, 'assets'))) assets.set(f, readFileSync(join(o.dir, 'assets', f)));
  } catch {
    // Decision F1: `npm start` and `npm test` build it; a bridge started some other way says how.
    app.log.warn(
      { event: 'portal.not_built', dir: o.dir },
      'the member web app is not built (npm run build:portal); / explains',
    );
    index = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>DOM DAO</title></head><body><h1>DOM DAO</h1><p>The member web app is not built on this server: run <code>npm run build:portal</code> and restart. Meanwhile: <a href="/login">sign in</a>, <a href="/activity">activity</a>.</p></body></html>`;
  }
  const csp = portalCsp(o.brand.logo_url);

  const send = (reply: FastifyReply) =>
    reply
      .type('text/html; charset=utf-8')
      .header('content-security-policy', csp)
      .header('x-frame-options', 'DENY')
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'same-origin')
      // The page names the current assets: always revalidated, so a new build is picked up.
      .header('cache-control', 'no-cache')
      .send(index);
  o.exposeNotFound?.((reply) => send(reply.code(404)));

  for (const path of APP_PATHS) {
    const page = {
      operationId: appPageOperationId(path),
      summary: `The member web app (${path}): index.html of the single-page app (decision F2)`,
      description:
        'Public: the same index.html for every app path; the app then reads the JSON API with the session cookie.',
      tags: ['pages'],
      security: [],
      response: { 200: { description: 'HTML', content: { 'text/html': { schema: { type: 'string' } } } } },
    };
    app.get(path, { schema: page }, async (_req, reply) => send(reply));
  }

  app.get(
    '/assets/:file',
    { schema: { hide: true, params: Type.Object({ file: Type.String() }) } },
    async (req, reply) => {
      const { file } = req.params;
      const body = assets.get(file);
      if (!body) return reply.code(404).send({ error: 'NOT_FOUND', message: `no asset ${file}` });
      return (
        reply
          .type(TYPES[extname(file)] ?? 'application/octet-stream')
          .header('x-content-type-options', 'nosniff')
          // Content-hashed names: a changed file has a new name.
          .header('cache-control', 'public, max-age=31536000, immutable')
          .send(body)
      );
    },
  );

  app.get('/portal/brand.json', { schema: { hide: true } }, async (_req, reply) =>
    reply.header('cache-control', 'public, max-age=300').send(o.brand),
  );
}
