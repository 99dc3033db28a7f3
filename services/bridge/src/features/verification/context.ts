// What this feature uses of the bridge's shared parts, named so a reader (and the type checker) sees
// its reach (decision S19): buildApp passes the shared context, which satisfies it.
import type { BridgeConfig } from '../../config.ts';
import type { BridgeContext } from '../../core/context.ts';

export type VerificationContext = Pick<
  BridgeContext,
  | 'db'
  | 'outbox'
  | 'audit'
  | 'throttle'
  | 'opener'
  | 'now'
  | 'sessions'
  | 'notifier'
  | 'passwords'
  | 'keys'
  | 'frontendOrigins'
> & {
  config: Pick<
    BridgeConfig,
    | 'PUBLIC_URL'
    | 'FRONTEND_ORIGINS'
    | 'LOGIN_WINDOW_MINUTES'
    | 'LOGIN_MAX_FAILURES'
    | 'EMAIL_BRAND_DOMAIN'
    | 'BOOTSTRAP_ADMIN_EMAILS'
    | 'COOKIE_DOMAIN'
    | 'SESSION_ABSOLUTE_HOURS'
    | 'BRAND_DAO_NAME'
  >;
};
