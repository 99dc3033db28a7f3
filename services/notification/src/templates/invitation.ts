import { templateSchemas } from '@domdao/notification-contract';
import { plural } from '../rendering/format.ts';
import { defineTemplate } from './template-schema.ts';

export const invitation = defineTemplate({
  type: 'invitation',
  brands: 'both',
  description: 'Invites someone to a workspace.',
  schema: templateSchemas['invitation'],
  example: {
    inviter_name: 'Grace Hopper',
    workspace_name: 'Treasury working group',
    invitation_link: 'https://app.domdao.example/invite/7d1c',
    expires_days: 7,
  },
  render: (d, { brand }) => ({
    subject: `${d.inviter_name} invited you to ${d.workspace_name}`,
    preheader: `Join ${d.workspace_name} on ${brand.name}.`,
    reason: `You received this email because ${d.inviter_name} invited this address on ${brand.name}.`,
    blocks: [
      { kind: 'heading', text: `Join ${d.workspace_name}` },
      {
        kind: 'paragraph',
        text: `${d.inviter_name} invited you to collaborate in ${d.workspace_name} on ${brand.name}.`,
      },
      { kind: 'button', label: 'Accept invitation', url: d.invitation_link },
      ...(d.expires_days !== undefined
        ? [{ kind: 'note' as const, text: `This invitation expires in ${plural(d.expires_days, 'day')}.` }]
        : []),
    ],
  }),
});
