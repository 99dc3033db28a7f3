import { templateSchemas } from '@domdao/notification-contract';
import { formatDateTime } from '../rendering/format.ts';
import { defineTemplate } from './template-schema.ts';

export const parentalConsent = defineTemplate({
  type: 'parental-consent',
  brands: 'both',
  description: 'Asks a parent or guardian to consent to a minor’s account.',
  schema: templateSchemas['parental-consent'],
  example: {
    parent_name: 'Charles Babbage',
    minor_name: 'Ada',
    minor_email: 'ada@example.com',
    consent_url: 'https://app.domdao.example/consent/5e2b',
    consent_expires_at: '2026-11-29T10:00:00Z',
    platform_contact_email: 'privacy@domdao.example',
  },
  render: (d, { brand }) => ({
    subject: `${d.minor_name} needs your consent to join ${brand.name}`,
    preheader: `Please review by ${formatDateTime(d.consent_expires_at)}.`,
    reason: `You received this email because ${d.minor_email} named this address as a parent or guardian at ${brand.name}.`,
    blocks: [
      { kind: 'heading', text: 'Parental consent requested' },
      {
        kind: 'paragraph',
        text: `Hi ${d.parent_name}, ${d.minor_name} (${d.minor_email}) would like to use ${brand.name}. Because they are under 18, we need your consent first.`,
      },
      { kind: 'button', label: 'Review and give consent', url: d.consent_url },
      {
        kind: 'note',
        text: `This request expires on ${formatDateTime(d.consent_expires_at)}. Without consent the account stays limited.`,
      },
      { kind: 'note', text: `Questions or want the data removed? Write to ${d.platform_contact_email}.` },
    ],
  }),
});
