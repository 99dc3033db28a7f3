// Stub mode (spec 3 "Stub mode"): EMAIL_PROVIDER_API_KEY unset. Nothing is delivered; the send route
// logs email.stub_send instead of email.sent.
import { randomUUID } from 'node:crypto';
import type { EmailProvider } from './provider.ts';

export function stubProvider(): EmailProvider {
  return {
    name: 'stub',
    stub: true,
    send() {
      return { messageId: `stub_${randomUUID()}` };
    },
  };
}
