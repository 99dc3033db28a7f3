// One way to call the bridge: JSON with the session cookie; a non-2xx answer becomes an ApiError
// carrying the bridge's `error` code and message (shown to the member as they are). Served by the
// bridge the calls are same-origin; hosted on another subdomain (decision F11) index.html names the
// bridge and the calls carry credentials across origins (the bridge's CORS, decision B45).
import { withoutBidiControls } from '@domdao/canister-kit/bidi';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import type { operations } from './bridge-api.ts';

type JsonOf<R> = R extends { content: { 'application/json': infer J } } ? J : never;
type Success<R> = R extends { 200: infer A }
  ? A
  : R extends { 201: infer A }
    ? A
    : R extends { 202: infer A }
      ? A
      : never;
/** The JSON of an operation's success answer (200, 201 or 202), by operationId: generated from the
 *  bridge's OpenAPI document (bridge-api.ts, `npm run types:portal`; decision F12), never typed here. */
export type Answer<Op extends keyof operations> = JsonOf<Success<operations[Op]['responses']>>;

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** A 429's Retry-After in seconds, when the answer said (decision B107's faucet, the per-member limits). */
    readonly retryAfter?: number,
  ) {
    super(message);
  }
}

/** The bridge's origin from index.html's <meta name="domdao-bridge">; '' when the bridge serves the app. */
export const BRIDGE = (document.querySelector('meta[name="domdao-bridge"]')?.getAttribute('content') ?? '').replace(
  /\/+$/,
  '',
);

/** A URL on the bridge (its API and its own pages: login, activity, preferences). */
export const bridgeUrl = (path: string): string => `${BRIDGE}${path}`;

/** An event handler running an async action. Preact ignores a handler's promise, so a failure the action
 *  does not handle itself is reported on the console, never left an unhandled rejection (decision R19). */
export function handler<E>(action: (e: E) => Promise<unknown>): (e: E) => void {
  return (e) => void action(e).catch((err: unknown) => console.error(err));
}

export async function api<T>(
  path: string,
  init: { method?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json', ...init.headers };
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  let r: Response;
  try {
    // no-cache: revalidate (ETag → 304) so a page shows what the member just changed.
    r = await fetch(bridgeUrl(path), {
      method: init.method ?? 'GET',
      credentials: BRIDGE ? 'include' : 'same-origin',
      cache: 'no-cache',
      headers,
      ...(init.body !== undefined && { body: JSON.stringify(init.body) }),
    });
  } catch {
    throw new ApiError(0, 'NETWORK', 'The DOM DAO server could not be reached. Check your connection and try again.');
  }
  const text = await r.text();
  let data: unknown;
  try {
    // Decision F41: no bidi control in any answer reaches the page (titles, bodies, reasons, names,
    // activity…), so member-written text cannot reorder what is shown, wherever a page puts it.
    data = text
      ? JSON.parse(text, (_key, value: unknown) => (typeof value === 'string' ? withoutBidiControls(value) : value))
      : undefined;
  } catch {
    data = undefined;
  }
  if (!r.ok) {
    const d = (data ?? {}) as { error?: string; message?: string };
    const wait = Number(r.headers.get('retry-after') ?? NaN);
    throw new ApiError(
      r.status,
      d.error ?? `HTTP_${r.status}`,
      d.message ?? (r.statusText || 'The request failed.'),
      Number.isFinite(wait) && wait > 0 ? wait : undefined,
    );
  }
  return data as T;
}

export interface Loaded<T> {
  data: T | undefined;
  error: ApiError | undefined;
  loading: boolean;
  reload(): void;
}

/** GETs `path` (null: nothing yet) and reloads when it changes. */
export function useApi<T>(path: string | null): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: ApiError; loading: boolean }>({ loading: path !== null });
  const [n, setN] = useState(0);
  useEffect(() => {
    if (path === null) return;
    let live = true;
    setState((s) => ({ ...s, loading: true }));
    api<T>(path).then(
      (data) => live && setState({ data, loading: false }),
      (error: unknown) =>
        live &&
        setState({
          error: error instanceof ApiError ? error : new ApiError(0, 'ERROR', String(error)),
          loading: false,
        }),
    );
    return () => {
      live = false;
    };
  }, [path, n]);
  const reload = useCallback(() => setN((x) => x + 1), []);
  return { data: state.data, error: state.error, loading: state.loading, reload };
}

export const E8S = 100_000_000n;

/** e8s (a decimal string) as DOM: "1250000000" → "12.5". */
export function dom(e8s: string | bigint): string {
  const n = BigInt(e8s);
  const neg = n < 0n;
  const a = neg ? -n : n;
  const frac = String(a % E8S)
    .padStart(8, '0')
    .replace(/0+$/, '');
  return `${neg ? '-' : ''}${(a / E8S).toLocaleString('en-US')}${frac ? `.${frac}` : ''}`;
}

/** "12.5" DOM → e8s string, or undefined when it is not a positive amount with at most 8 decimals. */
export function toE8s(text: string): string | undefined {
  const m = /^\s*(\d{1,12})(?:\.(\d{1,8}))?\s*$/.exec(text);
  if (!m) return undefined;
  const v = BigInt(m[1]!) * E8S + BigInt((m[2] ?? '').padEnd(8, '0') || '0');
  return v > 0n ? String(v) : undefined;
}

/** A wait in seconds in words: "3 h 12 min", "12 min", "40 s". */
export function waitText(seconds: number): string {
  if (seconds < 60) return `${Math.ceil(seconds)} s`;
  const min = Math.ceil(seconds / 60);
  return min < 60 ? `${min} min` : `${Math.floor(min / 60)} h${min % 60 ? ` ${min % 60} min` : ''}`;
}

export const usd = (n: number) =>
  n.toLocaleString('en-US', { style: 'currency', currency: 'USD', maximumFractionDigits: n < 1 ? 6 : 2 });
/** "29 Nov 2026, 07:02 UTC": the admin console's one zone for every admin (F34); member pages say local time (F63). */
export const utcTime = (iso: string) =>
  new Date(iso).toLocaleString('en-GB', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' }) + ' UTC';

/**
 * Decision V32: calls `onChange` when a proposal changes (a vote, voting opened, tallied, executed…),
 * from the bridge's server-sent events; `proposalId` keeps one proposal's. A burst of events is one
 * call (300 ms). The stream replays nothing, so after a reconnection the view is read again too.
 */
export function useLive(proposalId: string | null | undefined, onChange: () => void): void {
  const latest = useRef(onChange);
  latest.current = onChange;
  useEffect(() => {
    if (proposalId === null || typeof EventSource === 'undefined') return;
    const qs = proposalId === undefined ? '' : `?proposal_id=${encodeURIComponent(proposalId)}`;
    const source = new EventSource(bridgeUrl(`/api/governance/live${qs}`), { withCredentials: !!BRIDGE });
    let timer: ReturnType<typeof setTimeout> | undefined;
    const soon = () => {
      clearTimeout(timer);
      timer = setTimeout(() => latest.current(), 300);
    };
    let opened = false;
    source.onopen = () => {
      if (opened) soon();
      opened = true;
    };
    source.addEventListener('proposal', soon);
    return () => {
      clearTimeout(timer);
      source.close();
    };
  }, [proposalId]);
}
