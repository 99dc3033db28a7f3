// Decision D44: small authenticated JSON sends are served by the front door on Node's HTTP objects,
// everything else by Fastify. Every case here is sent both ways, over a real socket (the door) and
// through Fastify (inject), and must get the same status, body, headers and log lines.
import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { describe, it, type TestContext } from 'node:test';
import { Type } from '@sinclair/typebox';
import { defineTemplate } from '../src/templates/template-schema.ts';
import { templates, type TemplateType } from '../src/templates/catalog.ts';
import { BATCH_LIMIT } from '../src/http/front-door.ts';
import { makeService, makeServiceWithProvider, PRODUCT, TEST_TOKEN, validBody } from './harness.ts';

type Service = Pick<Awaited<ReturnType<typeof makeService>>, 'app' | 'logs'> & { close(): Promise<unknown> };

interface Seen {
  status: number;
  body: Record<string, unknown>;
  headers: Record<string, string | undefined>;
  logs: Array<Record<string, unknown>>;
}

const HEADERS = ['content-type', 'connection', 'idempotent-replayed'];

/** Ids, trace ids (decision E16), times and durations differ between two sends; everything else must not. */
function normal(seen: Seen): Seen {
  const id = seen.body.request_id;
  const messageId = seen.body.id;
  const clean = (v: unknown): unknown =>
    v === id ? '<request>' : v === messageId && v !== undefined ? '<message>' : v;
  return {
    ...seen,
    body: Object.fromEntries(Object.entries(seen.body).map(([k, v]) => [k, clean(v)])),
    headers: { ...seen.headers, 'x-request-id': clean(seen.headers['x-request-id']) as string },
    // The stack of a logged error names the door's frames or Fastify's; the error itself must match.
    logs: seen.logs.map((l) =>
      Object.fromEntries(
        Object.entries(l)
          .filter(([k]) => k !== 'time' && k !== 'ms' && k !== 'trace_id')
          .map(([k, v]) => [
            k,
            k === 'original_request_id'
              ? '<original>'
              : k === 'err'
                ? { ...(v as object), stack: undefined }
                : clean(v),
          ]),
      ),
    ),
  };
}

async function both(
  svc: Service,
  body: string,
  headers: Record<string, string> = {},
  headers2 = headers,
): Promise<[Seen, Seen]> {
  const mark = () => svc.logs.lines().length;
  const before = svc.app.frontDoor.served;
  const at0 = mark();
  const { port } = svc.app.server.address() as AddressInfo;
  const real = await fetch(`http://127.0.0.1:${port}/api/v1/send`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_TOKEN}`, 'content-type': 'application/json', ...headers },
    body,
  });
  const realBody = (await real.json()) as Record<string, unknown>;
  assert.equal(svc.app.frontDoor.served, before + 1, 'the door served the socket request');
  const at1 = mark();
  const injected = await svc.app.inject({
    method: 'POST',
    url: '/api/v1/send',
    headers: { authorization: `Bearer ${TEST_TOKEN}`, 'content-type': 'application/json', ...headers2 },
    payload: body,
  });
  assert.equal(svc.app.frontDoor.served, before + 1, 'inject went through Fastify');
  const injectedBody = injected.json() as Record<string, unknown>;
  const logs = svc.logs.lines();
  const pick = (get: (h: string) => string | undefined) =>
    Object.fromEntries(['x-request-id', ...HEADERS].map((h) => [h, get(h)]));
  return [
    normal({
      status: real.status,
      body: realBody,
      headers: pick((h) => real.headers.get(h) ?? undefined),
      logs: logs.slice(at0, at1),
    }),
    normal({
      status: injected.statusCode,
      body: injectedBody,
      headers: pick((h) => injected.headers[h] as string | undefined),
      logs: logs.slice(at1),
    }),
  ];
}

async function listening(t: TestContext, svc: Service) {
  t.after(() => svc.close());
  await svc.app.listen({ port: 0, host: '127.0.0.1' });
  return svc;
}

const s = (v: unknown) => JSON.stringify(v);

describe('decision D44: the front door answers as Fastify does', () => {
  it('every template, valid and invalid envelopes and data, bad and poisoned JSON', async (t) => {
    const svc = await listening(t, await makeService());
    const cases: string[] = [
      ...(Object.keys(templates) as TemplateType[]).map((type) => s(validBody(type))),
      s({
        ...validBody('notification-digest'),
        data: {
          ...validBody('notification-digest').data,
          items: Array.from({ length: 50 }, (_, i) => ({
            title: `Item ${i}`,
            created_at: '2026-11-20',
            deep_link: `https://a.example/${i}`,
          })),
          total_count: 80,
        },
      }),
      s({ ...validBody('welcome'), to: 'not an address' }),
      s({ ...validBody('welcome'), type: 'newsletter' }),
      s(validBody('membership-confirm', { domain: PRODUCT })),
      s(validBody('welcome', { data: { user_name: '' } })),
      s(validBody('welcome', { data: { user_name: 'Ada\u0007', dashboard_url: 'javascript:alert(1)' } })),
      s({ ...validBody('welcome'), attachments: [{ filename: '../x', content: 'QQ==' }] }),
      s({
        ...validBody('welcome'),
        attachments: [{ filename: 'a.pdf', content: 'JVBERg==', content_type: 'application/pdf' }],
      }),
      '{"type": "welcome",',
      '{"__proto__": {"admin": true}, "type": "welcome"}',
      '[]',
      'null',
      '"text"',
      `\ufeff${s(validBody('welcome'))}`,
    ];
    for (const body of cases) {
      const [door, fastify] = await both(svc, body);
      assert.deepEqual(door, fastify, body.slice(0, 120));
    }
  });

  it('idempotency keys: first send, replay, reuse with another body, malformed key', async (t) => {
    const svc = await listening(t, await makeService());
    const a = s(validBody('welcome'));
    const b = s(validBody('welcome', { data: { user_name: 'Grace' } }));
    for (const [body, key] of [
      [a, 'k1'],
      [a, 'k1'],
      [b, 'k1'],
      [a, 'bad key with spaces'],
    ] as const) {
      const [door, fastify] = await both(
        svc,
        body,
        { 'idempotency-key': `door-${key}` },
        { 'idempotency-key': `fastify-${key}` },
      );
      assert.deepEqual(door, fastify, `${key}`);
    }
  });

  it('a caller X-Request-Id is kept, as by Fastify', async (t) => {
    const svc = await listening(t, await makeService());
    const id = '6f1c1b7e-2f0a-4c1e-9a55-0c7f1d2f9e11';
    const [door, fastify] = await both(svc, s(validBody('welcome')), { 'x-request-id': id });
    assert.deepEqual(door, fastify);
  });

  it('render_failed and send_failed', async (t) => {
    const broken = defineTemplate({
      type: 'welcome',
      brands: 'both',
      description: 'throws',
      schema: Type.Object({ user_name: Type.String() }),
      example: { user_name: 'x' },
      render: () => {
        throw new Error('template bug');
      },
    });
    const svc = await listening(t, await makeService({}, { templates: { ...templates, welcome: broken } as never }));
    const [door, fastify] = await both(svc, s(validBody('welcome')));
    assert.equal(door.status, 400);
    assert.deepEqual(door, fastify);
    const p = await makeServiceWithProvider({}, () => ({ status: 422, body: { message: 'rejected' } }));
    await listening(t, p);
    const [door2, fastify2] = await both(p, s(validBody('welcome')));
    assert.equal(door2.status, 500);
    assert.deepEqual(door2, fastify2);
  });

  it('decision D45: a provider that answers at once, throws at once, or hands back a broken answer', async (t) => {
    const stub = { name: 'stub', stub: true };
    // Throwing before any promise: a failed send (500 send_failed), logged, on both paths.
    const throwing = await listening(
      t,
      await makeService(
        {},
        {
          provider: {
            ...stub,
            send: () => {
              throw new Error('socket refused');
            },
          },
        },
      ),
    );
    const [door, fastify] = await both(throwing, s(validBody('welcome')));
    assert.equal(door.status, 500);
    assert.equal(door.body.error, 'send_failed');
    assert.equal(door.logs.find((l) => l.event === 'email.send_failed')?.detail, 'Error: socket refused');
    assert.deepEqual(door, fastify);
    // A bug after delivery (the answer's message id cannot be read): 500 internal_error, as Fastify's handler answers.
    const broken = await listening(
      t,
      await makeService(
        {},
        {
          provider: {
            ...stub,
            send: () => ({
              get messageId(): string {
                throw new Error('bug');
              },
            }),
          },
        },
      ),
    );
    const [door2, fastify2] = await both(broken, s(validBody('welcome')));
    assert.equal(door2.status, 500);
    assert.equal(door2.body.error, 'internal_error');
    assert.deepEqual(door2, fastify2);
    // The same provider answering later, through a promise: the same answers.
    const later = await listening(
      t,
      await makeService({}, { provider: { ...stub, send: () => Promise.resolve({ messageId: 'stub_later' }) } }),
    );
    const [door3, fastify3] = await both(
      later,
      s(validBody('welcome')),
      { 'idempotency-key': 'd45-door' },
      { 'idempotency-key': 'd45-fastify' },
    );
    assert.equal(door3.status, 200);
    assert.deepEqual(door3, fastify3);
    // A provider answering through another promise library (a thenable): delivered, its id answered.
    const thenable = await listening(
      t,
      await makeService(
        {},
        {
          provider: {
            ...stub,
            send: () =>
              ({ then: (ok: (v: { messageId: string }) => void) => ok({ messageId: 'stub_thenable' }) }) as never,
          },
        },
      ),
    );
    const [door4, fastify4] = await both(thenable, s(validBody('welcome')));
    assert.equal(door4.status, 200);
    assert.deepEqual(door4, fastify4);
    // A failure that cannot be answered (the rejection cannot even be turned into text) frees its
    // Idempotency-Key: the retry is tried again, not refused as in progress (409).
    const unprintable = await listening(
      t,
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the point: a rejection that is not an Error
      await makeService({}, { provider: { ...stub, send: () => Promise.reject(Object.create(null)) } }),
    );
    for (const attempt of [1, 2]) {
      const [door5, fastify5] = await both(
        unprintable,
        s(validBody('welcome')),
        { 'idempotency-key': 'd45-unprintable-door' },
        { 'idempotency-key': 'd45-unprintable-fastify' },
      );
      assert.equal(door5.status, 500, `attempt ${attempt}`);
      assert.equal(door5.body.error, 'internal_error', `attempt ${attempt}`);
      assert.deepEqual(door5, fastify5);
    }
  });

  it('what the door leaves to Fastify: wrong token, other content types, a query string, an empty or chunked body', async (t) => {
    const svc = await listening(t, await makeService());
    const { port } = svc.app.server.address() as AddressInfo;
    const before = svc.app.frontDoor.served;
    const url = `http://127.0.0.1:${port}/api/v1/send`;
    const body = s(validBody('welcome'));
    const send = (init: RequestInit & { headers: Record<string, string> }, to = url) =>
      fetch(to, { method: 'POST', ...init }).then(async (r) => [
        r.status,
        ((await r.json()) as { error?: string }).error,
      ]);
    assert.deepEqual(
      await send({
        headers: { authorization: 'Bearer wrong-token-0123456789', 'content-type': 'application/json' },
        body,
      }),
      [401, 'unauthorized'],
    );
    assert.deepEqual(
      await send({ headers: { authorization: `Bearer ${TEST_TOKEN}`, 'content-type': 'text/plain' }, body }),
      [415, 'unsupported_media_type'],
    );
    assert.deepEqual(
      await send({
        headers: { authorization: `Bearer ${TEST_TOKEN}`, 'content-type': 'application/json; charset=utf-8' },
        body,
      }),
      [200, undefined],
    );
    assert.deepEqual(
      await send(
        { headers: { authorization: `Bearer ${TEST_TOKEN}`, 'content-type': 'application/json' }, body },
        `${url}?x=1`,
      ),
      [200, undefined],
    );
    assert.deepEqual(
      await send({ headers: { authorization: `Bearer ${TEST_TOKEN}`, 'content-type': 'application/json' }, body: '' }),
      [400, 'invalid_request'],
    );
    const chunked = new ReadableStream({ start: (c) => (c.enqueue(new TextEncoder().encode(body)), c.close()) });
    assert.deepEqual(
      await send({
        headers: { authorization: `Bearer ${TEST_TOKEN}`, 'content-type': 'application/json' },
        body: chunked,
        duplex: 'half',
      } as never),
      [200, undefined],
    );
    assert.equal(svc.app.frontDoor.served, before);
  });
});

describe('decision D48: the answers of one turn of the event loop are written together', () => {
  /** Keep-alive connections, each warmed by one send, so the server has accepted them all. */
  async function connections(port: number, count: number) {
    const sockets = await Promise.all(
      Array.from(
        { length: count },
        () =>
          new Promise<Socket>((ok, fail) => {
            const c = connect(port, '127.0.0.1', () => ok(c));
            c.once('error', fail);
          }),
      ),
    );
    await Promise.all(sockets.map((c) => (c.write(request()), response(c))));
    return sockets;
  }
  const request = (extra = '') => {
    const body = s(validBody('welcome'));
    return `POST /api/v1/send HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${TEST_TOKEN}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n${extra}\r\n${body}`;
  };
  /** One whole answer off a keep-alive connection: its status and JSON body. */
  const response = (c: Socket) =>
    new Promise<{ status: number; body: Record<string, unknown> }>((ok) => {
      let text = '';
      const onData = (chunk: Buffer) => {
        text += chunk.toString();
        const split = text.indexOf('\r\n\r\n');
        const length = /content-length: (\d+)/i.exec(text)?.[1];
        if (split < 0 || length === undefined || text.length < split + 4 + Number(length)) return;
        c.off('data', onData);
        ok({ status: Number(text.slice(9, 12)), body: JSON.parse(text.slice(split + 4)) as Record<string, unknown> });
      };
      c.on('data', onData);
    });

  it('requests that arrive together are answered in one batch, each with its own answer', async (t) => {
    const svc = await listening(t, await makeService());
    const { port } = svc.app.server.address() as AddressInfo;
    const sockets = await connections(port, 6);
    t.after(() => sockets.forEach((c) => c.destroy()));
    const door = svc.app.frontDoor;
    const [served, batches] = [door.served, door.batches];
    // Written in one synchronous step: the server finds all six in the same poll of the event loop.
    const answers = sockets.map((c) => (c.write(request()), response(c)));
    const seen = await Promise.all(answers);
    assert.deepEqual(
      seen.map((a) => a.status),
      [200, 200, 200, 200, 200, 200],
    );
    assert.equal(new Set(seen.map((a) => a.body.request_id)).size, 6, 'each request has its own answer');
    assert.equal(new Set(seen.map((a) => a.body.id)).size, 6);
    assert.equal(door.served, served + 6);
    assert.equal(door.batches, batches + 1, 'the six answers went out in one batch');
    // The log has one send line per request, each with the request id its answer carries.
    const logged = svc.logs
      .lines()
      .filter((l) => l.event === 'email.stub_send')
      .map((l) => l.request_id);
    for (const a of seen)
      assert.ok(logged.includes(a.body.request_id as string), `${String(a.body.request_id)} logged`);
  });

  it('decision D32: a pipelined request whose body stops arriving after its client left frees its reservation at the read deadline', async (t) => {
    // The provider holds the first answer until the test lets it go: both requests are open by events,
    // not by 100 ms against a 300 ms provider.
    let release!: () => void;
    const held = new Promise<void>((ok) => (release = ok));
    t.after(release);
    const svc = await listening(
      t,
      await makeServiceWithProvider({ BODY_READ_TIMEOUT_MS: '300' }, async (_r, i) => {
        await held;
        return { status: 200, body: { id: `m${i}` } };
      }),
    );
    const { port } = svc.app.server.address() as AddressInfo;
    const c = await new Promise<Socket>((ok) => {
      const s2 = connect(port, '127.0.0.1', () => ok(s2));
    });
    const body = s(validBody('welcome'));
    // The second request waits behind the first (its answer held at the provider) with its body cut short.
    c.write(request() + request().replace(/\r\n\r\n[\s\S]*$/, `\r\n\r\n${body.slice(0, 10)}`));
    /** Polls until `done`; the 30 s are a hang guard (the work is a few ms, the read deadline 300 ms). */
    const until = async (done: () => boolean, what: string) => {
      for (const started = performance.now(); !done(); await new Promise((ok) => setTimeout(ok, 20)))
        assert.ok(performance.now() - started < 30_000, what);
    };
    await until(() => svc.app.frontDoor.open.requests === 2, 'both pipelined requests opened');
    c.destroy();
    release();
    await until(() => svc.app.frontDoor.open.requests === 0, 'the cut-short request was never freed');
    assert.deepEqual(svc.app.frontDoor.open, { requests: 0, bytes: 0 });
  });

  it(`a batch is written once it holds ${BATCH_LIMIT} answers, so the first do not wait for the whole poll`, async (t) => {
    const svc = await listening(t, await makeService());
    const { port } = svc.app.server.address() as AddressInfo;
    const sockets = await connections(port, BATCH_LIMIT + 6);
    t.after(() => sockets.forEach((c) => c.destroy()));
    const batches = svc.app.frontDoor.batches;
    const seen = await Promise.all(sockets.map((c) => (c.write(request()), response(c))));
    assert.ok(seen.every((a) => a.status === 200));
    assert.equal(new Set(seen.map((a) => a.body.request_id)).size, BATCH_LIMIT + 6);
    assert.equal(
      svc.app.frontDoor.batches,
      batches + 2,
      `${BATCH_LIMIT} at once, then the other 6 at the end of the turn`,
    );
  });

  it('a client gone while its answer waits for the batch costs the others nothing and holds nothing', async (t) => {
    const svc = await listening(t, await makeService());
    const { port } = svc.app.server.address() as AddressInfo;
    const sockets = await connections(port, 3);
    t.after(() => sockets.forEach((c) => c.destroy()));
    const [gone, ...staying] = sockets as [Socket, ...Socket[]];
    // The server drops the first connection after its request is handled and before the batch is
    // written: immediates run in the order they were scheduled, and this one is scheduled first.
    let first = true;
    svc.app.server.prependListener('request', (req: IncomingMessage) => {
      if (first) setImmediate(() => req.socket.destroy());
      first = false;
    });
    let received = '';
    gone.on('data', (d: Buffer) => (received += d.toString()));
    const goneClosed = new Promise((ok) => gone.once('close', ok));
    const batches = svc.app.frontDoor.batches;
    gone.write(request());
    const answers = staying.map((c) => (c.write(request()), response(c)));
    assert.deepEqual(
      (await Promise.all(answers)).map((a) => a.status),
      [200, 200],
    );
    await goneClosed;
    assert.equal(received, '', 'nothing is written to the connection that closed');
    assert.equal(svc.app.frontDoor.batches, batches + 1);
    assert.deepEqual(svc.app.frontDoor.open, { requests: 0, bytes: 0 }, 'its reservation is released');
    assert.deepEqual(
      svc.logs.lines().filter((l) => l.level === 'error'),
      [],
    );
    assert.equal((await response((staying[1]!.write(request()), staying[1]!))).status, 200);
  });

  it("a parser error's answer, which closes the connection (D3), still arrives", async (t) => {
    const svc = await listening(t, await makeService());
    const { port } = svc.app.server.address() as AddressInfo;
    const [c] = await connections(port, 1);
    t.after(() => c!.destroy());
    const ended = new Promise((ok) => c!.once('end', ok));
    c!.write(
      `POST /api/v1/send HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${TEST_TOKEN}\r\ncontent-type: application/json\r\ncontent-length: 5\r\n\r\n{"a":`,
    );
    assert.equal((await response(c!)).status, 400);
    await ended;
  });

  // Node's server ends a connection as soon as it reads the client's end of it (it keeps no half-open
  // connections); a request that ends exactly on a 64 KiB read is read together with that end.
  for (const total of [65536, 131072]) {
    it(`a client that ends its side after a ${total}-byte request still gets its answer`, async (t) => {
      const svc = await listening(t, await makeService());
      const { port } = svc.app.server.address() as AddressInfo;
      const base = s(validBody('welcome'));
      const head = (length: number) =>
        `POST /api/v1/send HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${TEST_TOKEN}\r\ncontent-type: application/json\r\ncontent-length: ${length}\r\n\r\n`;
      let body = base + ' '.repeat(total - head(0).length - base.length);
      while (head(body.length).length + body.length > total) body = body.slice(0, -1);
      assert.equal(head(body.length).length + body.length, total);
      const served = svc.app.frontDoor.served;
      const text = await new Promise<string>((ok) => {
        const c = connect({ port, host: '127.0.0.1', allowHalfOpen: true }, () => c.end(head(body.length) + body));
        let seen = '';
        c.on('data', (d: Buffer) => (seen += d.toString()));
        c.on('close', () => ok(seen));
      });
      assert.equal(svc.app.frontDoor.served, served + 1, 'the door served it');
      assert.match(text, /^HTTP\/1\.1 200 /);
    });
  }

  it('a shutdown begun while an answer waits: the answer is given and its connection does not hold close() for the keep-alive timeout (D29, R27)', async (t) => {
    const svc = await makeService();
    await svc.app.listen({ port: 0, host: '127.0.0.1' });
    t.after(() => svc.close());
    const { port } = svc.app.server.address() as AddressInfo;
    const [c] = await connections(port, 1);
    t.after(() => c!.destroy());
    const ended = new Promise<void>((ok) => c!.once('close', () => ok()));
    let closing: Promise<unknown> | undefined;
    svc.app.server.prependListener('request', () =>
      setImmediate(() => {
        closing ??= svc.app.close();
      }),
    );
    const answer = response((c!.write(request()), c!));
    assert.equal((await answer).status, 200);
    // Written before the listener stopped, the answer may keep the connection alive (R27): the server
    // then closes it once it has been quiet for IDLE_CLOSE_MS (3 s, R48), not after 72 s.
    const closed = await Promise.race([
      Promise.all([closing!, ended]).then(() => 'closed'),
      new Promise((ok) => setTimeout(() => ok('still open after 10 s'), 10_000)),
    ]);
    assert.equal(closed, 'closed');
  });
});
