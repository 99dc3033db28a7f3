// Minimal HTML pages the bridge serves itself (the login page, verification results).
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** Content-Security-Policy of the bridge's own pages: inline style and script only, fetches to itself. */
export const PAGE_CSP =
  "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'";

/**
 * The bridge's own pages (login, verification, password reset, activity, preferences, unsubscribe)
 * look like the member web app (decision F4): its header, colours and card, with a link home.
 */
export function page(title: string, body: string, script = ''): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(title)} · DOM DAO</title>
<style>body{font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;color:#1f2937;background:#f4f4f7}header{background:#fff;border-bottom:3px solid #4338ca;padding:.75rem 1.25rem}header a{font-weight:700;font-size:1.15rem;color:#1f2937;text-decoration:none}main{max-width:28rem;margin:2rem auto;padding:1rem 1.25rem 1.5rem;background:#fff;border:1px solid #d1d5db;border-radius:.5rem}a{color:#4338ca}h1{font-size:1.4rem;margin:.25rem 0 1rem}label{display:block;margin:.75rem 0 .25rem;font-weight:600}input,select{width:100%;padding:.5rem .6rem;font:inherit;box-sizing:border-box;border:1px solid #9ca3af;border-radius:.3rem}input[type=checkbox]{width:auto}button{margin-top:1rem;padding:.6rem 1.2rem;font:inherit;font-weight:600;background:#4338ca;color:#fff;border:0;border-radius:.3rem;cursor:pointer}#error{color:#b91c1c;min-height:1.5rem}@media (max-width:480px){main{margin:1rem .75rem}}</style></head>
<body><header><a href="/">DOM DAO</a></header><main><h1>${escapeHtml(title)}</h1>${body}</main>${script}</body></html>`;
}
