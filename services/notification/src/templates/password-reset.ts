import { templateSchemas } from '@domdao/notification-contract';
import { plural } from '../rendering/format.ts';
import { defineTemplate } from './template-schema.ts';

export const passwordReset = defineTemplate({
  type: 'password-reset',
  brands: 'both',
  description: 'Carries a password-reset link with a token.',
  schema: templateSchemas['password-reset'],
  example: {
    reset_link: 'https://app.domdao.example/reset?token=3f2a9c',
    user_name: 'Ada Lovelace',
    expires_minutes: 60,
  },
  render: (d, { brand }) => {
    const expires = plural(d.expires_minutes ?? 60, 'minute');
    return {
      subject: `Reset your ${brand.name} password`,
      preheader: `This link expires in ${expires}.`,
      reason: `You received this email because a password reset was requested for your ${brand.name} account.`,
      blocks: [
        { kind: 'heading', text: 'Reset your password' },
        {
          kind: 'paragraph',
          text: `Hi ${d.user_name}, we received a request to reset your password. The link below expires in ${expires}.`,
        },
        { kind: 'button', label: 'Choose a new password', url: d.reset_link },
        { kind: 'note', text: 'If you did not ask for this, ignore this email: your password stays the same.' },
      ],
    };
  },
});
