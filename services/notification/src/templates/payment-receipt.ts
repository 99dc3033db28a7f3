import { templateSchemas } from '@domdao/notification-contract';
import { formatDate, formatDateTime } from '../rendering/format.ts';
import { defineTemplate } from './template-schema.ts';

export const paymentReceipt = defineTemplate({
  type: 'payment-receipt',
  brands: 'both',
  description: 'Sent by the payment gateway on every pending to completed payment transition.',
  schema: templateSchemas['payment-receipt'],
  example: {
    payment_id: 'pay_8J2kQ',
    amount_display: '$25.00',
    currency: 'USD',
    type_label: 'Campaign contribution',
    user_name: 'Ada Lovelace',
    payment_date: '2026-11-22T10:00:00Z',
    support_url: 'https://domdao.example/support/payments',
  },
  render: (d, { brand }) => ({
    subject: `Payment received: ${d.amount_display} ${d.currency}`,
    preheader: `${d.type_label}, completed ${formatDate(d.completed_at ?? d.payment_date)}.`,
    reason: `You received this receipt for a payment to ${brand.name}. Keep it for your records.`,
    blocks: [
      { kind: 'heading', text: 'Payment received' },
      { kind: 'paragraph', text: `Thank you, ${d.user_name}. Your payment has completed.` },
      {
        kind: 'details',
        rows: [
          ['For', d.type_label],
          ['Amount', `${d.amount_display} ${d.currency}`],
          ['Payment date', formatDateTime(d.payment_date)],
          ['Completed', formatDateTime(d.completed_at ?? d.payment_date)],
          ['Payment ID', d.payment_id],
        ],
      },
      ...(d.support_url ? [{ kind: 'link' as const, label: 'Questions about this payment?', url: d.support_url }] : []),
    ],
  }),
});
