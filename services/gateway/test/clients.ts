// Real HTTP clients for the edge tests (decisions E14, E15), each as its own process where it is one
// in production: Node's own fetch and the project's notification-client in a child Node process,
// curl, Python's urllib, and a raw socket client that sends `Expect: 100-continue` and waits for
// `100 Continue` before sending its body, as .NET's and PHP's clients do.
import { execFile } from 'node:child_process';
import { connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { readFileSync } from 'node:fs';
import { root } from './harness.ts';

export interface ClientAnswer {
  status: number;
  text: string;
}

function run(
  cmd: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      cmd,
      args,
      { cwd: root, env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env }, maxBuffer: 16 << 20 },
      (err, stdout, stderr) => {
        resolve({
          code: err ? Number((err as { code?: unknown }).code ?? 1) || 1 : 0,
          stdout: String(stdout),
          stderr: String(stderr),
        });
      },
    );
  });
}

function lastJsonLine(out: { code: number; stdout: string; stderr: string }, what: string): ClientAnswer {
  const line = out.stdout.trim().split('\n').at(-1) ?? '';
  try {
    return JSON.parse(line) as ClientAnswer;
  } catch {
    throw new Error(`${what} printed no answer (exit ${out.code}):\n${out.stdout}\n${out.stderr}`);
  }
}

/** POST with Node's built-in fetch (undici inside Node), in a Node process of its own. */
export async function nodeFetch(
  url: string,
  headers: Record<string, string>,
  body: string,
  caFile?: string,
): Promise<ClientAnswer> {
  const script = `const r = await fetch(process.env.URL, { method: 'POST', headers: JSON.parse(process.env.HEADERS), body: process.env.BODY });
console.log(JSON.stringify({ status: r.status, text: await r.text() }));`;
  const out = await run(process.execPath, ['--input-type=module', '-e', script], {
    URL: url,
    HEADERS: JSON.stringify(headers),
    BODY: body,
    ...(caFile && { NODE_EXTRA_CA_CERTS: caFile }),
  });
  return lastJsonLine(out, "Node's fetch");
}

/** A send through the project's own client (@domdao/notification-client, global fetch), in a Node process of its own. */
export async function notificationClientSend(
  baseUrl: string,
  token: string,
  request: unknown,
  caFile?: string,
): Promise<Record<string, unknown>> {
  const script = `import { createNotificationClient } from '@domdao/notification-client';
const client = createNotificationClient({ baseUrl: process.env.BASE_URL, token: process.env.TOKEN, logger: { warn: () => undefined } });
console.log(JSON.stringify(await client.send(JSON.parse(process.env.REQUEST))));`;
  const out = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    BASE_URL: baseUrl,
    TOKEN: token,
    REQUEST: JSON.stringify(request),
    ...(caFile && { NODE_EXTRA_CA_CERTS: caFile }),
  });
  const line = out.stdout.trim().split('\n').at(-1) ?? '';
  try {
    return JSON.parse(line) as Record<string, unknown>;
  } catch {
    throw new Error(`notification-client printed no outcome (exit ${out.code}):\n${out.stdout}\n${out.stderr}`);
  }
}

/** POST with Python's urllib.request (python3), an HTTPError's status and body included. */
export async function pythonUrllib(
  url: string,
  headers: Record<string, string>,
  body: string,
  caFile?: string,
): Promise<ClientAnswer> {
  const script = `import json, os, ssl, urllib.request, urllib.error
ctx = ssl.create_default_context(cafile=os.environ['CA_FILE']) if os.environ.get('CA_FILE') else None
req = urllib.request.Request(os.environ['URL'], data=os.environ['BODY'].encode(), headers=json.loads(os.environ['HEADERS']), method='POST')
try:
    with urllib.request.urlopen(req, context=ctx) as r:
        print(json.dumps({'status': r.status, 'text': r.read().decode()}))
except urllib.error.HTTPError as e:
    print(json.dumps({'status': e.code, 'text': e.read().decode()}))`;
  const out = await run('python3', ['-c', script], {
    URL: url,
    HEADERS: JSON.stringify(headers),
    BODY: body,
    ...(caFile && { CA_FILE: caFile }),
  });
  return lastJsonLine(out, "Python's urllib");
}

export interface CurlAnswer extends ClientAnswer {
  /** Interim status codes curl received (100 when the edge answered the expectation). */
  interim: number[];
  /** Whether curl sent `Expect: 100-continue`. */
  expected: boolean;
  /** The final answer's header fields, lowercased names. */
  headers: Record<string, string>;
}

/**
 * POST a file's bytes with curl over HTTP/1.1. curl sends `Expect: 100-continue` by itself for large
 * bodies (over 1 MiB in curl 7.88; 1 KiB in older ones): `expect: false` sends the empty `Expect:`
 * header, curl's documented way to leave it out; `'default'` leaves the choice to curl.
 */
export async function curlPost(
  url: string,
  headers: Record<string, string>,
  file: string,
  opts: { expect: boolean | 'default'; caFile?: string },
): Promise<CurlAnswer> {
  const args = ['-sS', '-v', '--http1.1', '-X', 'POST', '--data-binary', `@${file}`, '-w', '\n%{http_code}'];
  for (const [k, v] of Object.entries(headers)) args.push('-H', `${k}: ${v}`);
  if (opts.expect !== 'default') args.push('-H', opts.expect ? 'Expect: 100-continue' : 'Expect:');
  if (opts.caFile) args.push('--cacert', opts.caFile);
  args.push(url);
  const out = await run('curl', args);
  const cut = out.stdout.lastIndexOf('\n');
  const status = Number(out.stdout.slice(cut + 1));
  if (!status) throw new Error(`curl gave no status (exit ${out.code}):\n${out.stderr}`);
  const interim = [...out.stderr.matchAll(/^< HTTP\/1\.1 (1\d\d)/gm)].map((m) => Number(m[1]));
  // The final answer's header fields: the `< ` lines after its status line.
  const headerLines = out.stderr.slice(out.stderr.lastIndexOf(`< HTTP/1.1 ${status}`)).split('\n');
  const fields: Record<string, string> = {};
  for (const line of headerLines.slice(1)) {
    const m = /^< ([^:\s]+):\s*(.*?)\r?$/.exec(line);
    if (m) fields[m[1]!.toLowerCase()] = m[2]!;
    else if (/^<\s*\r?$/.test(line)) break;
  }
  return {
    status,
    text: out.stdout.slice(0, cut),
    interim,
    expected: /^> Expect: 100-continue/im.test(out.stderr),
    headers: fields,
  };
}

export interface RawAnswer extends ClientAnswer {
  interim: number[];
  /** Whether the body was sent (only after `100 Continue`). */
  bodySent: boolean;
  headers: Record<string, string>;
}

/**
 * A client that sends `Expect: 100-continue` and sends its body only after `100 Continue`, as .NET's
 * HttpClient and PHP's curl do (without their fallback timer: it waits for the edge). It reads the final
 * answer by its Content-Length, so an edge that keeps the connection open after a refusal is no matter.
 */
export function rawExpectPost(
  base: string,
  path: string,
  headers: Record<string, string>,
  body: Buffer | { declaredLength: number },
  caFile?: string,
): Promise<RawAnswer> {
  const u = new URL(base);
  const declared = Buffer.isBuffer(body) ? body.length : body.declaredLength;
  return new Promise((resolve, reject) => {
    const socket: Socket =
      u.protocol === 'https:'
        ? tlsConnect({ host: u.hostname, port: Number(u.port), ca: readFileSync(caFile!), ALPNProtocols: ['http/1.1'] })
        : netConnect({ host: u.hostname, port: Number(u.port) });
    let buf = Buffer.alloc(0);
    const interim: number[] = [];
    let bodySent = false;
    const fail = (e: Error) => {
      socket.destroy();
      reject(e);
    };
    socket.on('error', fail);
    socket.on('close', () =>
      fail(
        new Error(
          `connection closed before a final answer; received ${JSON.stringify(buf.toString('latin1').slice(0, 300))}`,
        ),
      ),
    );
    socket.on('data', (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      for (;;) {
        const end = buf.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = buf.subarray(0, end).toString('latin1').split('\r\n');
        const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head[0]!)?.[1]);
        if (status >= 100 && status < 200) {
          interim.push(status);
          buf = buf.subarray(end + 4);
          if (status === 100 && !bodySent && Buffer.isBuffer(body)) {
            bodySent = true;
            socket.write(body);
          }
          continue;
        }
        const fields: Record<string, string> = {};
        for (const line of head.slice(1)) {
          const i = line.indexOf(':');
          fields[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
        }
        const length = Number(fields['content-length'] ?? 0);
        if (buf.length < end + 4 + length) return;
        socket.removeAllListeners('close');
        socket.destroy();
        resolve({
          status,
          headers: fields,
          text: buf.subarray(end + 4, end + 4 + length).toString('utf8'),
          interim,
          bodySent,
        });
        return;
      }
    });
    const lines = [
      `POST ${path} HTTP/1.1`,
      `Host: ${u.host}`,
      ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
      `Content-Length: ${declared}`,
      'Expect: 100-continue',
      '',
      '',
    ];
    socket.write(lines.join('\r\n'));
  });
}
