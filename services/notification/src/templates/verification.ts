import { templateSchemas } from '@domdao/notification-contract';
import { plural } from '../rendering/format.ts';
import type { Block } from '../rendering/blocks.ts';
import { defineTemplate } from './template-schema.ts';

export const verification = defineTemplate({
  type: 'verification',
  brands: 'both',
  description: 'Email verification by link, by code, or both (at least one).',
  schema: templateSchemas['verification'],
  example: {
    user_name: 'Ada Lovelace',
    verification_link: 'https://app.domdao.example/verify-email?token=0b6f3a8e-5c1d-4e2a-9f7b-2d4c6e8a0b1c',
    verification_code: '493027',
    expires_minutes: 1440,
  },
  check: (d) =>
    d.verification_link === undefined && d.verification_code === undefined
      ? [
          {
            field: 'data.verification_link',
            message: 'verification_link or verification_code is required (at least one)',
          },
        ]
      : [],
  render: (d, { brand }) => {
    const blocks: Block[] = [
      { kind: 'heading', text: 'Confirm your email address' },
      { kind: 'paragraph', text: `Hi ${d.user_name}, please confirm that this address belongs to you.` },
    ];
    if (d.verification_link) blocks.push({ kind: 'button', label: 'Verify email address', url: d.verification_link });
    if (d.verification_code) {
      blocks.push(
        { kind: 'paragraph', text: d.verification_link ? 'Or enter this code:' : 'Enter this code:' },
        { kind: 'code', text: d.verification_code },
      );
    }
    if (d.expires_minutes !== undefined)
      blocks.push({
        kind: 'note',
        text: `This ${d.verification_link ? 'link' : 'code'} expires in ${plural(d.expires_minutes, 'minute')}.`,
      });
    blocks.push({ kind: 'note', text: 'If you did not create an account, you can ignore this email.' });
    return {
      subject: d.verification_code
        ? `${d.verification_code} is your ${brand.name} verification code`
        : `Verify your email for ${brand.name}`,
      preheader: 'Confirm your email address to finish signing up.',
      reason: `You received this email because this address was used to sign up at ${brand.name}.`,
      blocks,
    };
  },
});
