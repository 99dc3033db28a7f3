import { templateSchemas } from '@domdao/notification-contract';
import { defineTemplate } from './template-schema.ts';

export const welcome = defineTemplate({
  type: 'welcome',
  brands: 'both',
  description: 'Greets a new user after sign-up.',
  schema: templateSchemas['welcome'],
  example: { user_name: 'Ada Lovelace', dashboard_url: 'https://app.domdao.example/dashboard' },
  render: (d, { brand }) => ({
    subject: `Welcome to ${brand.name}, ${d.user_name}`,
    preheader: `Your ${brand.name} account is ready.`,
    reason: `You received this email because an account was created for you at ${brand.name}.`,
    blocks: [
      { kind: 'heading', text: `Welcome, ${d.user_name}!` },
      { kind: 'paragraph', text: `Your ${brand.name} account is ready. We're glad to have you with us.` },
      ...(d.dashboard_url ? [{ kind: 'button' as const, label: 'Open your dashboard', url: d.dashboard_url }] : []),
      { kind: 'note', text: 'If you did not sign up, you can ignore this email or contact support.' },
    ],
  }),
});
