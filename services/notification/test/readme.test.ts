// The README documents every service's configuration (repo promise); this keeps it true.
import { it } from 'node:test';
import { assertReadmeDocuments } from '@domdao/test-helpers';
import { NotificationEnv } from '../src/config.ts';

it('README.md documents every notification variable with its default', () => assertReadmeDocuments(NotificationEnv, '### Notification service'));
