// The user canister's core: accounts (accounts.ts), the mint retry queue (retry-queue.ts) and the
// operation ids that make the registrar's calls idempotent (operations.ts), one
// method table over one set of stores. Records, errors, stores and limits are in types.ts.
import { userAccess } from './access.ts';
import { accountMethods } from './accounts.ts';
import { idempotentOperations } from './operations.ts';
import { mintRetryQueue } from './retry-queue.ts';
import type { UserConfig, UserDeps, UserStores } from './types.ts';

export * from './types.ts';
export { uuidV4 } from './accounts.ts';
export { retryDelay } from './retry-queue.ts';
export { MAX_OPS, OP_RETENTION } from './operations.ts';

export function userCore(stores: UserStores, deps: UserDeps) {
  const access = userAccess(stores);
  const queue = mintRetryQueue(stores, deps, access);
  return {
    init(init: UserConfig): void {
      if (stores.config.has('config')) throw new Error('already initialised');
      stores.config.set('config', { registrars: [...init.registrars], admins: [...init.admins] });
    },
    ...accountMethods(stores, deps, access, queue, idempotentOperations(stores)),
    ...queue.methods,
  };
}

export type UserCore = ReturnType<typeof userCore>;
