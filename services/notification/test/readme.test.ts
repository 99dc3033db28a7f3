// Every notification variable is documented with its default (decision S29): docs/reference/config-notification.md.
import { it } from 'node:test';
import { assertConfigReferenceDocuments } from '@domdao/test-helpers';
import { NotificationEnv } from '../src/config.ts';

it('docs/reference/config-notification.md documents every notification variable with its default', () =>
  assertConfigReferenceDocuments(NotificationEnv, 'notification', '## Notification service'));
