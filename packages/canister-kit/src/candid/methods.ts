// Each canister's Candid interface is written once, as a function of the IDL module, so the Azle entry
// point (which must use Azle's own copy of @dfinity/candid) and the IC agent client (@icp-sdk/core)
// build the same types from one source. `azle build` turns it into the .did committed beside the
// canister, and tests decode our encodings with that .did through an independent decoder (didc).
import type { IDL as CandidIDL } from '@icp-sdk/core/candid';

export type Idl = typeof CandidIDL;
export type IdlType = CandidIDL.Type;

export interface MethodSpec {
  kind: 'query' | 'update';
  args: IdlType[];
  ret: IdlType;
}

export type MethodTable = Record<string, MethodSpec>;

export const query = (args: IdlType[], ret: IdlType): MethodSpec => ({ kind: 'query', args, ret });
export const update = (args: IdlType[], ret: IdlType): MethodSpec => ({ kind: 'update', args, ret });

/** A Candid variant of empty cases, which the cores see as a string union ('Yes' | 'No' | …). */
export function enumVariant(I: Idl, names: readonly string[]): IdlType {
  return I.Variant(Object.fromEntries(names.map((n) => [n, I.Null])));
}

export function result(I: Idl, ok: IdlType, err: IdlType): IdlType {
  return I.Variant({ Ok: ok, Err: err });
}

/** The service of a method table, for Actor-style tools and for rendering the .did. */
export function service(I: Idl, table: MethodTable) {
  return I.Service(
    Object.fromEntries(
      Object.entries(table).map(([name, m]) => [
        name,
        I.Func(m.args as [IdlType], [m.ret], m.kind === 'query' ? ['query'] : []),
      ]),
    ),
  );
}
