// Decisions B36–B38 through HTTP: registration refuses or normalises what the notification service would
// refuse (decision B36); a stranded user gets a new verification link (B38) and can reset a forgotten
// password (B37), with the same answer whether or not the address exists, within the email limits (B33).
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { BACKENDS, bridge, type Bridge } from './harness.ts';

const NEW_PASSWORD = 'a brand new passphrase 2026';

async function waitFor<T>(what: string, probe: () => T | undefined, ms = 5000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = probe();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const mailsTo = (h: Bridge, to: string, subject: RegExp) =>
  h.emails().filter((m) => m.to.includes(to) && subject.test(m.subject));
const resetToken = (text: string) => /\/reset-password\?token=([A-Za-z0-9_-]{43})/.exec(text)?.[1];
const strip = (b: Record<string, unknown>) => ({ ...b, request_id: undefined });

describe('registration accepts only what can be mailed (decision B36)', () => {
  it('decision B36: an address with surrounding spaces is trimmed and mailed; names with CR/LF, NUL or other controls are refused', async (t) => {
    const h = await bridge();
    t.after(() => h.close());
    const spaced = await h.register('  spaced@example.org ');
    assert.equal(spaced.statusCode, 201, spaced.body);
    assert.equal(spaced.json().verification_email_sent, true, 'the notification service accepted the trimmed address');
    assert.ok(h.verificationPath('spaced@example.org'));
    for (const name of [
      'Ada\r\nBcc: victim@example.org',
      'Ada\u0000Lovelace',
      'Ada\u0085',
      'Ada\u2028Lovelace',
      '   ',
      'x'.repeat(201),
    ]) {
      const r = await h.register(`n${name.length}${name.charCodeAt(3)}@example.org`, { name });
      assert.equal(r.statusCode, 400, JSON.stringify(name));
      assert.equal(r.json().error, 'VALIDATION_ERROR');
    }
    assert.equal(
      (await h.opened.db.selectFrom('users').select('id').execute()).length,
      1,
      'nothing stored for a refused name',
    );
  });
});

for (const backend of BACKENDS.slice(0, 2)) {
  const where = `${backend.db}, sessions in ${backend.sessions}`;

  describe(`resend-verification on ${where} (decision B38)`, () => {
    it('decision B38: a user whose verification email failed gets a new link; the answer is the same for unknown and verified addresses', async (t) => {
      const h = await bridge(backend);
      t.after(() => h.close());
      h.provider.respond(() => ({ status: 500, body: { message: 'provider down' } }));
      const r = await h.register('stranded@example.org');
      assert.equal(r.json().verification_email_sent, false);
      h.provider.respond((_req, i) => ({ status: 200, body: { id: `msg_${i + 1}` } }));
      const before = h.emails().length;
      const resend = (email: string, origin?: string) =>
        h.request({
          method: 'POST',
          url: '/api/auth/resend-verification',
          payload: { email },
          ...(origin && { origin }),
        });
      const known = await resend('Stranded@Example.org');
      assert.equal(known.statusCode, 202, known.body);
      await waitFor('the new verification email', () => (h.emails().length > before ? true : undefined));
      const v = await h.verify('stranded@example.org');
      assert.equal(v.statusCode, 200, 'the new link verifies');
      assert.equal((await h.login('stranded@example.org')).res.statusCode, 200);
      const unknown = await resend('nobody@example.org');
      const verified = await resend('stranded@example.org');
      assert.equal(unknown.statusCode, 202);
      assert.deepEqual(strip(unknown.json()), strip(known.json()), 'unknown address: same answer');
      assert.deepEqual(strip(verified.json()), strip(known.json()), 'verified address: same answer');
      await new Promise((res) => setTimeout(res, 200));
      // The welcome email follows the verification (decision N13); nothing else is sent.
      assert.equal(
        h.emails().filter((m) => !/^Welcome/.test(m.subject)).length,
        before + 1,
        'nothing sent for an unknown or verified address',
      );
      assert.equal(
        (await resend('stranded@example.org', 'https://evil.example')).statusCode,
        403,
        'cross-site rule (decision B8)',
      );
      assert.equal(
        (await h.request({ method: 'POST', url: '/api/auth/resend-verification', payload: {} })).json().error,
        'VALIDATION_ERROR',
      );
    });

    it('decision B33: at most EMAIL_LIMIT_PER_RECIPIENT emails per address per hour, existing or not', async (t) => {
      const h = await bridge(backend);
      t.after(() => h.close());
      assert.equal((await h.register('pat@example.org')).statusCode, 201);
      const resend = (email: string) =>
        h.request({ method: 'POST', url: '/api/auth/resend-verification', payload: { email } });
      assert.equal((await resend('pat@example.org')).statusCode, 202);
      assert.equal((await resend('pat@example.org')).statusCode, 202);
      const fourth = await resend('pat@example.org');
      assert.equal(fourth.statusCode, 429, 'registration + 2 resends = 3 emails');
      assert.ok(Number(fourth.headers['retry-after']) > 0);
      for (let i = 0; i < 3; i++) assert.equal((await resend('ghost@example.org')).statusCode, 202);
      assert.equal((await resend('ghost@example.org')).statusCode, 429, 'an unknown address is limited the same way');
      assert.equal(
        (
          await h.request({
            method: 'POST',
            url: '/api/auth/password-reset/request',
            payload: { email: 'pat@example.org' },
          })
        ).statusCode,
        429,
        'one count for every email to the address',
      );
      h.advance(3_600_000);
      assert.equal((await resend('pat@example.org')).statusCode, 202);
    });
  });

  describe(`password reset on ${where} (decision B37)`, () => {
    it('decision B37: request → emailed single-use link (stored hashed) → new password under the policy; every session ends; password-changed is sent', async (t) => {
      const h = await bridge(backend);
      t.after(() => h.close());
      const { jar } = await h.member('rita@example.org');
      const other = (await h.login('rita@example.org')).jar;
      const ask = (email: string) =>
        h.request({ method: 'POST', url: '/api/auth/password-reset/request', payload: { email } });
      const asked = await ask('rita@example.org');
      assert.equal(asked.statusCode, 202);
      const unknown = await ask('nobody@example.org');
      assert.deepEqual(strip(unknown.json()), strip(asked.json()), 'same answer for an unknown address');
      const mail = await waitFor('the reset email', () => mailsTo(h, 'rita@example.org', /reset/i).at(-1));
      const token = resetToken(mail.text);
      assert.ok(token, 'a reset link in the email');
      const stored = await h.opened.db.selectFrom('password_resets').selectAll().execute();
      assert.equal(stored.length, 1);
      assert.deepEqual(
        Buffer.from(stored[0]!.token_hash),
        createHash('sha256').update(token).digest(),
        'only the hash is stored',
      );
      assert.ok(!JSON.stringify(stored).includes(token));
      const confirm = (password: string, tok = token) =>
        h.request({ method: 'POST', url: '/api/auth/password-reset/confirm', payload: { token: tok, password } });
      const eleven = await confirm('Tr0ub4dor&3');
      assert.equal(eleven.statusCode, 400);
      assert.equal(eleven.json().error, 'WEAK_PASSWORD', 'the password policy applies');
      assert.equal((await confirm('rita@example.org-x')).json().error, 'WEAK_PASSWORD');
      const [a, b] = await Promise.all([confirm(NEW_PASSWORD), confirm(NEW_PASSWORD)]);
      assert.deepEqual([a.statusCode, b.statusCode].sort(), [200, 400], 'single use, even in parallel');
      const ok = a.statusCode === 200 ? a : b;
      assert.deepEqual(ok.json(), { status: 'password_changed', sessions_ended: 2 });
      assert.equal((a.statusCode === 400 ? a : b).json().error, 'RESET_TOKEN_INVALID');
      for (const j of [jar, other])
        assert.deepEqual(
          (await h.request({ method: 'GET', url: '/auth/session', jar: j })).json(),
          { authenticated: false },
          'sessions ended',
        );
      assert.equal((await h.login('rita@example.org')).res.statusCode, 401, 'the old password is gone');
      assert.equal((await h.login('rita@example.org', NEW_PASSWORD)).res.statusCode, 200);
      await waitFor('password-changed', () =>
        mailsTo(h, 'rita@example.org', /password/i).find((m) => /changed/i.test(m.subject)),
      );
      assert.equal((await confirm(NEW_PASSWORD)).json().error, 'RESET_TOKEN_INVALID', 'used');
      await new Promise((res) => setTimeout(res, 100));
      assert.equal(mailsTo(h, 'nobody@example.org', /./).length, 0);
    });

    it('decision B37: a link lasts one hour, and a newer request replaces it', async (t) => {
      const h = await bridge(backend);
      t.after(() => h.close());
      await h.member('sam@example.org');
      const ask = () =>
        h.request({ method: 'POST', url: '/api/auth/password-reset/request', payload: { email: 'sam@example.org' } });
      const tokenAfter = async (n: number) =>
        resetToken((await waitFor(`reset email ${n}`, () => mailsTo(h, 'sam@example.org', /reset/i)[n - 1])).text)!;
      await ask();
      const first = await tokenAfter(1);
      await ask();
      const second = await tokenAfter(2);
      const confirm = (token: string) =>
        h.request({
          method: 'POST',
          url: '/api/auth/password-reset/confirm',
          payload: { token, password: NEW_PASSWORD },
        });
      assert.equal((await confirm(first)).json().error, 'RESET_TOKEN_INVALID', 'replaced');
      h.advance(60 * 60_000);
      assert.equal((await confirm(second)).json().error, 'RESET_TOKEN_INVALID', 'expired at exactly one hour');
      assert.equal((await h.login('sam@example.org')).res.statusCode, 200, 'the password did not change');
      const page = await h.request({ method: 'GET', url: `/reset-password?token=${second}` });
      assert.equal(page.statusCode, 200);
      assert.match(String(page.headers['content-security-policy']), /frame-ancestors 'none'/);
      assert.equal(
        (await h.request({ method: 'GET', url: '/reset-password?token="><script>alert(1)</script>' })).body.includes(
          '<script>alert(1)',
        ),
        false,
        'escaped',
      );
    });
  });
}

describe('a password reset on a platform run on one machine (decisions D49, B54)', () => {
  it('decisions D49, B54: with PUBLIC_URL on loopback http the reset email goes out (the notification service takes the http link), the development outbox keeps every email with its links, and the reset completes', async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'domdao-dev-outbox-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'dev-outbox.jsonl');
    const h = await bridge(undefined, { PUBLIC_URL: 'http://127.0.0.1:8080', DEV_OUTBOX_FILE: file });
    t.after(() => h.close());
    assert.equal((await h.register('local@example.org')).statusCode, 201);
    assert.equal((await h.verify('local@example.org')).statusCode, 200);
    assert.equal(
      (
        await h.request({
          method: 'POST',
          url: '/api/auth/password-reset/request',
          payload: { email: 'local@example.org' },
        })
      ).statusCode,
      202,
    );
    const mail = await waitFor('the reset email', () => mailsTo(h, 'local@example.org', /reset/i)[0]);
    assert.match(
      mail.text,
      /http:\/\/127\.0\.0\.1:8080\/reset-password\?token=/,
      'the notification service accepted the loopback http link',
    );
    const lines = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; to: string; link: string; links: Record<string, string> });
    const types = lines.map((l) => l.type);
    for (const type of ['verification', 'welcome', 'password-reset'])
      assert.ok(types.includes(type), `${type} in the development outbox: ${types.join(', ')}`);
    const reset = lines.find((l) => l.type === 'password-reset')!;
    assert.equal(reset.to, 'local@example.org');
    assert.equal(reset.link, reset.links.reset_link);
    const token = resetToken(reset.link)!;
    assert.equal(
      (await h.request({ method: 'GET', url: new URL(reset.link).pathname + new URL(reset.link).search })).statusCode,
      200,
    );
    const done = await h.request({
      method: 'POST',
      url: '/api/auth/password-reset/confirm',
      payload: { token, password: NEW_PASSWORD },
    });
    assert.equal(done.statusCode, 200, done.body);
    assert.equal((await h.login('local@example.org', NEW_PASSWORD)).res.statusCode, 200);
    await waitFor('the password-changed line', () =>
      readFileSync(file, 'utf8').includes('"password-changed"') ? true : undefined,
    );
  });
});
