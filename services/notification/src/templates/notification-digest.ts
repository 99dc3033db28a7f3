import type { Static } from '@sinclair/typebox';
import { templateSchemas } from '@domdao/notification-contract';
import { formatDateTime } from '../rendering/format.ts';
import type { Block } from '../rendering/blocks.ts';
import { defineTemplate, type RenderContext, type RenderedContent } from './template-schema.ts';

export const DIGEST_RENDERED_ITEMS = 25;

const schema = templateSchemas['notification-digest'];

type Digest = Static<typeof schema>;

type DigestItem = Digest['items'][number];

/** An item's block: title, "category · date" (or the date alone), and its body and link when given. */
function digestItem(i: DigestItem): { title: string; meta: string; body?: string; url?: string } {
  const date = formatDateTime(i.created_at);
  const item: { title: string; meta: string; body?: string; url?: string } = {
    title: i.title,
    meta: i.category ? `${i.category} · ${date}` : date,
  };
  if (i.body !== undefined) item.body = i.body;
  if (i.deep_link !== undefined) item.url = i.deep_link;
  return item;
}

/**
 * Renders the first `shown` items (25 at most). "+N more" counts every pending update not shown:
 * max(total_count, items.length) − shown, since the inbox link leads to all of them.
 */
function renderDigest(d: Digest, ctx: RenderContext, shown: number): RenderedContent {
  const { brand } = ctx;
  const items = d.items.slice(0, shown);
  const more = Math.max(d.total_count, d.items.length) - items.length;
  const period = d.digest_frequency === 'daily' ? 'daily' : 'weekly';
  const blocks: Block[] = [
    { kind: 'heading', text: `Your ${period} digest` },
    { kind: 'paragraph', text: `Hi ${d.recipient_name}, here is what happened on ${brand.name}.` },
    { kind: 'items', items: items.map(digestItem) },
  ];
  if (more > 0 && d.inbox_url) blocks.push({ kind: 'link', label: `+${more} more`, url: d.inbox_url });
  const total = Math.max(d.total_count, d.items.length);
  return {
    subject: `Your ${period} ${brand.name} digest: ${total} update${total === 1 ? '' : 's'}`,
    preheader: items[0]!.title,
    reason: `You received this email because you subscribed to the ${period} digest of ${brand.name}.`,
    blocks,
    unsubscribe: { url: d.unsubscribe_url, listId: `${period}-digest.${brand.domain}` },
    // Under Gmail's clip size the footer (and its unsubscribe link) must stay visible: drop items from
    // the end into "+N more" until the HTML fits.
    fit: () => (shown > 1 ? renderDigest(d, ctx, shown - 1) : undefined),
  };
}

export const notificationDigest = defineTemplate({
  type: 'notification-digest',
  brands: 'both',
  description:
    'Opt-in daily or weekly digest; the first 25 items are rendered, with an unsubscribe link and List-Unsubscribe headers.',
  schema,
  example: {
    recipient_name: 'Ada Lovelace',
    digest_frequency: 'weekly',
    items: [
      {
        title: 'Proposal #12 passed: community garden',
        body: 'Quorum 31%, 78% yes.',
        deep_link: 'https://app.domdao.example/proposals/12',
        created_at: '2026-11-20T12:00:00Z',
        category: 'governance',
      },
      {
        title: 'New campaign: solar roof',
        deep_link: 'https://app.domdao.example/campaigns/solar',
        created_at: '2026-11-21T08:30:00Z',
        category: 'campaigns',
      },
    ],
    total_count: 2,
    unsubscribe_url: 'https://domdao.example/unsubscribe?token=eyJ1IjoiNDIifQ.c2ln',
    inbox_url: 'https://app.domdao.example/inbox',
  },
  check: (d) =>
    d.total_count < d.items.length
      ? [{ field: 'data.total_count', message: 'must be at least the number of items' }]
      : [],
  render: (d, ctx) => renderDigest(d, ctx, DIGEST_RENDERED_ITEMS),
});
