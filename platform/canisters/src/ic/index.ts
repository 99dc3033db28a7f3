// The canister clients over the IC (`@domdao/canisters/ic`, S32): configuration, identity and the agent transport.
export { icCanisterIds, icClientsForIdentity, icClientsFromEnv, IcEnv, type IcConfig } from './env.ts';
export { blocksCallbackQuery, candidClient, candidClients, decodeReply, encodeArgs, principalCodec } from './client.ts';
export { identityFromPem } from './identity.ts';
export { agentTransport, CanisterCallError, type CandidTransport } from './transport.ts';
