import { Type } from '@sinclair/typebox';
import { formatDate, formatDateTime } from '../rendering/format.ts';
import { currency } from './money.ts';
import { defineTemplate, field } from './template-schema.ts';

export const paymentReceipt = defineTemplate({
  type: 'payment-receipt',
  brands: 'both',
  description: 'Sent by the payment gateway on every pending to completed payment transition.',
  schema: Type.Object({
    payment_id: field.line(128),
    amount_display: field.line(64),
    currency: currency(),
    type_label: field.line(100),
    user_name: field.line(),
    payment_date: field.date(),
    support_url: field.opt(field.webUrl()),
    completed_at: field.opt(field.date()),
  }),
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
