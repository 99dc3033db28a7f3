// The six canisters as the bridge sees them: one typed client per canister, with the same methods,
// argument and result types whichever implementation is behind it (in-process or IC agent). A client
// method is the core method without its CallContext (the caller is the client's identity, the time
// the host's) and always returns a promise, as a call to a canister does.
import type { CallContext } from '@domdao/canister-kit';
import type { CampaignCore } from '@domdao/canister-campaign';
import type { campaignMethods } from '@domdao/canister-campaign';
import type { GovernanceCore } from '@domdao/canister-governance';
import type { governanceMethods } from '@domdao/canister-governance';
import type { MembershipCore } from '@domdao/canister-membership';
import type { membershipMethods } from '@domdao/canister-membership';
import type { TreasuryCore } from '@domdao/canister-treasury';
import type { treasuryMethods } from '@domdao/canister-treasury';
import type { BlocksCallback, GetBlocksArgs, GetBlocksResult, LedgerCore } from '@domdao/canister-ledger';
import type { ledgerMethods } from '@domdao/canister-ledger';
import type { UserCore } from '@domdao/canister-user';
import type { userMethods } from '@domdao/canister-user';

type Method<Fn> = Fn extends (ctx: CallContext, ...args: infer A) => infer R
  ? (...args: A) => Promise<Awaited<R>>
  : never;
export type ClientOf<Core, Table> = { [K in keyof Table & keyof Core]: Method<Core[K]> };

export type GovernanceClient = ClientOf<GovernanceCore, ReturnType<typeof governanceMethods>>;
export type MembershipClient = ClientOf<MembershipCore, ReturnType<typeof membershipMethods>>;
export type UserClient = ClientOf<UserCore, ReturnType<typeof userMethods>>;
export type CampaignClient = ClientOf<CampaignCore, ReturnType<typeof campaignMethods>>;
export type TreasuryClient = ClientOf<TreasuryCore, ReturnType<typeof treasuryMethods>>;
/** The DOM ledger: the embedded core, or DFINITY's ICRC-1 ledger on an IC network (decision L1). */
export type LedgerClient = ClientOf<LedgerCore, ReturnType<typeof ledgerMethods>>;

export const CANISTERS = ['governance', 'membership', 'user', 'campaign', 'treasury', 'ledger'] as const;
export type CanisterName = (typeof CANISTERS)[number];

export interface CanisterClients {
  governance: GovernanceClient;
  membership: MembershipClient;
  user: UserClient;
  campaign: CampaignClient;
  treasury: TreasuryClient;
  ledger: LedgerClient;
}

export type CanisterIds = Record<CanisterName, string>;

/**
 * An ICRC-3 `archived_blocks` callback called with its ranges (decision L43): a query of the canister
 * and method the ledger named, whichever canister that is (an archive canister of DFINITY's ledger on an
 * IC network; the embedded ledger itself in archive mode).
 */
export type { BlocksCallback, GetBlocksArgs, GetBlocksResult };
export type BlocksCallbackQuery = (callback: BlocksCallback, ranges: GetBlocksArgs[]) => Promise<GetBlocksResult>;
