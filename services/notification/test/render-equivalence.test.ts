// Decision D37: the block renderer skips work that cannot change its output (no line feed, no regex
// pass; the items' text part built directly); these properties hold it to the previous code.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { Brand } from '../src/brands/brands.ts';
import { blockHtml, blockText, type Block } from '../src/rendering/blocks.ts';
import { escapeAttr, escapeText } from '../src/rendering/escape.ts';
import { layoutHtml, layoutText } from '../src/rendering/layout.ts';
import type { RenderedContent } from '../src/templates/template-schema.ts';
import {
  refBlockHtml,
  refBlockText,
  refEscapeAttr,
  refEscapeText,
  refLayoutHtml,
  refLayoutText,
} from './fixtures/render-reference.ts';
import { formatDateTime } from '../src/rendering/format.ts';
import { notificationDigest } from '../src/templates/notification-digest.ts';

const brand: Brand = {
  key: 'dao',
  domain: 'domdao.example',
  name: 'DOM DAO',
  fromAddress: 'no-reply@domdao.example',
  supportUrl: 'https://domdao.example/support',
  postalAddress: 'Somewhere 1',
  logoUrl: 'https://domdao.example/logo.png',
  primaryColor: '#112233',
  backgroundColor: '#ffffff',
};
const text = fc.string({
  unit: fc.constantFrom('a', ' ', '\n', '\r', '\r\n', '&', '<', '>', '"', 'é', '😀'),
  maxLength: 12,
});
const opt = fc.option(text, { nil: undefined });
const items = fc.array(fc.record({ title: text, body: opt, url: opt, meta: opt }, { requiredKeys: ['title'] }), {
  maxLength: 4,
});

// The code before D37.
const refMultiline = (value: string) => escapeText(value).replace(/\r?\n/g, '<br>');
const refItemsText = (list: Array<{ title: string; body?: string; url?: string; meta?: string }>) =>
  list
    .map((i) =>
      [
        `* ${i.title}`,
        i.meta && `  ${i.meta}`,
        i.body && `  ${i.body.replace(/\r?\n/g, '\n  ')}`,
        i.url && `  ${i.url}`,
      ]
        .filter(Boolean)
        .join('\n'),
    )
    .join('\n\n');

describe('decision D37: block rendering', () => {
  it('items: the text part is what the previous code printed', () => {
    fc.assert(
      fc.property(items, (list) => blockText({ kind: 'items', items: list }) === refItemsText(list)),
      { numRuns: 5000 },
    );
  });
  it('paragraphs and notes: line breaks become <br> exactly as before', () => {
    fc.assert(
      fc.property(text, (t) => {
        const html = blockHtml({ kind: 'paragraph', text: t }, brand);
        assert.ok(html.includes(`>${refMultiline(t)}</td>`), html);
      }),
      { numRuns: 5000 },
    );
  });
  it('digest items: the same block as the previous spread-and-join code', () => {
    const item = fc.record(
      {
        title: text,
        body: text,
        deep_link: fc.constant('https://a.example/x'),
        created_at: fc.constantFrom('2026-11-20T12:00:00Z', '2026-11-20', '2026-11-20T12:00:00+05:30'),
        category: fc.constantFrom('governance', 'a', ''),
      },
      { requiredKeys: ['title', 'created_at'] },
    );
    fc.assert(
      fc.property(fc.array(item, { minLength: 1, maxLength: 30 }), (items) => {
        const data = {
          recipient_name: 'Ada',
          digest_frequency: 'daily' as const,
          items,
          total_count: items.length,
          unsubscribe_url: 'https://a.example/u',
        };
        const content = notificationDigest.render(data, { brand, now: new Date() });
        const reference = items.slice(0, 25).map((i) => ({
          title: i.title,
          meta: [i.category, formatDateTime(i.created_at)].filter(Boolean).join(' · '),
          ...(i.body !== undefined && { body: i.body }),
          ...(i.deep_link !== undefined && { url: i.deep_link }),
        }));
        assert.deepEqual(content.blocks[2], { kind: 'items', items: reference });
      }),
      { numRuns: 2000 },
    );
  });
});

// Decision D40: escaping by character searches, brand pieces written once, loops instead of map/join.
describe('decision D40: the renderer writes the bytes the previous one wrote', () => {
  const anyText = fc.oneof(text, fc.string({ maxLength: 16 }), fc.string({ unit: 'binary', maxLength: 16 }));
  const block: fc.Arbitrary<Block> = fc.oneof(
    fc.record({ kind: fc.constant('heading' as const), text: anyText }),
    fc.record({ kind: fc.constant('paragraph' as const), text: anyText }),
    fc.record({ kind: fc.constant('note' as const), text: anyText }),
    fc.record({ kind: fc.constant('code' as const), text: anyText }),
    fc.record({ kind: fc.constant('button' as const), label: anyText, url: anyText }),
    fc.record({ kind: fc.constant('link' as const), label: anyText, url: anyText }),
    fc.record({ kind: fc.constant('details' as const), rows: fc.array(fc.tuple(anyText, anyText), { maxLength: 4 }) }),
    fc.record({
      kind: fc.constant('items' as const),
      items: fc.array(
        fc.record(
          {
            title: anyText,
            body: fc.option(anyText, { nil: undefined }),
            url: fc.option(anyText, { nil: undefined }),
            meta: fc.option(anyText, { nil: undefined }),
          },
          { requiredKeys: ['title'] },
        ),
        { maxLength: 4 },
      ),
    }),
    fc.record({
      kind: fc.constant('table' as const),
      head: fc.array(anyText, { maxLength: 3 }),
      rows: fc.array(
        fc.record(
          { cells: fc.array(anyText, { maxLength: 3 }), url: fc.option(anyText, { nil: undefined }) },
          { requiredKeys: ['cells'] },
        ),
        {
          maxLength: 3,
        },
      ),
    }),
  );
  const brands = fc
    .record({
      name: anyText,
      supportUrl: anyText,
      postalAddress: anyText,
      logoUrl: anyText,
      primaryColor: fc.constantFrom('#112233', '#4338CA'),
      backgroundColor: fc.constantFrom('#ffffff', '#F4F4F7'),
    })
    .map((b) => ({ ...brand, ...b }));
  const content = fc.record(
    {
      subject: anyText,
      preheader: anyText,
      reason: anyText,
      blocks: fc.array(block, { maxLength: 5 }),
      unsubscribe: fc.option(fc.record({ url: anyText, listId: anyText }), { nil: undefined }),
    },
    { requiredKeys: ['subject', 'preheader', 'reason', 'blocks'] },
  );

  it('escapeText and escapeAttr', () => {
    fc.assert(
      fc.property(anyText, (s) => escapeText(s) === refEscapeText(s) && escapeAttr(s) === refEscapeAttr(s)),
      { numRuns: 20000 },
    );
  });
  it('every block kind, HTML and text', () => {
    fc.assert(
      fc.property(block, brands, (b, br) => {
        assert.equal(blockHtml(b, br), refBlockHtml(b, br));
        assert.equal(blockText(b), refBlockText(b));
      }),
      { numRuns: 5000 },
    );
  });
  it('whole messages, HTML and text, for any brand (each brand object once and again)', () => {
    fc.assert(
      fc.property(content, brands, (c, br) => {
        for (let i = 0; i < 2; i++) {
          assert.equal(layoutHtml(c as RenderedContent, br), refLayoutHtml(c as RenderedContent, br));
          assert.equal(layoutText(c as RenderedContent, br), refLayoutText(c as RenderedContent, br));
        }
      }),
      { numRuns: 3000 },
    );
  });
});
