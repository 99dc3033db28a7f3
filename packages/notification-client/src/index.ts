// The package's front door (decision S32): the caller side of the notification service.
export {
  createNotificationClient,
  notificationClientFromEnv,
  type NotificationClient,
  type NotificationClientOptions,
  type SendOptions,
  type SendOutcome,
  type SendRequest,
  type WarnLogger,
} from './client.ts';
export type { TemplateData, TemplateType } from '@domdao/notification-contract';
