// What this feature uses of the bridge's shared parts, named so a reader (and the type checker) sees
// its reach (decision S19): buildApp passes the shared context, which satisfies it.
import type { BridgeConfig } from '../../config.ts';
import type { BridgeContext } from '../../core/context.ts';

export type PaymentsContext = Pick<BridgeContext, 'db' | 'outbox' | 'audit' | 'now' | 'canisters' | 'events'> & {
  config: Pick<
    BridgeConfig,
    | 'PAYMENT_WEBHOOK_SECRET'
    | 'MEMBERSHIP_PRICE_MINOR'
    | 'MEMBERSHIP_PRICE_CURRENCY'
    | 'DEV_CHECKOUT'
    | 'PAYMENT_WEBHOOK_TOLERANCE_SECONDS'
  >;
};
