import { templateSchemas } from '@domdao/notification-contract';
import { defineTemplate } from './template-schema.ts';

export const treasuryMilestone = defineTemplate({
  type: 'treasury-milestone',
  brands: 'dao',
  description: 'Announces a treasury milestone payout with its transaction.',
  schema: templateSchemas['treasury-milestone'],
  example: {
    recipient_name: 'Ada Lovelace',
    milestone_title: 'Phase 1: community garden beds',
    amount: '1,250.00',
    currency: 'DOM',
    tx_hash: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
    dashboard_url: 'https://app.domdao.example/treasury',
  },
  render: (d, { brand }) => ({
    subject: `Milestone paid: ${d.milestone_title}`,
    preheader: `${d.amount} ${d.currency} released by the ${brand.name} treasury.`,
    reason: `You received this email because you take part in a ${brand.name} treasury milestone.`,
    blocks: [
      { kind: 'heading', text: 'Treasury milestone reached' },
      {
        kind: 'paragraph',
        text: `Hi ${d.recipient_name}, the milestone "${d.milestone_title}" has been paid out by the treasury.`,
      },
      {
        kind: 'details',
        rows: [
          ['Milestone', d.milestone_title],
          ['Amount', `${d.amount} ${d.currency}`],
          ['Transaction', d.tx_hash],
        ],
      },
      { kind: 'button', label: 'View in the treasury', url: d.dashboard_url },
    ],
  }),
});
