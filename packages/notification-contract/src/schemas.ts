// The data each template type takes (spec 3 "Template catalog"): the contract between the notification
// service, which validates and renders it, and its callers (@domdao/notification-client), decision S22.
import { Type, type Static } from '@sinclair/typebox';
import { field } from './fields.ts';
import { currency } from './money.ts';

export const templateSchemas = {
  welcome: Type.Object({ user_name: field.line(), dashboard_url: field.opt(field.webUrl()) }),
  'password-reset': Type.Object({
    reset_link: field.httpsUrl(),
    user_name: field.line(),
    expires_minutes: Type.Optional(Type.Integer({ minimum: 1, maximum: 10080, default: 60 })),
  }),
  'password-changed': Type.Object({
    recipient_name: field.line(),
    changed_at: field.dateTime(),
    security_url: field.webUrl(),
    ip_hint: field.opt(field.line(64)),
    device_hint: field.opt(field.line(200)),
  }),
  verification: Type.Object({
    user_name: field.line(),
    verification_link: field.opt(field.webUrl()),
    verification_code: field.opt(
      Type.String({ pattern: '^[\\x21-\\x7E]{6,8}$', 'x-message': '6 to 8 visible ASCII characters' }),
    ),
    expires_minutes: field.opt(field.positive(10080)),
  }),
  invitation: Type.Object({
    inviter_name: field.line(),
    workspace_name: field.line(),
    invitation_link: field.httpsUrl(),
    expires_days: field.opt(field.positive(365)),
  }),
  'membership-confirm': Type.Object({
    member_name: field.line(),
    activated_at: field.date(),
    expires_at: field.date(),
    membership_tier: field.opt(field.line(64)),
    dashboard_url: field.opt(field.webUrl()),
    sbt_token_id: field.opt(field.line(64)),
  }),
  'renewal-receipt': Type.Object({
    member_name: field.line(),
    amount: field.line(64),
    payment_date: field.date(),
    payment_id: field.line(128),
    expiration_date: field.date(),
    receipt_number: field.line(128),
    currency: Type.Optional(currency({ default: 'USD' })),
    payment_last4: field.opt(Type.String({ pattern: '^[0-9]{4}$', 'x-message': 'exactly 4 digits' })),
    dashboard_url: field.opt(field.webUrl()),
  }),
  'payment-receipt': Type.Object({
    payment_id: field.line(128),
    amount_display: field.line(64),
    currency: currency(),
    type_label: field.line(100),
    user_name: field.line(),
    payment_date: field.date(),
    support_url: field.opt(field.webUrl()),
    completed_at: field.opt(field.date()),
  }),
  'refund-confirmation': Type.Object({
    refund_id: field.line(128),
    original_payment_id: field.line(128),
    amount_display: field.line(64),
    currency: currency(),
    reason_label: field.line(200),
    user_name: field.line(),
    refund_date: field.date(),
    processing_days: Type.Integer({ minimum: 0, maximum: 365 }),
    support_url: field.opt(field.webUrl()),
  }),
  'treasury-milestone': Type.Object({
    recipient_name: field.line(),
    milestone_title: field.line(200),
    amount: field.line(64),
    currency: currency(),
    tx_hash: field.line(200),
    dashboard_url: field.webUrl(),
  }),
  'e2e-test-results': Type.Object({
    run_id: field.line(128),
    pass_count: field.count(),
    fail_count: field.count(),
    total: field.count(),
    run_url: field.webUrl(),
    suite_results: field.opt(
      Type.Array(
        Type.Object({
          suite: field.line(200),
          pass: field.count(),
          fail: field.count(),
          url: field.opt(field.webUrl()),
        }),
        { maxItems: 200 },
      ),
    ),
  }),
  'parental-consent': Type.Object({
    parent_name: field.line(),
    minor_name: field.line(),
    minor_email: field.email(),
    consent_url: field.httpsUrl(),
    consent_expires_at: field.date(),
    platform_contact_email: field.email(),
  }),
  'event-reminder': Type.Object({
    recipient_name: field.line(),
    event_id: field.line(255),
    event_title: field.line(200),
    start_time: field.dateTime(),
    end_time: field.dateTime(),
    window_label: field.enumOf(['24h', '1h'] as const),
    event_description: field.opt(field.text(5000)),
    event_location: field.opt(field.line(500)),
    event_url: field.opt(field.webUrl()),
    organizer_name: field.opt(field.line(200)),
    organizer_email: field.opt(field.email()),
    preferences_url: field.opt(field.webUrl()),
  }),
  'notification-digest': Type.Object({
    recipient_name: field.line(),
    digest_frequency: field.enumOf(['daily', 'weekly'] as const),
    items: Type.Array(
      Type.Object({
        title: field.line(200),
        body: field.opt(field.text(500)),
        deep_link: field.opt(field.httpsUrl()),
        created_at: field.date(),
        category: field.opt(field.line(32)),
      }),
      { minItems: 1, maxItems: 50 },
    ),
    total_count: field.count(),
    unsubscribe_url: field.httpsUrl(),
    inbox_url: field.opt(field.webUrl()),
  }),
} as const;

export type TemplateType = keyof typeof templateSchemas;
/** What callers put in `data` for each type (optional fields with defaults stay optional). */
export type TemplateData = { [K in TemplateType]: Static<(typeof templateSchemas)[K]> };
