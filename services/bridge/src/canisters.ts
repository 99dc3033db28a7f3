// The canisters the bridge talks to (decision B14): on an IC network when IC_* is configured (the
// bridge's identity from IC_IDENTITY_PEM_FILE), otherwise the embedded platform under DATA_DIR with
// the bridge as registrar and trusted proposer.
import { join } from 'node:path';
import { principalFromSeed, type CanisterClients } from '@domdao/canisters';
import { EmbeddedPlatform, type EmbeddedPlatformOptions } from '@domdao/canisters/embedded';
import type { Identity } from '@icp-sdk/core/agent';
import { icClientsForIdentity, icClientsFromEnv } from '@domdao/canisters/ic';

export const EMBEDDED_BRIDGE_PRINCIPAL = principalFromSeed('domdao-bridge');

export interface OpenedCanisters {
  clients: CanisterClients;
  mode: 'ic' | 'embedded';
  principal: string;
  platform?: EmbeddedPlatform;
  /** IC mode: clients signing with another identity (a member's derived key, decision V5). */
  forIdentity?(identity: Identity): Promise<CanisterClients>;
  close(): void;
}

export async function openCanisters(env: NodeJS.ProcessEnv, dataDir: string | undefined, options: { clock?: () => bigint; scheduler?: boolean; interceptCall?: EmbeddedPlatformOptions['interceptCall'] } = {}): Promise<OpenedCanisters> {
  if (env.IC_GOVERNANCE_CANISTER_ID) {
    const ic = await icClientsFromEnv(env);
    return { clients: ic.clients, mode: 'ic', principal: ic.principal, forIdentity: (identity) => icClientsForIdentity(env, identity), close: () => undefined };
  }
  const platform = await EmbeddedPlatform.open({
    ...(dataDir !== undefined && { dir: join(dataDir, 'canisters') }),
    registrars: [EMBEDDED_BRIDGE_PRINCIPAL],
    trustedProposers: [EMBEDDED_BRIDGE_PRINCIPAL],
    ...(options.clock && { clock: options.clock }),
    ...(options.scheduler !== undefined && { scheduler: options.scheduler }),
    ...(options.interceptCall && { interceptCall: options.interceptCall }),
  });
  return { clients: platform.as(EMBEDDED_BRIDGE_PRINCIPAL), mode: 'embedded', principal: EMBEDDED_BRIDGE_PRINCIPAL, platform, close: () => platform.close() };
}
