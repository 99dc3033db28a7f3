// The canister clients over the IC from the environment: the IC_* variables, the identity and the agent.
import { readFileSync } from 'node:fs';
import { HttpAgent, type Identity } from '@icp-sdk/core/agent';
import { Type, type Static } from '@sinclair/typebox';
import { Env, loadConfig } from '@domdao/config';
import type { BlocksCallbackQuery, CanisterClients, CanisterIds } from '../api.ts';
import { isPrincipalText } from '../principals.ts';
import { blocksCallbackQuery, candidClients } from './client.ts';
import { identityFromPem } from './identity.ts';
import { agentTransport } from './transport.ts';

export const IcEnv = Type.Object({
  IC_HOST: Env.string('IC API boundary node or local replica URL', 'https://icp-api.io'),
  IC_IDENTITY_PEM_FILE: Type.String({
    minLength: 1,
    description: 'PEM file of the identity the bridge calls canisters with (Ed25519 or secp256k1, as dfx writes them)',
  }),
  IC_FETCH_ROOT_KEY: Env.bool(false, 'fetch the root key from IC_HOST: only for a local replica, never on mainnet'),
  IC_GOVERNANCE_CANISTER_ID: Type.String({ minLength: 1, description: 'governance canister id' }),
  IC_MEMBERSHIP_CANISTER_ID: Type.String({ minLength: 1, description: 'membership canister id' }),
  IC_USER_CANISTER_ID: Type.String({ minLength: 1, description: 'user canister id' }),
  IC_CAMPAIGN_CANISTER_ID: Type.String({ minLength: 1, description: 'campaign canister id' }),
  IC_TREASURY_CANISTER_ID: Type.String({ minLength: 1, description: 'treasury canister id' }),
  IC_LEDGER_CANISTER_ID: Type.String({
    minLength: 1,
    description: "DOM ledger canister id (DFINITY's ICRC-1 ledger on IC networks)",
  }),
});
export type IcConfig = Static<typeof IcEnv>;

export function icCanisterIds(c: IcConfig): CanisterIds {
  const ids = {
    governance: c.IC_GOVERNANCE_CANISTER_ID,
    membership: c.IC_MEMBERSHIP_CANISTER_ID,
    user: c.IC_USER_CANISTER_ID,
    campaign: c.IC_CAMPAIGN_CANISTER_ID,
    treasury: c.IC_TREASURY_CANISTER_ID,
    ledger: c.IC_LEDGER_CANISTER_ID,
  };
  const bad = Object.entries(ids).filter(([, id]) => !isPrincipalText(id));
  if (bad.length) throw new Error(`not canister ids: ${bad.map(([n, id]) => `${n}=${id}`).join(', ')}`);
  return ids;
}

/** Clients for canisters on an IC network, from IC_* variables (validated; a bad value is a start-up error). */
export async function icClientsFromEnv(
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ clients: CanisterClients; ids: CanisterIds; principal: string; blocksCallback: BlocksCallbackQuery }> {
  const config = loadConfig(IcEnv, env);
  const ids = icCanisterIds(config);
  const identity = identityFromPem(readFileSync(config.IC_IDENTITY_PEM_FILE, 'utf8'));
  const agent = await HttpAgent.create({
    host: config.IC_HOST,
    identity,
    shouldFetchRootKey: config.IC_FETCH_ROOT_KEY,
  });
  const transport = agentTransport(agent);
  return {
    clients: candidClients(ids, transport),
    ids,
    principal: identity.getPrincipal().toText(),
    blocksCallback: blocksCallbackQuery(transport),
  };
}

/** Clients that sign with `identity` (a member's derived key, bridge decision V5): one agent per identity. */
export async function icClientsForIdentity(env: NodeJS.ProcessEnv, identity: Identity): Promise<CanisterClients> {
  const config = loadConfig(IcEnv, env);
  const agent = await HttpAgent.create({
    host: config.IC_HOST,
    identity,
    shouldFetchRootKey: config.IC_FETCH_ROOT_KEY,
  });
  return candidClients(icCanisterIds(config), agentTransport(agent));
}
