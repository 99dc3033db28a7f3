// Minimal HTML pages the bridge serves itself (the login page, verification results).
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** Content-Security-Policy of the bridge's own pages: inline style and script only, fetches to itself. */
export const PAGE_CSP = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'";

export function page(title: string, body: string, script = ''): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(title)} · DOM DAO</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:28rem;margin:4rem auto;padding:0 1rem;color:#1f2937}h1{font-size:1.4rem}label{display:block;margin:.75rem 0 .25rem}input{width:100%;padding:.5rem;font:inherit;box-sizing:border-box}button{margin-top:1rem;padding:.6rem 1.2rem;font:inherit;background:#4338ca;color:#fff;border:0;border-radius:.3rem}#error{color:#b91c1c;min-height:1.5rem}</style></head>
<body><h1>${escapeHtml(title)}</h1>${body}${script}</body></html>`;
}
