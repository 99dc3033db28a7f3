// Each canister's method table built with @icp-sdk/core's IDL: what the IC clients encode with and
// what the in-process clients expose.
import { IDL } from '@icp-sdk/core/candid';
import type { MethodTable } from '@domdao/canister-kit/candid';
import { campaignMethods } from '@domdao/canister-campaign';
import { governanceMethods } from '@domdao/canister-governance';
import { ledgerMethods } from '@domdao/canister-ledger';
import { membershipMethods } from '@domdao/canister-membership';
import { treasuryMethods } from '@domdao/canister-treasury';
import { userMethods } from '@domdao/canister-user';
import type { CanisterName } from './api.ts';

export const METHOD_TABLES: Record<CanisterName, MethodTable> = {
  governance: governanceMethods(IDL),
  membership: membershipMethods(IDL),
  user: userMethods(IDL),
  campaign: campaignMethods(IDL),
  treasury: treasuryMethods(IDL),
  ledger: ledgerMethods(IDL),
};
