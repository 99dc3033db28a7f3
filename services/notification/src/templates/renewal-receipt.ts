import { templateSchemas } from '@domdao/notification-contract';
import { formatDate } from '../rendering/format.ts';
import { defineTemplate } from './template-schema.ts';

export const renewalReceipt = defineTemplate({
  type: 'renewal-receipt',
  brands: 'dao',
  description: 'Receipt for a membership renewal.',
  schema: templateSchemas['renewal-receipt'],
  example: {
    member_name: 'Ada Lovelace',
    amount: '$120.00',
    payment_date: '2026-11-22T10:00:00Z',
    payment_id: 'pay_8J2kQ',
    expiration_date: '2027-12-31',
    receipt_number: 'R-2026-000123',
    currency: 'USD',
    payment_last4: '4242',
    dashboard_url: 'https://app.domdao.example/membership',
  },
  render: (d, { brand }) => ({
    subject: `Receipt ${d.receipt_number}: ${brand.name} membership renewed`,
    preheader: `${d.amount} ${d.currency ?? 'USD'}, valid until ${formatDate(d.expiration_date)}.`,
    reason: `You received this receipt for a payment to ${brand.name}. Keep it for your records.`,
    blocks: [
      { kind: 'heading', text: 'Membership renewed' },
      { kind: 'paragraph', text: `Thank you, ${d.member_name}. Your membership has been renewed.` },
      {
        kind: 'details',
        rows: [
          ['Receipt number', d.receipt_number],
          ['Amount', `${d.amount} ${d.currency ?? 'USD'}`],
          ['Payment date', formatDate(d.payment_date)],
          ...(d.payment_last4 ? [['Card', `ending in ${d.payment_last4}`] as [string, string]] : []),
          ['Payment ID', d.payment_id],
          ['Valid until', formatDate(d.expiration_date)],
        ],
      },
      ...(d.dashboard_url ? [{ kind: 'button' as const, label: 'View membership', url: d.dashboard_url }] : []),
    ],
  }),
});
