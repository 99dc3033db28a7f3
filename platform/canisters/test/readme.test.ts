// The README documents every service's configuration (repo promise): the IC client variables too.
import { it } from 'node:test';
import { assertReadmeDocuments } from '@domdao/test-helpers';
import { IcEnv } from '../src/ic/index.ts';

it('README.md documents every IC_* variable with its default', () => assertReadmeDocuments(IcEnv, '### Canister clients on an IC network'));
