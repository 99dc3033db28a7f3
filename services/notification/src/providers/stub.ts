// Stub mode (spec 3 "Stub mode"): EMAIL_PROVIDER_API_KEY unset. Nothing is delivered.
import { randomUUID } from 'node:crypto';
import type { EmailProvider } from './provider.ts';

export function stubProvider(): EmailProvider {
  return {
    name: 'stub',
    stub: true,
    async send(message, { log }) {
      const messageId = `stub_${randomUUID()}`;
      log.info(
        { event: 'email.stub_send', message_id: messageId, template: message.type, brand: message.brand, attachment_count: message.attachments.length },
        'stub mode: email not delivered',
      );
      return { messageId };
    },
  };
}
