import { templateSchemas } from '@domdao/notification-contract';
import { formatDateTime } from '../rendering/format.ts';
import { defineTemplate } from './template-schema.ts';

export const passwordChanged = defineTemplate({
  type: 'password-changed',
  brands: 'both',
  description: 'Confirms a password change and points to the security page.',
  schema: templateSchemas['password-changed'],
  example: {
    recipient_name: 'Ada Lovelace',
    changed_at: '2026-11-22T09:30:00Z',
    security_url: 'https://app.domdao.example/settings/security',
    ip_hint: '203.0.113.x',
    device_hint: 'Firefox on Linux',
  },
  render: (d, { brand }) => ({
    subject: `Your ${brand.name} password was changed`,
    preheader: `Changed on ${formatDateTime(d.changed_at)}.`,
    reason: `You received this security notice about your ${brand.name} account.`,
    blocks: [
      { kind: 'heading', text: 'Your password was changed' },
      {
        kind: 'paragraph',
        text: `Hi ${d.recipient_name}, the password of your ${brand.name} account was just changed.`,
      },
      {
        kind: 'details',
        rows: [
          ['When', formatDateTime(d.changed_at)],
          ...(d.ip_hint ? [['Network', d.ip_hint] as [string, string]] : []),
          ...(d.device_hint ? [['Device', d.device_hint] as [string, string]] : []),
        ],
      },
      { kind: 'paragraph', text: 'If this was you, there is nothing to do. If not, secure your account now.' },
      { kind: 'button', label: 'Review account security', url: d.security_url },
    ],
  }),
});
