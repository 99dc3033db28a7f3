// Spec 3 "Brands", rendering rules of the digest, escaping of caller values, email-client layout.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { templates, type TemplateType } from '../src/templates/catalog.ts';
import { DAO, makeServiceWithProvider, PRODUCT, validBody, withoutField } from './harness.ts';

let p: Awaited<ReturnType<typeof makeServiceWithProvider>>;
before(async () => (p = await makeServiceWithProvider()));
after(() => p.close());

async function rendered(body: unknown) {
  const res = await p.send(body);
  assert.equal(res.statusCode, 200, res.body);
  return p.sent();
}

describe('brands (spec 3 Brands)', () => {
  it('the DAO domain sends from notifications@<dao_domain> with the DAO logo, colour and footer', async () => {
    const m = await rendered(validBody('welcome', { domain: DAO }));
    assert.equal(m.from, '"DOM DAO" <notifications@domdao.example>');
    assert.match(m.html, /src="https:\/\/domdao\.example\/assets\/email-logo\.png"/);
    assert.match(m.html, /#4338CA/);
    assert.match(m.html, /DOM DAO &middot; 100 Example Street, Suite 1/);
    assert.match(m.html, /href="https:\/\/domdao\.example\/support"/);
    assert.match(m.text, /Support: https:\/\/domdao\.example\/support/);
    assert.match(m.text, /DOM DAO, 100 Example Street, Suite 1/);
    assert.ok(!m.html.includes('domapp.example'), 'no trace of the other brand');
  });
  it('the product domain sends from notifications@<product_domain> with the product brand', async () => {
    const m = await rendered(validBody('welcome', { domain: PRODUCT }));
    assert.equal(m.from, '"DOM App" <notifications@domapp.example>');
    assert.match(m.html, /domapp\.example\/assets\/email-logo\.png/);
    assert.match(m.html, /#0F766E/);
    assert.match(m.text, /DOM App, 100 Example Street, Suite 2/);
    assert.match(m.subject, /Welcome to DOM App/);
    assert.ok(!m.html.includes('https://domdao.example/'), 'no DAO brand asset or support link');
    assert.ok(!m.html.includes('DOM DAO'));
  });
  it('brand values come from configuration', async (t) => {
    const q = await makeServiceWithProvider({
      BRAND_DAO_DOMAIN: 'coop.example.org',
      BRAND_DAO_NAME: 'Garden Co-op',
      BRAND_DAO_POSTAL_ADDRESS: '1 Allotment Lane, Leeds',
      BRAND_DAO_PRIMARY_COLOR: '#112233',
    });
    t.after(() => q.close());
    await q.send(validBody('welcome', { domain: 'coop.example.org' }));
    const m = q.sent();
    assert.equal(m.from, '"Garden Co-op" <notifications@coop.example.org>');
    assert.match(m.html, /#112233/);
    assert.match(m.text, /Garden Co-op, 1 Allotment Lane, Leeds/);
  });
  for (const type of Object.keys(templates) as TemplateType[]) {
    it(`${type} has a subject, an HTML part and a text part with the footer`, async () => {
      const m = await rendered(validBody(type));
      assert.ok(m.subject.length > 0 && !/[\r\n]/.test(m.subject));
      assert.match(m.html, /^<!DOCTYPE html>/);
      assert.match(m.html, /DOM DAO &middot; 100 Example Street/);
      assert.match(m.text, /DOM DAO, 100 Example Street/);
      assert.ok(m.text.length > 50);
    });
  }
});

describe('layout for email clients', () => {
  it('is table-based with inline styles and no <style> or <script>', async () => {
    const m = await rendered(validBody('password-reset'));
    assert.match(m.html, /<table role="presentation"/);
    assert.ok(!/<style/i.test(m.html));
    assert.ok(!/<script/i.test(m.html));
    assert.ok(!/class="/.test(m.html), 'no classes: Gmail strips <style>, so all styling is inline');
    assert.match(m.html, /<td bgcolor="#4338CA"/, 'bulletproof button colour on the cell for Outlook');
  });
  it('carries a hidden preheader for the inbox preview', async () => {
    const m = await rendered(validBody('password-reset'));
    assert.match(m.html, /<div style="display:none;[^"]*">This link expires in 60 minutes\.<\/div>/);
  });
});

describe('every caller value is escaped', () => {
  const evil = '<script>alert(1)</script>"><img src=x onerror=alert(2)>&amp;';
  it('in text nodes', async () => {
    const m = await rendered(validBody('welcome', { data: { user_name: evil } }));
    assert.ok(!m.html.includes('<script>alert(1)'));
    assert.ok(!m.html.includes('<img src=x'));
    assert.match(m.html, /&lt;script&gt;alert\(1\)&lt;\/script&gt;/);
    assert.match(m.html, /&amp;amp;/);
    assert.ok(m.text.includes(evil), 'the text part shows the value verbatim');
  });
  it('in attributes: a quote in a URL cannot close href', async () => {
    const m = await rendered(
      validBody('e2e-test-results', {
        data: { suite_results: [{ suite: 's"><b>x', pass: 1, fail: 0, url: 'https://ci.example/a?b=1&c=2' }] },
      }),
    );
    assert.match(m.html, /href="https:\/\/ci\.example\/a\?b=1&amp;c=2"/);
    assert.match(m.html, /s"&gt;&lt;b&gt;x/);
  });
  it('in the digest item fields and the multi-line body', async () => {
    const m = await rendered(
      validBody('notification-digest', {
        data: {
          items: [
            {
              title: '<b>t</b>',
              body: 'line1\n<i>line2</i>',
              category: '<u>c</u>',
              created_at: '2026-11-20T12:00:00Z',
            },
          ],
          total_count: 1,
        },
      }),
    );
    assert.ok(!/<b>t<\/b>|<i>line2|<u>c/.test(m.html));
    assert.match(m.html, /line1<br>&lt;i&gt;line2/);
  });
  it('in the subject: a C1 control (NEL) in a subject-bearing field is refused, not folded in', async () => {
    const res = await p.send(
      validBody('invitation', { data: { inviter_name: 'Eve', workspace_name: 'Ops\u0085Bcc: x@example.com' } }),
    );
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().error, 'invalid_template_data');
  });
});

describe('transactional templates carry no unsubscribe link', () => {
  for (const type of (Object.keys(templates) as TemplateType[]).filter((t) => t !== 'notification-digest')) {
    it(type, async () => {
      const m = await rendered(validBody(type));
      assert.equal(m.headers?.['List-Unsubscribe'], undefined);
      assert.ok(!/unsubscribe/i.test(m.html));
    });
  }
});

describe('notification-digest rendering rules', () => {
  const items = (n: number, over: (i: number) => Record<string, unknown> = () => ({})) =>
    Array.from({ length: n }, (_, i) => ({
      title: `Item number ${i + 1}.`,
      created_at: '2026-11-20T12:00:00Z',
      ...over(i),
    }));
  const digest = (data: Record<string, unknown>) => validBody('notification-digest', { data });

  it('rule 1: only the first 25 of 50 items are rendered, then "+25 more" linking to inbox_url', async () => {
    const m = await rendered(digest({ items: items(50), total_count: 50 }));
    assert.match(m.html, /Item number 25\./);
    assert.ok(!m.html.includes('Item number 26.'));
    assert.match(m.html, /<a href="https:\/\/app\.domdao\.example\/inbox"[^>]*>\+25 more<\/a>/);
    assert.match(m.text, /\+25 more: https:\/\/app\.domdao\.example\/inbox/);
  });
  it('decision D6: N counts every pending update not shown (total_count 80 with 50 sent → +55 more)', async () => {
    const m = await rendered(digest({ items: items(50), total_count: 80 }));
    assert.match(m.html, />\+55 more</);
  });
  it('decision D6: 10 items sent of 30 pending → +20 more', async () => {
    const m = await rendered(digest({ items: items(10), total_count: 30 }));
    assert.match(m.html, />\+20 more</);
  });
  it('rule 1: the line is omitted when inbox_url is absent', async () => {
    const m = await rendered({
      ...digest({ items: items(50), total_count: 50 }),
      data: withoutField(digest({ items: items(50), total_count: 50 }).data, 'inbox_url'),
    });
    assert.ok(!/more</.test(m.html));
    assert.ok(!/\+\d+ more/.test(m.text));
  });
  it('no "+N more" when everything is shown', async () => {
    const m = await rendered(digest({ items: items(25), total_count: 25 }));
    assert.ok(!/\+\d+ more/.test(m.html));
  });
  it('rule 3: the unsubscribe link is in the body and in List-Unsubscribe, with RFC 8058 one-click and List-Id', async () => {
    const url = 'https://domdao.example/unsubscribe?token=abc.def';
    const m = await rendered(digest({ unsubscribe_url: url }));
    assert.match(m.html, /<a href="https:\/\/domdao\.example\/unsubscribe\?token=abc\.def"[^>]*>Unsubscribe<\/a>/);
    assert.match(m.text, /Unsubscribe: https:\/\/domdao\.example\/unsubscribe\?token=abc\.def/);
    assert.equal(m.headers?.['List-Unsubscribe'], `<${url}>`);
    assert.equal(m.headers?.['List-Unsubscribe-Post'], 'List-Unsubscribe=One-Click');
    assert.equal(m.headers?.['List-Id'], '<weekly-digest.domdao.example>');
  });
  it('a 50-item digest at every maximum length stays under Gmail’s 102 KB clipping size', async () => {
    const m = await rendered(
      digest({
        items: items(50, (i) => ({
          title: `${i} ${'Proposal title words '.repeat(10)}`.slice(0, 200),
          body: 'A realistic body sentence with words. '.repeat(14).slice(0, 500),
          category: 'governance-and-treasury-updates!'.slice(0, 32),
          deep_link: `https://app.domdao.example/proposals/${i}?utm_source=digest&utm_medium=email&utm_campaign=weekly-digest-2026-11`,
        })),
        total_count: 50,
      }),
    );
    assert.ok(Buffer.byteLength(m.html) < 102_400, `HTML is ${Buffer.byteLength(m.html)} bytes`);
    // Decision D20: realistic maximum-length items fit with all 25 rendered, in order; the other 25 are "+25 more".
    const title = (i: number) => `${i} ${'Proposal title words '.repeat(10)}`.slice(0, 200);
    const positions = Array.from({ length: 25 }, (_, i) => m.html.indexOf(`>${title(i)}<`));
    assert.ok(
      positions.every((at, i) => at > 0 && (i === 0 || at > positions[i - 1]!)),
      `items 0-24 rendered in order: ${positions.join(',')}`,
    );
    for (let i = 25; i < 50; i++) assert.ok(!m.html.includes(title(i)), `item ${i} is not rendered`);
    assert.match(m.html, />\+25 more</);
    assert.match(m.text, /\+25 more/);
    assert.match(m.html, /Unsubscribe<\/a>/);
  });
  it('pathological input (entity-heavy text, 2 KB links) still fits: items move into "+N more", the footer stays', async () => {
    const m = await rendered(
      digest({
        items: items(50, (i) => ({
          title: '&'.repeat(200),
          body: '<'.repeat(500),
          deep_link: `https://app.domdao.example/${i}/${'x'.repeat(2000)}`,
        })),
        total_count: 50,
      }),
    );
    const size = Buffer.byteLength(m.html);
    assert.ok(size < 102_400, `HTML is ${size} bytes`);
    const more = /\+(\d+) more/.exec(m.html);
    assert.ok(more && Number(more[1]) > 25, 'fewer than 25 items rendered, the rest counted');
    assert.match(m.html, /Unsubscribe<\/a>/);
  });
});
