// Every IC client variable is documented with its default (decision S29), in the bridge's reference.
import { it } from 'node:test';
import { assertConfigReferenceDocuments } from '@domdao/test-helpers';
import { IcEnv } from '../src/ic/index.ts';

it('docs/reference/config-bridge.md documents every IC_* variable with its default', () =>
  assertConfigReferenceDocuments(IcEnv, 'bridge', '## Canister clients on an IC network'));
