// Keep-alive clients for the shutdown tests (decision R27): Node's fetch (undici, its global agent
// keeps connections alive) and curl (one process sends a batch of requests over one connection).
// Every request ends in one of three ways: a complete HTTP answer, a refused connection (the request
// was never sent: the server had stopped listening), or anything else, counted as a reset (ECONNRESET,
// "other side closed", curl's 52 empty reply and 56 receive failure): the client cannot tell whether
// it was acted on. A curl reset carries its connection's local port: the service's drain.closed line
// names every connection it served, so a reset on one it never accepted can be told apart (R55).
import { spawn } from 'node:child_process';

export interface LoadRequest {
  method: 'GET' | 'POST';
  url: string;
  headers?: Record<string, string>;
  body?: string;
  /** For a POST that changes state: the id to find it by once acknowledged (2xx). */
  tag?: string;
}

export type Outcome =
  { kind: 'answered'; status: number } | { kind: 'refused' } | { kind: 'reset'; detail: string; localPort?: number };

export interface Tally {
  sent: number;
  answered: number;
  refused: number;
  resets: Array<{
    request: string;
    url: string;
    detail: string;
    msAfterSignal: number | null;
    /** The connection's local port, where the client tells it (curl): what the server saw as the peer's. */
    localPort?: number;
    /** The request's tag (a POST's id), to check that a reset one was not applied. */
    tag?: string;
  }>;
  statuses: Record<number, number>;
  /** Tags of POSTs answered 2xx. */
  acknowledged: string[];
}

export function newTally(): Tally {
  return { sent: 0, answered: 0, refused: 0, resets: [], statuses: {}, acknowledged: [] };
}

/** Where a run stands: the signal's time, once sent. */
export interface RunState {
  signalledAt: number | undefined;
}

function record(tally: Tally, state: RunState, request: LoadRequest, outcome: Outcome): void {
  tally.sent++;
  if (outcome.kind === 'refused') tally.refused++;
  else if (outcome.kind === 'reset')
    tally.resets.push({
      request: `${request.method} ${request.url}`,
      url: request.url,
      detail: outcome.detail,
      msAfterSignal: state.signalledAt === undefined ? null : Date.now() - state.signalledAt,
      ...(outcome.localPort === undefined ? {} : { localPort: outcome.localPort }),
      ...(request.tag === undefined ? {} : { tag: request.tag }),
    });
  else {
    tally.answered++;
    tally.statuses[outcome.status] = (tally.statuses[outcome.status] ?? 0) + 1;
    if (request.tag !== undefined && outcome.status >= 200 && outcome.status < 300)
      tally.acknowledged.push(request.tag);
  }
}

/** The codes of an error and its causes, outermost first. */
function codes(e: unknown): string[] {
  const found: string[] = [];
  for (let c: unknown = e; c && found.length < 5; c = (c as { cause?: unknown }).cause) {
    const { code, message } = c as { code?: unknown; message?: unknown };
    found.push(typeof code === 'string' ? code : typeof message === 'string' ? message : typeof c);
  }
  return found;
}

async function fetchOnce(request: LoadRequest): Promise<Outcome> {
  try {
    const res = await fetch(request.url, { method: request.method, headers: request.headers, body: request.body });
    await res.arrayBuffer();
    return { kind: 'answered', status: res.status };
  } catch (e) {
    const found = codes(e);
    return found.includes('ECONNREFUSED') ? { kind: 'refused' } : { kind: 'reset', detail: found.join(' / ') };
  }
}

/** Sends `next()`'s requests one after another with Node's fetch until a connection is refused. */
export async function fetchLoop(next: () => LoadRequest, tally: Tally, state: RunState): Promise<void> {
  for (;;) {
    const request = next();
    const outcome = await fetchOnce(request);
    record(tally, state, request, outcome);
    if (outcome.kind === 'refused') return;
  }
}

/** A value in a curl config file: quoted, with `"` and `\` escaped. */
const quoted = (value: string) => `"${value.replace(/[\\"]/g, (c) => `\\${c}`)}"`;

/** One curl process sending `requests` in order (one connection, reused: curl keeps it alive between URLs). */
async function curlBatch(requests: LoadRequest[]): Promise<Outcome[]> {
  const config = requests
    .map((r) =>
      [
        `url = ${quoted(r.url)}`,
        `request = ${r.method}`,
        'output = "/dev/null"',
        'silent',
        // One line per transfer: the status (000 when none came), curl's exit code for it and its local port.
        `write-out = "%{http_code} %{exitcode} %{local_port}\\n"`,
        'max-time = 30',
        ...Object.entries(r.headers ?? {}).map(([k, v]) => `header = ${quoted(`${k}: ${v}`)}`),
        ...(r.body === undefined ? [] : [`data-binary = ${quoted(r.body)}`]),
      ].join('\n'),
    )
    .join('\nnext\n');
  const child = spawn('curl', ['--config', '-'], { stdio: ['pipe', 'pipe', 'ignore'] });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stdin.end(config);
  await new Promise((resolve) => child.once('close', resolve));
  const lines = out.split('\n').filter((l) => l !== '');
  return requests.map((_, i) => {
    const [status, exit, port] = (lines[i] ?? '000 -1 0').split(' ').map(Number) as [number, number, number];
    if (exit === 0 && status > 0) return { kind: 'answered', status };
    // 7: could not connect (refused), so nothing was sent.
    if (exit === 7) return { kind: 'refused' };
    return {
      kind: 'reset',
      detail: `curl exit ${exit} (transfer ${i + 1} of ${requests.length})`,
      ...(port > 0 ? { localPort: port } : {}),
    };
  });
}

/** Runs curl processes one after another, `batch` requests each, until a connection is refused. */
export async function curlLoop(next: () => LoadRequest, batch: number, tally: Tally, state: RunState): Promise<void> {
  for (;;) {
    const requests = Array.from({ length: batch }, next);
    const outcomes = await curlBatch(requests);
    let refused = false;
    outcomes.forEach((outcome, i) => {
      record(tally, state, requests[i]!, outcome);
      refused ||= outcome.kind === 'refused';
    });
    if (refused) return;
  }
}
