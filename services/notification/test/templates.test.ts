// Spec 3 "Template catalog": 14 types, required/optional fields exactly as listed, formats, the
// verification at-least-one rule, defaults; send flow step 4 → 400 invalid_template_data with details[].
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { templates } from '../src/templates/catalog.ts';
import { DAO, makeService, makeServiceWithProvider, PRODUCT, validBody, withoutField } from './harness.ts';

// Transcribed from the spec's catalog, not from our schemas, so a drift in either shows here.
const CATALOG: Record<string, { brands: 'both' | 'dao'; required: string[]; optional: string[] }> = {
  welcome: { brands: 'both', required: ['user_name'], optional: ['dashboard_url'] },
  'password-reset': { brands: 'both', required: ['reset_link', 'user_name'], optional: ['expires_minutes'] },
  'password-changed': {
    brands: 'both',
    required: ['recipient_name', 'changed_at', 'security_url'],
    optional: ['ip_hint', 'device_hint'],
  },
  verification: {
    brands: 'both',
    required: ['user_name'],
    optional: ['verification_link', 'verification_code', 'expires_minutes'],
  },
  invitation: {
    brands: 'both',
    required: ['inviter_name', 'workspace_name', 'invitation_link'],
    optional: ['expires_days'],
  },
  'membership-confirm': {
    brands: 'dao',
    required: ['member_name', 'activated_at', 'expires_at'],
    optional: ['membership_tier', 'dashboard_url', 'sbt_token_id'],
  },
  'renewal-receipt': {
    brands: 'dao',
    required: ['member_name', 'amount', 'payment_date', 'payment_id', 'expiration_date', 'receipt_number'],
    optional: ['currency', 'payment_last4', 'dashboard_url'],
  },
  'payment-receipt': {
    brands: 'both',
    required: ['payment_id', 'amount_display', 'currency', 'type_label', 'user_name', 'payment_date'],
    optional: ['support_url', 'completed_at'],
  },
  'refund-confirmation': {
    brands: 'both',
    required: [
      'refund_id',
      'original_payment_id',
      'amount_display',
      'currency',
      'reason_label',
      'user_name',
      'refund_date',
      'processing_days',
    ],
    optional: ['support_url'],
  },
  'treasury-milestone': {
    brands: 'dao',
    required: ['recipient_name', 'milestone_title', 'amount', 'currency', 'tx_hash', 'dashboard_url'],
    optional: [],
  },
  'e2e-test-results': {
    brands: 'both',
    required: ['run_id', 'pass_count', 'fail_count', 'total', 'run_url'],
    optional: ['suite_results'],
  },
  'parental-consent': {
    brands: 'both',
    required: [
      'parent_name',
      'minor_name',
      'minor_email',
      'consent_url',
      'consent_expires_at',
      'platform_contact_email',
    ],
    optional: [],
  },
  'event-reminder': {
    brands: 'both',
    required: ['recipient_name', 'event_id', 'event_title', 'start_time', 'end_time', 'window_label'],
    optional: [
      'event_description',
      'event_location',
      'event_url',
      'organizer_name',
      'organizer_email',
      'preferences_url',
    ],
  },
  'notification-digest': {
    brands: 'both',
    required: ['recipient_name', 'digest_frequency', 'items', 'total_count', 'unsubscribe_url'],
    optional: ['inbox_url'],
  },
};

let svc: Awaited<ReturnType<typeof makeService>>;
before(async () => (svc = await makeService()));
after(() => svc.close());

async function expectTemplateError(body: unknown, field: string, message?: RegExp) {
  const res = await svc.send(body);
  assert.equal(res.statusCode, 400, res.body);
  const json = res.json();
  assert.equal(json.error, 'invalid_template_data');
  const detail = json.details.find((d: { field: string }) => d.field === field);
  assert.ok(detail, `expected a detail for ${field}, got ${JSON.stringify(json.details)}`);
  if (message) assert.match(detail.message, message);
}

it('the catalog has 14 types: 13 transactional and 1 opt-in digest', () => {
  assert.deepEqual(Object.keys(templates).sort(), Object.keys(CATALOG).sort());
  assert.equal(Object.keys(CATALOG).length, 14);
});

for (const [type, spec] of Object.entries(CATALOG)) {
  const t = type as keyof typeof templates;
  describe(`${type} (${spec.brands === 'dao' ? 'DAO only' : 'both brands'})`, () => {
    for (const domain of spec.brands === 'dao' ? [DAO] : [DAO, PRODUCT]) {
      it(`the full example sends under ${domain}`, async () => {
        const res = await svc.send(validBody(t, { domain }));
        assert.equal(res.statusCode, 200, res.body);
        assert.equal(res.json().status, 'sent');
      });
    }
    it('only the required fields are enough', async () => {
      const example = templates[t].example as Record<string, unknown>;
      const minimal = Object.fromEntries(spec.required.map((f) => [f, example[f]]));
      if (type === 'verification') minimal.verification_code = '493027'; // the at-least-one rule
      const res = await svc.send({ ...validBody(t), data: minimal });
      assert.equal(res.statusCode, 200, res.body);
    });
    for (const field of spec.required) {
      it(`missing required ${field} is invalid_template_data`, () =>
        expectTemplateError(
          { ...validBody(t), data: withoutField(validBody(t).data, field) },
          `data.${field}`,
          /required/,
        ));
    }
    for (const field of spec.optional) {
      it(`optional ${field} is validated when present`, () =>
        expectTemplateError(validBody(t, { data: { [field]: { not: 'valid' } } }), `data.${field}`));
    }
    it('extra data fields are silently ignored', async () => {
      const res = await svc.send(validBody(t, { data: { unknown_field: 'x', another: { nested: [1, 2] } } }));
      assert.equal(res.statusCode, 200, res.body);
    });
  });
}

describe('field formats', () => {
  const cases: Array<[string, string, Record<string, unknown>, string, RegExp?]> = [
    [
      'https-only reset_link refuses http',
      'password-reset',
      { reset_link: 'http://app.example/reset?t=1' },
      'reset_link',
      /https/,
    ],
    ['reset_link refuses javascript:', 'password-reset', { reset_link: 'javascript:alert(1)' }, 'reset_link'],
    ['invitation_link refuses a relative URL', 'invitation', { invitation_link: '/invite/1' }, 'invitation_link'],
    ['consent_url refuses http', 'parental-consent', { consent_url: 'http://x.example/c' }, 'consent_url'],
    // Decision D49: only a loopback host may be http; look-alikes of one are not.
    [
      'http to a name that starts like a loopback address is refused',
      'password-reset',
      { reset_link: 'http://127.0.0.1.example.org/reset' },
      'reset_link',
    ],
    [
      'http to localhost as a subdomain is refused',
      'password-reset',
      { reset_link: 'http://localhost.example.org/reset' },
      'reset_link',
    ],
    ['http to a private address is refused', 'password-reset', { reset_link: 'http://10.0.0.1/reset' }, 'reset_link'],
    [
      'http to 128.0.0.1 (outside 127.0.0.0/8) is refused',
      'password-reset',
      { reset_link: 'http://128.0.0.1/reset' },
      'reset_link',
    ],
    [
      'http to loopback with credentials is refused',
      'password-reset',
      { reset_link: 'http://u:p@127.0.0.1/reset' },
      'reset_link',
    ],
    [
      'a URL with credentials is refused',
      'welcome',
      { dashboard_url: 'https://user:pw@app.example/' },
      'dashboard_url',
    ],
    ['a URL with a newline is refused', 'welcome', { dashboard_url: 'https://app.example/\nx' }, 'dashboard_url'],
    [
      'a data: link is refused',
      'welcome',
      { dashboard_url: 'data:text/html,<script>alert(1)</script>' },
      'dashboard_url',
    ],
    [
      'a URL over 2048 characters is refused',
      'welcome',
      { dashboard_url: `https://app.example/${'a'.repeat(2100)}` },
      'dashboard_url',
    ],
    [
      'ISO-8601 without a time zone is refused',
      'password-changed',
      { changed_at: '2026-11-22T09:30:00' },
      'changed_at',
      /time zone/,
    ],
    ['an impossible date is refused', 'password-changed', { changed_at: '2026-02-30T09:30:00Z' }, 'changed_at'],
    ['a non-ISO date is refused', 'membership-confirm', { activated_at: '22/11/2026' }, 'activated_at'],
    ['an hour of 24 is refused', 'event-reminder', { start_time: '2026-11-23T24:00:00Z' }, 'start_time'],
    [
      'event-reminder start_time must be a date-time, not a date',
      'event-reminder',
      { start_time: '2026-11-23' },
      'start_time',
    ],
    ['window_label must be 24h or 1h', 'event-reminder', { window_label: '2h' }, 'window_label', /24h, 1h/],
    [
      'digest_frequency must be daily or weekly',
      'notification-digest',
      { digest_frequency: 'monthly' },
      'digest_frequency',
    ],
    ['minor_email must be an address', 'parental-consent', { minor_email: 'not-an-address' }, 'minor_email'],
    [
      'verification_code of 5 characters is refused',
      'verification',
      { verification_code: '12345' },
      'verification_code',
      /6 to 8/,
    ],
    [
      'verification_code of 9 characters is refused',
      'verification',
      { verification_code: '123456789' },
      'verification_code',
    ],
    [
      'verification_code with a space is refused',
      'verification',
      { verification_code: '123 456' },
      'verification_code',
    ],
    ['a negative count is refused', 'e2e-test-results', { fail_count: -1 }, 'fail_count'],
    ['a fractional count is refused', 'e2e-test-results', { pass_count: 1.5 }, 'pass_count', /whole number/],
    ['a number as a string is refused', 'refund-confirmation', { processing_days: '7' }, 'processing_days'],
    ['expires_minutes of 0 is refused', 'password-reset', { expires_minutes: 0 }, 'expires_minutes'],
    ['payment_last4 must be 4 digits', 'renewal-receipt', { payment_last4: '42424' }, 'payment_last4'],
    ['currency must be a code or symbol', 'payment-receipt', { currency: 'US Dollars' }, 'currency'],
    ['a huge name is refused', 'welcome', { user_name: 'A'.repeat(10_000) }, 'user_name', /at most 200/],
    ['an empty name is refused', 'welcome', { user_name: '' }, 'user_name'],
    ['a blank name is refused', 'welcome', { user_name: '   ' }, 'user_name'],
    [
      'CRLF in a subject-bearing name is refused',
      'welcome',
      { user_name: 'Ada\r\nBcc: eve@example.com' },
      'user_name',
      /single line/,
    ],
    [
      'CRLF in the invitation subject fields is refused',
      'invitation',
      { workspace_name: 'W\r\nX-Injected: 1' },
      'workspace_name',
    ],
    ['a NUL byte is refused', 'treasury-milestone', { milestone_title: 'a\u0000b' }, 'milestone_title'],
    [
      'a Unicode line separator in a subject field is refused',
      'event-reminder',
      { event_title: 'a\u2028Bcc: x' },
      'event_title',
    ],
  ];
  for (const [why, type, data, field, message] of cases) {
    it(why, () => expectTemplateError(validBody(type as keyof typeof templates, { data }), `data.${field}`, message));
  }
  it('decision D49: an HTTPS field takes http:// to a loopback host (what `npm start` builds): 127.0.0.0/8, localhost, [::1]', async () => {
    for (const link of [
      'http://127.0.0.1:8080/reset-password?token=abc',
      'http://127.255.255.254/r',
      'http://localhost:3000/r',
      'http://[::1]:8080/r',
    ]) {
      const res = await svc.send(validBody('password-reset', { data: { reset_link: link } }));
      assert.equal(res.statusCode, 200, `${link}: ${res.body}`);
    }
  });
  it('multi-line text fields accept line breaks', async () => {
    const res = await svc.send(
      validBody('event-reminder', { data: { event_description: 'Line one\r\nLine two\n\tIndented' } }),
    );
    assert.equal(res.statusCode, 200, res.body);
  });
  it('ISO-8601 with an offset and fractional seconds is accepted', async () => {
    const res = await svc.send(
      validBody('password-changed', { data: { changed_at: '2026-11-22T09:30:00.123+05:30' } }),
    );
    assert.equal(res.statusCode, 200, res.body);
  });
});

describe('rules that span fields', () => {
  it('verification: at least one of verification_link and verification_code is required', async () => {
    const data = withoutField(withoutField(validBody('verification').data, 'verification_link'), 'verification_code');
    await expectTemplateError({ ...validBody('verification'), data }, 'data.verification_link', /at least one/);
    const linkOnly = withoutField(validBody('verification').data, 'verification_code');
    assert.equal((await svc.send({ ...validBody('verification'), data: linkOnly })).statusCode, 200);
  });
  it('event-reminder: end_time must be after start_time', () =>
    expectTemplateError(
      validBody('event-reminder', { data: { end_time: '2026-11-23T16:00:00Z' } }),
      'data.end_time',
      /after/,
    ));
  it('membership-confirm: expires_at must be after activated_at', () =>
    expectTemplateError(validBody('membership-confirm', { data: { expires_at: '2026-01-01' } }), 'data.expires_at'));
  it('e2e-test-results: pass_count + fail_count cannot exceed total', () =>
    expectTemplateError(
      validBody('e2e-test-results', { data: { pass_count: 10, fail_count: 1, total: 10 } }),
      'data.total',
    ));
});

describe('notification-digest items', () => {
  const item = (over: Record<string, unknown> = {}) => ({
    title: 'Update',
    created_at: '2026-11-20T12:00:00Z',
    ...over,
  });
  const digest = (data: Record<string, unknown>) => validBody('notification-digest', { data });

  it('an empty items array is refused (min 1)', () =>
    expectTemplateError(digest({ items: [] }), 'data.items', /at least 1/));
  it('51 items are refused (max 50)', () =>
    expectTemplateError(
      digest({ items: Array.from({ length: 51 }, () => item()), total_count: 51 }),
      'data.items',
      /at most 50/,
    ));
  it('50 items are accepted', async () => {
    assert.equal(
      (await svc.send(digest({ items: Array.from({ length: 50 }, () => item()), total_count: 50 }))).statusCode,
      200,
    );
  });
  it('title is required', () =>
    expectTemplateError(
      digest({ items: [{ created_at: '2026-11-20T12:00:00Z' }] }),
      'data.items[0].title',
      /required/,
    ));
  it('created_at is required', () =>
    expectTemplateError(digest({ items: [{ title: 'x' }] }), 'data.items[0].created_at', /required/));
  it('title over 200 characters is refused', () =>
    expectTemplateError(digest({ items: [item({ title: 'x'.repeat(201) })] }), 'data.items[0].title', /200/));
  it('body over 500 characters is refused', () =>
    expectTemplateError(digest({ items: [item({ body: 'x'.repeat(501) })] }), 'data.items[0].body', /500/));
  it('category over 32 characters is refused', () =>
    expectTemplateError(digest({ items: [item({ category: 'x'.repeat(33) })] }), 'data.items[0].category', /32/));
  it('deep_link must be https', () =>
    expectTemplateError(digest({ items: [item({ deep_link: 'http://app.example/x' })] }), 'data.items[0].deep_link'));
  it('the path of a bad item names its index', () =>
    expectTemplateError(
      digest({ items: [item(), item(), item({ created_at: 'yesterday' })], total_count: 3 }),
      'data.items[2].created_at',
    ));
  it('unsubscribe_url missing fails validation', () =>
    expectTemplateError(
      { ...digest({}), data: withoutField(validBody('notification-digest').data, 'unsubscribe_url') },
      'data.unsubscribe_url',
    ));
  it('unsubscribe_url that is not https fails validation', () =>
    expectTemplateError(
      digest({ unsubscribe_url: 'http://domdao.example/unsubscribe?token=x' }),
      'data.unsubscribe_url',
      /https/,
    ));
  it('total_count below the number of items is refused', () =>
    expectTemplateError(digest({ total_count: 1 }), 'data.total_count'));
});

describe('defaults (observed in the rendered message)', () => {
  let p: Awaited<ReturnType<typeof makeServiceWithProvider>>;
  before(async () => (p = await makeServiceWithProvider()));
  after(() => p.close());

  it('password-reset expires_minutes defaults to 60', async () => {
    await p.send({
      ...validBody('password-reset'),
      data: withoutField(validBody('password-reset').data, 'expires_minutes'),
    });
    assert.match(p.sent().text, /expires in 60 minutes/);
  });
  it('renewal-receipt currency defaults to USD', async () => {
    await p.send({
      ...validBody('renewal-receipt'),
      data: withoutField(validBody('renewal-receipt').data, 'currency'),
    });
    assert.match(p.sent().text, /Amount: \$120\.00 USD/);
  });
  it('payment-receipt completed_at defaults to payment_date', async () => {
    await p.send(validBody('payment-receipt', { data: { payment_date: '2026-11-21T08:15:00Z' } }));
    assert.match(p.sent().text, /Completed: 21 November 2026, 08:15 UTC/);
  });
  it('decision N23: refund-confirmation with processing_days 0 says the refund is already credited', async () => {
    await p.send(validBody('refund-confirmation', { data: { processing_days: 0 } }));
    assert.match(p.sent().text, /It is already in your account\./);
    assert.doesNotMatch(p.sent().text, /business day/);
    await p.send(validBody('refund-confirmation'));
    assert.match(p.sent().text, /can take up to 7 business days/);
  });
});
