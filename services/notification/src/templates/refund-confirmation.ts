import { templateSchemas } from '@domdao/notification-contract';
import { formatDate, plural } from '../rendering/format.ts';
import { defineTemplate } from './template-schema.ts';

export const refundConfirmation = defineTemplate({
  type: 'refund-confirmation',
  brands: 'both',
  description: 'Sent by the payment gateway when a refund reaches a terminal state.',
  schema: templateSchemas['refund-confirmation'],
  example: {
    refund_id: 're_3Lk9',
    original_payment_id: 'pay_8J2kQ',
    amount_display: '$25.00',
    currency: 'USD',
    reason_label: 'Campaign cancelled',
    user_name: 'Ada Lovelace',
    refund_date: '2026-11-22',
    processing_days: 7,
    support_url: 'https://domdao.example/support/payments',
  },
  // processing_days 0: the refund is already credited (an on-chain refund, decision N23).
  render: (d, { brand }) => ({
    subject: `Refund of ${d.amount_display} ${d.currency} processed`,
    preheader:
      d.processing_days === 0
        ? 'It is already in your account.'
        : `Expect it within ${plural(d.processing_days, 'business day')}.`,
    reason: `You received this email about a refund from ${brand.name}.`,
    blocks: [
      { kind: 'heading', text: d.processing_days === 0 ? 'Your refund is complete' : 'Your refund is on its way' },
      {
        kind: 'paragraph',
        text:
          d.processing_days === 0
            ? `Hi ${d.user_name}, we have refunded ${d.amount_display} ${d.currency}. It is already in your account.`
            : `Hi ${d.user_name}, we have refunded ${d.amount_display} ${d.currency}. Depending on your bank it can take up to ${plural(d.processing_days, 'business day')} to appear.`,
      },
      {
        kind: 'details',
        rows: [
          ['Amount', `${d.amount_display} ${d.currency}`],
          ['Reason', d.reason_label],
          ['Refund date', formatDate(d.refund_date)],
          ['Refund ID', d.refund_id],
          ['Original payment', d.original_payment_id],
        ],
      },
      ...(d.support_url ? [{ kind: 'link' as const, label: 'Questions about this refund?', url: d.support_url }] : []),
    ],
  }),
});
