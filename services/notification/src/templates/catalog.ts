// The catalog (spec 3 "Template catalog"): 13 transactional templates and 1 opt-in digest.
import type { templateSchemas, TemplateData, TemplateType } from '@domdao/notification-contract';
import type { TemplateDefinition } from './template-schema.ts';
import { e2eTestResults } from './e2e-test-results.ts';
import { eventReminder } from './event-reminder.ts';
import { invitation } from './invitation.ts';
import { membershipConfirm } from './membership-confirm.ts';
import { notificationDigest } from './notification-digest.ts';
import { parentalConsent } from './parental-consent.ts';
import { passwordChanged } from './password-changed.ts';
import { passwordReset } from './password-reset.ts';
import { paymentReceipt } from './payment-receipt.ts';
import { refundConfirmation } from './refund-confirmation.ts';
import { renewalReceipt } from './renewal-receipt.ts';
import { treasuryMilestone } from './treasury-milestone.ts';
import { verification } from './verification.ts';
import { welcome } from './welcome.ts';

export const templates = {
  welcome,
  'password-reset': passwordReset,
  'password-changed': passwordChanged,
  verification,
  invitation,
  'membership-confirm': membershipConfirm,
  'renewal-receipt': renewalReceipt,
  'payment-receipt': paymentReceipt,
  'refund-confirmation': refundConfirmation,
  'treasury-milestone': treasuryMilestone,
  'e2e-test-results': e2eTestResults,
  'parental-consent': parentalConsent,
  'event-reminder': eventReminder,
  'notification-digest': notificationDigest,
} as const satisfies { [K in TemplateType]: TemplateDefinition<(typeof templateSchemas)[K]> };

// The contract's types (decision S22): one definition for every type the contract names, on its schema.
export type { TemplateData, TemplateType };
