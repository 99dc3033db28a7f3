// Typed canister clients over a CandidTransport: the same interface as the in-process clients, with
// every argument encoded and every reply decoded by the canister's Candid method table.
import { IDL } from '@icp-sdk/core/candid';
import { Principal } from '@icp-sdk/core/principal';
import { fromCandid, toCandid, type MethodTable, type PrincipalCodec } from '@domdao/canister-kit/candid';
import { ledgerTypes, type GetBlocksResult } from '@domdao/canister-ledger';
import {
  CANISTERS,
  type BlocksCallbackQuery,
  type CanisterClients,
  type CanisterIds,
  type CanisterName,
} from '../api.ts';
import { METHOD_TABLES } from '../tables.ts';
import type { CandidTransport } from './transport.ts';

export const principalCodec: PrincipalCodec = {
  fromText: (t) => Principal.fromText(t),
  toText: (p) => (p as Principal).toText(),
};

export function encodeArgs(table: MethodTable, method: string, args: unknown[]): Uint8Array {
  const spec = table[method];
  if (!spec) throw new Error(`unknown method ${method}`);
  if (args.length !== spec.args.length)
    throw new TypeError(`${method} takes ${spec.args.length} argument(s), got ${args.length}`);
  return new Uint8Array(
    IDL.encode(
      spec.args,
      args.map((a, i) => toCandid(spec.args[i]!, a, principalCodec)),
    ),
  );
}

export function decodeReply(table: MethodTable, method: string, reply: Uint8Array): unknown {
  const spec = table[method]!;
  const [value] = IDL.decode([spec.ret], reply);
  return fromCandid(spec.ret, value, principalCodec);
}

export function candidClient(
  canister: CanisterName,
  canisterId: string,
  transport: CandidTransport,
): Record<string, (...args: unknown[]) => Promise<unknown>> {
  const table = METHOD_TABLES[canister];
  const out: Record<string, (...args: unknown[]) => Promise<unknown>> = {};
  for (const [method, spec] of Object.entries(table)) {
    out[method] = async (...args) => {
      // Optional trailing arguments may be left out, as with the in-process clients.
      const full = [...args, ...Array<unknown>(Math.max(0, spec.args.length - args.length)).fill(undefined)];
      const arg = encodeArgs(table, method, full);
      const reply =
        spec.kind === 'query'
          ? await transport.query(canisterId, method, arg)
          : await transport.update(canisterId, method, arg);
      return decodeReply(table, method, reply);
    };
  }
  return out;
}

export function candidClients(ids: CanisterIds, transport: CandidTransport): CanisterClients {
  return Object.fromEntries(
    CANISTERS.map((c) => [c, candidClient(c, ids[c], transport)]),
  ) as unknown as CanisterClients;
}

/** ICRC-3 callbacks over a transport: the ledger's GetBlocksArgs and GetBlocksResult, to any canister and query method (decision L43). */
export function blocksCallbackQuery(transport: CandidTransport): BlocksCallbackQuery {
  const { GetBlocksArgs, GetBlocksResult: Result } = ledgerTypes(IDL);
  return async ([canister, method], ranges) => {
    const arg = new Uint8Array(IDL.encode([GetBlocksArgs], [toCandid(GetBlocksArgs, ranges, principalCodec)]));
    const [value] = IDL.decode([Result], await transport.query(canister, method, arg));
    return fromCandid(Result, value, principalCodec) as GetBlocksResult;
  };
}
