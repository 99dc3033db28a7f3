// The six canister cores on one EmbeddedHost, wired to each other the way the IC wires them: each
// inter-canister call is a query or an update call of the callee, made with the caller canister's principal.
import { randomBytes } from 'node:crypto';
import { IDL } from '@icp-sdk/core/candid';
import type { CallContext, CanisterCall, CanisterTimer, HostServices, StoreKey } from '@domdao/canister-kit';
import type { EmbeddedHost } from '@domdao/canister-kit/embedded';
import { CAMPAIGN_STORE_NAMES, campaignCore, campaignWiring, type CampaignStores } from '@domdao/canister-campaign';
import {
  GOVERNANCE_STORE_NAMES,
  governanceCore,
  governanceWiring,
  type GovernanceStores,
} from '@domdao/canister-governance';
import { LEDGER_STORE_NAMES, ledgerCore, ledgerWiring, type LedgerStores } from '@domdao/canister-ledger';
import {
  MEMBERSHIP_STORE_NAMES,
  membershipCore,
  membershipWiring,
  type MembershipStores,
} from '@domdao/canister-membership';
import { TREASURY_STORE_NAMES, treasuryCore, treasuryWiring, type TreasuryStores } from '@domdao/canister-treasury';
import { USER_STORE_NAMES, userCore, userWiring, type UserStores } from '@domdao/canister-user';
import type { CanisterIds, CanisterName } from '../api.ts';
import { METHOD_TABLES } from '../tables.ts';
import { copyValue } from './copy-value.ts';
import type { EmbeddedPlatformOptions } from './options.ts';

/** Each canister's wiring (canisters/<name>/wiring.ts), as its Azle entry point reads it; step order is this order. */
const WIRING = {
  governance: governanceWiring,
  membership: membershipWiring,
  user: userWiring,
  campaign: campaignWiring,
  treasury: treasuryWiring,
  ledger: ledgerWiring,
};
export type Cores = ReturnType<typeof wire>;
/** Every canister's timers, as the IC would arm them. */
export const TIMERS = (Object.keys(WIRING) as CanisterName[]).flatMap((canister) =>
  (WIRING[canister].timers as readonly CanisterTimer<unknown>[]).map((timer) => ({
    canister,
    timer,
    periodNs: BigInt(timer.every_seconds) * 1_000_000_000n,
  })),
);

function stores<T>(host: EmbeddedHost, canister: CanisterName, names: Record<keyof T, string>): T {
  return Object.fromEntries(
    Object.entries(names).map(([k, name]) => [k, host.store<StoreKey, unknown>(canister, name as string)]),
  ) as T;
}

/** The cores, each given its dependencies as its wiring declares them: each call runs as the callee's query or update. */
export function wire(
  host: EmbeddedHost,
  clock: () => bigint,
  ids: CanisterIds,
  {
    interceptCall: intercept,
    interceptReply,
    devVoting,
  }: Pick<EmbeddedPlatformOptions, 'interceptCall' | 'interceptReply' | 'devVoting'>,
) {
  const services: HostServices = { randomBytes: async () => new Uint8Array(randomBytes(16)), candid: IDL };
  // Calls resolve their callee when made, so a core may call one built after it (governance → treasury).
  const callFrom =
    (from: CanisterName): CanisterCall<CanisterName> =>
    async (to, method, ...args) => {
      const spec = METHOD_TABLES[to][method];
      const fn = (cores[to] as unknown as Record<string, (ctx: CallContext, ...a: unknown[]) => unknown>)[method];
      if (!spec || typeof fn !== 'function')
        throw new Error(`${from} calls ${to}.${method}, which is not in ${to}'s Candid interface`);
      // A call is a commit point, as on the IC: the caller's writes so far are kept whatever happens
      // after, a rejection of the call included (decision L10).
      host.commitPoint();
      intercept?.(from, to, method);
      const ctx: CallContext = { caller: ids[from], now: clock() };
      const reply = copyValue(
        spec.kind === 'query' ? host.query(to, () => fn(ctx, ...args)) : await host.update(to, () => fn(ctx, ...args)),
      );
      interceptReply?.(from, to, method);
      return reply as never;
    };
  const cores = {
    governance: governanceCore(stores<GovernanceStores>(host, 'governance', GOVERNANCE_STORE_NAMES), {
      ...governanceWiring.deps(callFrom('governance'), services),
      ...(devVoting && { devVoting }),
    }),
    membership: membershipCore(stores<MembershipStores>(host, 'membership', MEMBERSHIP_STORE_NAMES)),
    user: userCore(stores<UserStores>(host, 'user', USER_STORE_NAMES), userWiring.deps(callFrom('user'), services)),
    campaign: campaignCore(
      stores<CampaignStores>(host, 'campaign', CAMPAIGN_STORE_NAMES),
      campaignWiring.deps(callFrom('campaign'), services),
    ),
    treasury: treasuryCore(
      stores<TreasuryStores>(host, 'treasury', TREASURY_STORE_NAMES),
      treasuryWiring.deps(callFrom('treasury'), services),
    ),
    ledger: ledgerCore(
      stores<LedgerStores>(host, 'ledger', LEDGER_STORE_NAMES),
      ledgerWiring.deps(callFrom('ledger'), services),
      { self: () => ids.ledger },
    ),
  };
  return cores;
}
