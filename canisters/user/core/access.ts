// Who may call what on the user canister: the registrar (the bridge) and admins, from the init config.
import type { UserConfig, UserStores } from './types.ts';

export function userAccess(stores: Pick<UserStores, 'config'>) {
  const config = (): UserConfig => {
    const c = stores.config.get('config');
    if (!c) throw new Error('user canister not initialised');
    return c;
  };
  const isRegistrar = (p: string) => config().registrars.includes(p);
  return {
    isRegistrar,
    /** The registrar or an admin. */
    isStaff: (p: string) => isRegistrar(p) || config().admins.includes(p),
  };
}

export type UserAccess = ReturnType<typeof userAccess>;
