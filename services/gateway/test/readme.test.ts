// Every gateway variable is documented with its default (decision S29): docs/reference/config-gateway.md.
import { it } from 'node:test';
import { assertConfigReferenceDocuments } from '@domdao/test-helpers';
import { GatewayEnv } from '../src/config.ts';

it('docs/reference/config-gateway.md documents every gateway variable with its default', () =>
  assertConfigReferenceDocuments(GatewayEnv, 'gateway', '## Platform gateway'));
