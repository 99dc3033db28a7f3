// The canisters the bridge talks to (decision B14): on an IC network when IC_* is configured (the
// bridge's identity from IC_IDENTITY_PEM_FILE), otherwise the embedded platform under DATA_DIR with
// the bridge as registrar and trusted proposer.
import { join } from 'node:path';
import {
  EMBEDDED_CANISTER_IDS,
  principalFromSeed,
  type BlocksCallbackQuery,
  type CanisterClients,
  type CanisterIds,
} from '@domdao/canisters';
import { EmbeddedPlatform, type EmbeddedPlatformOptions } from '@domdao/canisters/embedded';
import type { Identity } from '@icp-sdk/core/agent';
import { icClientsForIdentity, icClientsFromEnv } from '@domdao/canisters/ic';
import { ConfigError } from '@domdao/config';
import type { BridgeConfig } from '../config.ts';
import type { CanisterSet } from '../core/canister-set/identity.ts';

export const EMBEDDED_BRIDGE_PRINCIPAL = principalFromSeed('domdao-bridge');
const NS_PER_MINUTE = 60_000_000_000n;

export interface OpenedCanisters {
  clients: CanisterClients;
  mode: 'ic' | 'embedded';
  /** The canisters' principals (the campaign canister is the spender members approve). */
  ids: CanisterIds;
  /** The canister set these are (decision B100): what the database's rows are bound to. */
  set: CanisterSet;
  principal: string;
  platform?: EmbeddedPlatform;
  /** ICRC-3 archive callbacks, called as the bridge (decision B104). */
  blocksCallback: BlocksCallbackQuery;
  /** IC mode: clients signing with another identity (a member's derived key, decision V5). */
  forIdentity?(identity: Identity): Promise<CanisterClients>;
  close(): void;
}

export async function openCanisters(
  env: NodeJS.ProcessEnv,
  dataDir: string | undefined,
  set: CanisterSet,
  options: {
    fsync?: boolean;
    clock?: () => bigint;
    scheduler?: boolean;
    interceptCall?: EmbeddedPlatformOptions['interceptCall'];
    treasuryDom?: number;
    /** Decision G45: development voting times in minutes (0 or absent: the governance settings). */
    devVotingMinutes?: number;
    /** Tests only: the embedded ledger in archive mode on first open (decision L43). */
    ledgerArchive?: { localBlocks: bigint };
  } = {},
): Promise<OpenedCanisters> {
  if (env.IC_GOVERNANCE_CANISTER_ID) {
    const ic = await icClientsFromEnv(env);
    return {
      clients: ic.clients,
      mode: 'ic',
      ids: ic.ids,
      set,
      principal: ic.principal,
      blocksCallback: ic.blocksCallback,
      forIdentity: (identity) => icClientsForIdentity(env, identity),
      close: () => undefined,
    };
  }
  const platform = await EmbeddedPlatform.open({
    ...(dataDir !== undefined && { dir: join(dataDir, 'canisters') }),
    ...(options.fsync !== undefined && { fsync: options.fsync }),
    registrars: [EMBEDDED_BRIDGE_PRINCIPAL],
    trustedProposers: [EMBEDDED_BRIDGE_PRINCIPAL],
    // Decision V22: list_votes is governance-admin only; the bridge reads it for platform admins.
    governanceAdmins: [EMBEDDED_BRIDGE_PRINCIPAL],
    ...(options.clock && { clock: options.clock }),
    ...(options.scheduler !== undefined && { scheduler: options.scheduler }),
    ...(options.interceptCall && { interceptCall: options.interceptCall }),
    // The ledger's initial distribution, on first open only (decision L6).
    ledger: {
      ...(options.treasuryDom && {
        initialBalances: [[{ owner: EMBEDDED_CANISTER_IDS.treasury }, BigInt(options.treasuryDom) * 100_000_000n]],
      }),
      ...(options.ledgerArchive && { archive: options.ledgerArchive }),
    },
    ...(options.devVotingMinutes && {
      devVoting: { delay: NS_PER_MINUTE, window: BigInt(options.devVotingMinutes) * NS_PER_MINUTE },
    }),
  });
  return {
    clients: platform.as(EMBEDDED_BRIDGE_PRINCIPAL),
    mode: 'embedded',
    ids: platform.ids,
    set,
    principal: EMBEDDED_BRIDGE_PRINCIPAL,
    platform,
    blocksCallback: platform.blocksCallback(EMBEDDED_BRIDGE_PRINCIPAL),
    close: () => platform.close(),
  };
}

/** On an IC network (openCanisters' rule) the development options have no canister to act on: refused at start. */
export function refuseDevOptionsOnIc(
  config: Pick<BridgeConfig, 'DEV_FAUCET_DOM' | 'DEV_VOTING_MINUTES'>,
  env: NodeJS.ProcessEnv,
): void {
  if (!env.IC_GOVERNANCE_CANISTER_ID) return;
  const problems = [
    ...(config.DEV_FAUCET_DOM > 0
      ? ['DEV_FAUCET_DOM: the faucet mints on the embedded ledger only; on an IC network only governance can mint']
      : []),
    ...(config.DEV_VOTING_MINUTES > 0
      ? [
          'DEV_VOTING_MINUTES: the embedded canisters only; on an IC network the voting times are the governance settings',
        ]
      : []),
  ];
  if (problems.length) throw new ConfigError(problems);
}
