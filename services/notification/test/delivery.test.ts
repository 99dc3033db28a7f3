// Spec 3 send flow step 6, "Stub mode", 500 send_failed, 400 render_failed, email.* log events.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Type } from '@sinclair/typebox';
import { freePort, startSmtpSink, type SmtpSink } from '@domdao/test-helpers';
import { templates } from '../src/templates/catalog.ts';
import { defineTemplate } from '../src/templates/template-schema.ts';
import { makeService, makeServiceWithProvider, validBody } from './harness.ts';

describe('stub mode (EMAIL_PROVIDER_API_KEY unset)', () => {
  let svc: Awaited<ReturnType<typeof makeService>>;
  before(async () => (svc = await makeService()));
  after(() => svc.close());

  it('answers 200 with a stub_ id, status sent, stubbed true and request_id', async () => {
    const res = await svc.send(validBody('welcome'));
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.deepEqual(Object.keys(body).sort(), ['id', 'request_id', 'status', 'stubbed']);
    assert.match(body.id, /^stub_[0-9a-f-]{36}$/);
    assert.equal(body.status, 'sent');
    assert.equal(body.stubbed, true);
  });
  it('logs email.stub_send once per send, with the attachment names but never their content; no email.sent (decision D28)', async () => {
    const secret = Buffer.from('TOP-SECRET-ATTACHMENT-BYTES').toString('base64');
    const res = await svc.send({
      ...validBody('event-reminder'),
      attachments: [{ filename: 'notes.txt', content: secret }],
    });
    const id = res.json().request_id;
    assert.equal(svc.logs.events('email.stub_send').filter((e) => e.request_id === id).length, 1);
    assert.equal(svc.logs.events('email.sent').filter((e) => e.request_id === id).length, 0);
    const sent = svc.logs.events('email.stub_send').find((e) => e.request_id === id)!;
    assert.equal(sent.level, 'info');
    assert.equal(sent.message_id, res.json().id);
    assert.equal(sent.attachment_count, 2);
    assert.deepEqual(sent.attachment_filenames, ['event.ics', 'notes.txt']);
    assert.ok(!svc.logs.raw.includes(secret));
    assert.ok(!svc.logs.raw.includes('TOP-SECRET'));
  });
});

describe('HTTP API provider (Resend-compatible)', () => {
  it('POSTs /emails with the key, an Idempotency-Key, and the rendered message; returns the provider id', async (t) => {
    const p = await makeServiceWithProvider({}, () => ({ status: 200, body: { id: 'b8f3c1a0-provider-id' } }));
    t.after(() => p.close());
    const res = await p.send({
      ...validBody('notification-digest'),
      attachments: [{ filename: 'a.csv', content: 'YSxiCg==', content_type: 'text/csv' }],
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), {
      id: 'b8f3c1a0-provider-id',
      status: 'sent',
      stubbed: false,
      request_id: res.json().request_id,
    });
    const call = p.provider.requests[0]!;
    assert.equal(call.method, 'POST');
    assert.equal(call.url, '/emails');
    assert.equal(call.headers.authorization, 'Bearer re_test_key');
    assert.equal(call.headers['idempotency-key'], res.json().request_id);
    const m = call.json();
    assert.deepEqual(m.to, ['ada@example.com']);
    assert.equal(m.from, '"DOM DAO" <notifications@domdao.example>');
    assert.deepEqual(m.attachments, [{ filename: 'a.csv', content: 'YSxiCg==', content_type: 'text/csv' }]);
    assert.equal(m.headers['List-Unsubscribe-Post'], 'List-Unsubscribe=One-Click');
    assert.equal(p.logs.events('email.stub_send').length, 0);
    const sent = p.logs.events('email.sent').find((e) => e.request_id === res.json().request_id)!;
    assert.equal(sent.level, 'info');
    assert.equal(sent.message_id, 'b8f3c1a0-provider-id');
    assert.equal(sent.attachment_count, 1);
    assert.deepEqual(sent.attachment_filenames, ['a.csv']);
  });

  it('omits content_type when the caller did (the provider infers it from the extension)', async (t) => {
    const p = await makeServiceWithProvider();
    t.after(() => p.close());
    await p.send({ ...validBody('welcome'), attachments: [{ filename: 'a.pdf', content: 'JVBERg==' }] });
    assert.deepEqual(p.sent().attachments, [{ filename: 'a.pdf', content: 'JVBERg==' }]);
  });

  it('retries a 429, honouring Retry-After, and then succeeds', async (t) => {
    const p = await makeServiceWithProvider({}, (_r, i) =>
      i === 0
        ? { status: 429, headers: { 'retry-after': '1' }, body: { message: 'slow down' } }
        : { status: 200, body: { id: 'after-retry' } },
    );
    t.after(() => p.close());
    const res = await p.send(validBody('welcome'));
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().id, 'after-retry');
    assert.equal(p.provider.requests.length, 2);
    assert.ok(p.provider.requests[1]!.at - p.provider.requests[0]!.at >= 950, 'waited the Retry-After second');
    assert.equal(
      p.provider.requests[0]!.headers['idempotency-key'],
      p.provider.requests[1]!.headers['idempotency-key'],
      'same key on the retry',
    );
    assert.equal(p.logs.events('email.provider_retry').length, 1);
  });

  it('gives up on endless 429s within the attempt bound → 500 send_failed', async (t) => {
    const p = await makeServiceWithProvider({ PROVIDER_MAX_ATTEMPTS: '3' }, () => ({
      status: 429,
      headers: { 'retry-after': '0' },
    }));
    t.after(() => p.close());
    const res = await p.send(validBody('welcome'));
    assert.equal(res.statusCode, 500);
    assert.equal(p.provider.requests.length, 3);
  });

  it('does not wait for a Retry-After beyond the retry budget → 500 send_failed at once', async (t) => {
    const p = await makeServiceWithProvider({ PROVIDER_RETRY_BUDGET_MS: '2000' }, () => ({
      status: 429,
      headers: { 'retry-after': '120' },
    }));
    t.after(() => p.close());
    const started = Date.now();
    const res = await p.send(validBody('welcome'));
    assert.equal(res.statusCode, 500);
    // Not a speed bound: waiting for the Retry-After would take 120 s.
    assert.ok(Date.now() - started < 60_000);
    assert.equal(p.provider.requests.length, 1);
  });

  it('a provider rejection is 500 send_failed with no details; the reason is only in the server log', async (t) => {
    const p = await makeServiceWithProvider({}, () => ({
      status: 422,
      body: { name: 'validation_error', message: 'The to address is on the suppression list' },
    }));
    t.after(() => p.close());
    const res = await p.send(validBody('welcome'));
    assert.equal(res.statusCode, 500);
    assert.deepEqual(Object.keys(res.json()).sort(), ['error', 'request_id']);
    assert.equal(res.json().error, 'send_failed');
    assert.equal(p.provider.requests.length, 1, 'hard rejections are not retried');
    const logged = p.logs.events('email.send_failed').find((e) => e.request_id === res.json().request_id)!;
    assert.equal(logged.level, 'error');
    assert.equal(logged.provider_status, 422);
    assert.match(String(logged.detail), /suppression list/);
    assert.ok(!p.logs.raw.includes('re_test_key'), 'the provider key is never logged');
  });

  for (const [why, responder] of [
    ['a 500', () => ({ status: 500, body: 'internal' })],
    ['a 200 without a message id', () => ({ status: 200, body: { ok: true } })],
    ['a 200 with a non-JSON body', () => ({ status: 200, body: '<html>' })],
  ] as const) {
    it(`${why} from the provider is 500 send_failed`, async (t) => {
      const p = await makeServiceWithProvider({}, responder);
      t.after(() => p.close());
      assert.equal((await p.send(validBody('welcome'))).statusCode, 500);
    });
  }

  it('a provider that does not answer within PROVIDER_TIMEOUT_MS is 500 send_failed', async (t) => {
    const p = await makeServiceWithProvider({ PROVIDER_TIMEOUT_MS: '300' }, () => ({
      status: 200,
      body: { id: 'late' },
      delayMs: 2000,
    }));
    t.after(() => p.close());
    assert.equal((await p.send(validBody('welcome'))).statusCode, 500);
    // The timeout ended it, not the provider's late 200 (which would have answered 200): no speed bound needed.
    assert.match(String(p.logs.events('email.send_failed')[0]?.detail), /TimeoutError/);
  });

  it('an unreachable provider is 500 send_failed', async (t) => {
    // A port nothing listens on, and no other process of the run is handed (decision R26).
    const port = await freePort();
    const svc = await makeService({ EMAIL_PROVIDER_API_KEY: 'k', EMAIL_PROVIDER_API_URL: `http://127.0.0.1:${port}` });
    t.after(() => svc.close());
    assert.equal((await svc.send(validBody('welcome'))).statusCode, 500);
  });
});

describe('SMTP provider (a real SMTP server, parsed MIME)', () => {
  let sink: SmtpSink;
  let svc: Awaited<ReturnType<typeof makeService>>;
  before(async () => {
    sink = await startSmtpSink({ user: 'relay-user', password: 'relay-pass' });
    svc = await makeService({
      EMAIL_PROVIDER: 'smtp',
      EMAIL_PROVIDER_API_KEY: 'relay-pass',
      SMTP_USER: 'relay-user',
      SMTP_HOST: '127.0.0.1',
      SMTP_PORT: String(sink.port),
      SMTP_REQUIRE_TLS: 'false',
      PROVIDER_TIMEOUT_MS: '3000',
    });
  });
  after(async () => {
    await sink.close();
  });

  it('delivers a multipart message: From, To, Subject, text and HTML parts, stubbed false', async () => {
    const res = await svc.send(validBody('welcome', { data: { user_name: 'Zoë Ünïcode' } }));
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().stubbed, false);
    const mail = sink.received.at(-1)!;
    assert.equal(mail.from, 'notifications@domdao.example');
    assert.deepEqual(mail.to, ['ada@example.com']);
    assert.equal(mail.parsed.from?.value[0]?.name, 'DOM DAO');
    assert.equal(mail.parsed.subject, 'Welcome to DOM DAO, Zoë Ünïcode');
    assert.match(String(mail.parsed.html), /Welcome, Zoë Ünïcode!/);
    assert.match(String(mail.parsed.text), /Welcome, Zoë Ünïcode!/);
    assert.equal(res.json().id, mail.parsed.messageId);
  });

  it('carries List-Unsubscribe, List-Unsubscribe-Post and List-Id headers for the digest', async () => {
    await svc.send(validBody('notification-digest'));
    const head = sink.received
      .at(-1)!
      .raw.split('\r\n\r\n')[0]!
      .replace(/\r\n[ \t]+/g, ' ');
    assert.match(head, /^List-Unsubscribe: <https:\/\/domdao\.example\/unsubscribe\?token=eyJ1IjoiNDIifQ\.c2ln>$/im);
    assert.match(head, /^List-Unsubscribe-Post: List-Unsubscribe=One-Click$/im);
    assert.match(head, /^List-Id: <weekly-digest\.domdao\.example>$/im);
  });

  it('attaches the calendar part first, then caller files, with their names and types', async () => {
    const pdf = Buffer.from('%PDF-1.7 agenda');
    await svc.send({
      ...validBody('event-reminder'),
      attachments: [{ filename: 'agenda.pdf', content: pdf.toString('base64'), content_type: 'application/pdf' }],
    });
    const atts = sink.received.at(-1)!.parsed.attachments;
    assert.deepEqual(
      atts.map((a) => a.filename),
      ['event.ics', 'agenda.pdf'],
    );
    assert.equal(atts[0]!.contentType, 'text/calendar');
    assert.match(atts[0]!.content.toString('utf8'), /BEGIN:VEVENT\r\nUID:townhall-2026-11@domdao\.example/);
    assert.equal(atts[1]!.contentType, 'application/pdf');
    assert.deepEqual(atts[1]!.content, pdf);
  });

  it('retries a transient 451 and succeeds', async () => {
    sink.failNext(1, 451, 'greylisted, try again');
    const before = sink.received.length;
    const res = await svc.send(validBody('welcome'));
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(sink.received.length, before + 1);
    assert.ok(svc.logs.events('email.provider_retry').length >= 1);
  });

  it('a permanent 550 is 500 send_failed', async () => {
    sink.failNext(1, 550, 'mailbox unavailable');
    const res = await svc.send(validBody('welcome'));
    assert.equal(res.statusCode, 500);
    assert.equal(res.json().error, 'send_failed');
  });

  it('wrong SMTP credentials are 500 send_failed', async (t) => {
    const bad = await makeService({
      EMAIL_PROVIDER: 'smtp',
      EMAIL_PROVIDER_API_KEY: 'wrong',
      SMTP_USER: 'relay-user',
      SMTP_HOST: '127.0.0.1',
      SMTP_PORT: String(sink.port),
      SMTP_REQUIRE_TLS: 'false',
      PROVIDER_MAX_ATTEMPTS: '1',
    });
    t.after(() => bad.close());
    assert.equal((await bad.send(validBody('welcome'))).statusCode, 500);
  });
});

describe('render_failed (a template that throws)', () => {
  it('is 400 render_failed with no message, and the error is logged server-side', async (t) => {
    const broken = defineTemplate({
      type: 'welcome',
      brands: 'both',
      description: 'throws',
      schema: Type.Object({ user_name: Type.String() }),
      example: { user_name: 'x' },
      render: () => {
        throw new Error('template bug: cannot read properties of undefined');
      },
    });
    const svc = await makeService({}, { templates: { ...templates, welcome: broken } as never });
    t.after(() => svc.close());
    const res = await svc.send(validBody('welcome'));
    assert.equal(res.statusCode, 400);
    assert.deepEqual(Object.keys(res.json()).sort(), ['error', 'request_id']);
    assert.equal(res.json().error, 'render_failed');
    assert.ok(!res.body.includes('template bug'));
    const logged = svc.logs.events('email.render_failed').find((e) => e.request_id === res.json().request_id)!;
    assert.match(JSON.stringify(logged.err), /template bug/);
  });
});
