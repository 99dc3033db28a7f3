import { templateSchemas } from '@domdao/notification-contract';
import { formatDate } from '../rendering/format.ts';
import { defineTemplate } from './template-schema.ts';

export const membershipConfirm = defineTemplate({
  type: 'membership-confirm',
  brands: 'dao',
  description: 'Confirms an activated DAO membership.',
  schema: templateSchemas['membership-confirm'],
  example: {
    member_name: 'Ada Lovelace',
    activated_at: '2026-11-22T10:00:00Z',
    expires_at: '2026-12-31T23:59:59Z',
    membership_tier: 'Active',
    dashboard_url: 'https://app.domdao.example/membership',
    sbt_token_id: '42',
  },
  check: (d) =>
    Date.parse(d.expires_at) <= Date.parse(d.activated_at)
      ? [{ field: 'data.expires_at', message: 'must be after activated_at' }]
      : [],
  render: (d, { brand }) => ({
    subject: `Your ${brand.name} membership is active`,
    preheader: `Active until ${formatDate(d.expires_at)}.`,
    reason: `You received this email because you became a member of ${brand.name}.`,
    blocks: [
      { kind: 'heading', text: 'Welcome aboard, member!' },
      { kind: 'paragraph', text: `Hi ${d.member_name}, your membership is active. You can now vote on proposals.` },
      {
        kind: 'details',
        rows: [
          ...(d.membership_tier ? [['Tier', d.membership_tier] as [string, string]] : []),
          ['Activated', formatDate(d.activated_at)],
          ['Valid until', formatDate(d.expires_at)],
          ...(d.sbt_token_id ? [['Membership token', `#${d.sbt_token_id}`] as [string, string]] : []),
        ],
      },
      ...(d.dashboard_url ? [{ kind: 'button' as const, label: 'Go to your membership', url: d.dashboard_url }] : []),
    ],
  }),
});
