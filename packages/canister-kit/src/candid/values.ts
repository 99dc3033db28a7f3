// Candid values as @dfinity/candid (and Azle) represent them ⇄ the cores' TypeScript shapes:
//   opt T          [] | [v]              ⇄ undefined | v  (an absent record field when undefined)
//   principal      Principal object      ⇄ its text
//   enum variant   { Yes: null }         ⇄ 'Yes'          (a variant whose cases all carry null)
//   func           [Principal, method]   ⇄ [its text, method]
// Everything else keeps its shape. Driven by the IDL type through its visitor interface, so it works
// with any copy of the candid library (Azle bundles its own).
import type { IdlType } from './methods.ts';

export interface PrincipalCodec {
  fromText(text: string): unknown;
  toText(principal: unknown): string;
}

type Dir = 'to' | 'from';
type Fields = Array<[string, IdlType]>;
const same = (_t: unknown, d: unknown) => d;

function visitor(dir: Dir, principal: PrincipalCodec) {
  const conv = (ty: IdlType, d: unknown): unknown => ty.accept(v as never, d);
  const isNullType = (ty: IdlType) => ty.name === 'null';
  const v = {
    visitType: same,
    visitPrimitive: same,
    visitEmpty: same,
    visitBool: same,
    visitNull: () => null,
    visitReserved: same,
    visitText: same,
    visitNumber: same,
    visitInt: same,
    visitNat: same,
    visitFloat: same,
    visitFixedInt: same,
    visitFixedNat: same,
    visitConstruct: same,
    visitFunc: (_t: unknown, d: unknown) => {
      const [canister, method] = d as [unknown, string];
      return [dir === 'to' ? principal.fromText(canister as string) : principal.toText(canister), method];
    },
    visitService: same,
    visitPrincipal: (_t: unknown, d: unknown) => (dir === 'to' ? principal.fromText(d as string) : principal.toText(d)),
    visitVec: (_t: unknown, ty: IdlType, d: unknown) =>
      d instanceof Uint8Array ? d : (d as unknown[]).map((x) => conv(ty, x)),
    visitOpt: (_t: unknown, ty: IdlType, d: unknown) => {
      if (dir === 'to') return d === undefined || d === null ? [] : [conv(ty, d)];
      const arr = d as unknown[];
      return arr.length === 0 ? undefined : conv(ty, arr[0]);
    },
    visitRecord: (_t: unknown, fields: Fields, d: unknown) => {
      const src = d as Record<string, unknown>;
      const out: Record<string, unknown> = {};
      for (const [k, ty] of fields) {
        const x = conv(ty, src[k]);
        if (dir === 'to' || x !== undefined) out[k] = x;
      }
      return out;
    },
    visitTuple: (_t: unknown, components: IdlType[], d: unknown) =>
      components.map((ty, i) => conv(ty, (d as unknown[])[i])),
    visitVariant: (_t: unknown, fields: Fields, d: unknown) => {
      if (fields.every(([, ty]) => isNullType(ty))) {
        if (dir === 'to') return { [d as string]: null };
        return Object.keys(d as object)[0];
      }
      const [k, x] = Object.entries(d as Record<string, unknown>)[0] ?? [];
      const field = fields.find(([name]) => name === k);
      if (k === undefined || !field) throw new TypeError(`not a case of this variant: ${String(k)}`);
      return { [k]: conv(field[1], x) };
    },
    visitRec: (_t: unknown, ty: IdlType, d: unknown) => conv(ty, d),
  };
  return conv;
}

const cache = new WeakMap<PrincipalCodec, { to: ReturnType<typeof visitor>; from: ReturnType<typeof visitor> }>();
function converters(principal: PrincipalCodec) {
  let c = cache.get(principal);
  if (!c) cache.set(principal, (c = { to: visitor('to', principal), from: visitor('from', principal) }));
  return c;
}

/** A core value as the candid library expects it for `type`. */
export function toCandid(type: IdlType, value: unknown, principal: PrincipalCodec): unknown {
  return converters(principal).to(type, value);
}

/** A value decoded by the candid library as the core expects it. */
export function fromCandid(type: IdlType, value: unknown, principal: PrincipalCodec): unknown {
  return converters(principal).from(type, value);
}
