// The canister half of `npm run migrate`: the embedded canisters' state (DATA_DIR/canisters) into the
// deployed IC canisters: where they are, from the IC_* settings `npm run deploy` writes.
import { existsSync, readFileSync } from 'node:fs';
import { loadConfig, ConfigError } from '@domdao/config';
import { icCanisterIds, IcEnv } from '@domdao/canisters/ic';
import type { IcTarget } from '@domdao/canisters/state-transfer';
import { icCanisterSet, type CanisterSet } from '../../services/bridge/src/core/canister-set/identity.ts';
import { Refusal } from './refusal.ts';

export const IC_SETTINGS = [
  'IC_HOST',
  'IC_IDENTITY_PEM_FILE',
  'IC_FETCH_ROOT_KEY',
  'IC_GOVERNANCE_CANISTER_ID',
  'IC_MEMBERSHIP_CANISTER_ID',
  'IC_USER_CANISTER_ID',
  'IC_CAMPAIGN_CANISTER_ID',
  'IC_TREASURY_CANISTER_ID',
  'IC_LEDGER_CANISTER_ID',
] as const;

/** The deployed canisters named by the IC_* settings (`npm run deploy -- --out FILE` writes them), or a refusal naming what is missing. */
export function icTargetFromEnv(env: NodeJS.ProcessEnv): { target: IcTarget; set: CanisterSet } {
  const missing = IC_SETTINGS.filter((k) => !env[k]);
  if (missing.length > 0)
    throw new Refusal(
      `the IC_* settings of the deployed canisters are missing (${missing.join(', ')}): deploy with npm run deploy -- --out FILE and run the migration with FILE's settings in the environment`,
    );
  let config;
  try {
    config = loadConfig(IcEnv, env);
    icCanisterIds(config);
  } catch (e) {
    throw new Refusal(
      `the IC_* settings are not valid: ${e instanceof ConfigError ? e.problems.join('; ') : (e as Error).message}`,
    );
  }
  if (!existsSync(config.IC_IDENTITY_PEM_FILE))
    throw new Refusal(
      `IC_IDENTITY_PEM_FILE ${config.IC_IDENTITY_PEM_FILE} does not exist: give the controller identity the canisters were deployed with`,
    );
  return {
    target: {
      host: config.IC_HOST,
      identityPem: readFileSync(config.IC_IDENTITY_PEM_FILE, 'utf8'),
      fetchRootKey: config.IC_FETCH_ROOT_KEY,
      canisterIds: icCanisterIds(config),
    },
    set: icCanisterSet(env),
  };
}
