// What this feature uses of the bridge's shared parts, named so a reader (and the type checker) sees
// its reach (decision S19): buildApp passes the shared context, which satisfies it.
import type { BridgeConfig } from '../../config.ts';
import type { BridgeContext } from '../../core/context.ts';

export type RegistrationContext = Pick<
  BridgeContext,
  'db' | 'outbox' | 'audit' | 'throttle' | 'opener' | 'now' | 'keys' | 'passwords'
> & {
  config: Pick<BridgeConfig, 'REGISTRATION_LIMIT_PER_CLIENT' | 'EMAIL_LIMIT_PER_RECIPIENT' | 'BRAND_DAO_NAME'>;
};
