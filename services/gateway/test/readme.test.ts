// The README documents the gateway's configuration (repo promise); this keeps it true.
import { it } from 'node:test';
import { assertReadmeDocuments } from '@domdao/test-helpers';
import { GatewayEnv } from '../src/config.ts';

it('README.md documents every gateway variable with its default', () => assertReadmeDocuments(GatewayEnv, '### Platform gateway'));
