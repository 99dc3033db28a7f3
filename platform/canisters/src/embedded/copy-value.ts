// Values crossing between canisters are copied, as Candid copies them between a caller and a canister.
/**
 * A copy of a value crossing between canisters, as `structuredClone` makes it (decision P7): plain
 * objects, arrays and Uint8Arrays are copied here, which for the small records of a call costs a
 * fraction of a structured clone; anything else (Map, Date, a class instance, a Buffer, a cycle or
 * very deep nesting) goes to structuredClone itself.
 */
export function copyValue<T>(value: T): T {
  if (value === null || typeof value !== 'object')
    return typeof value === 'function' || typeof value === 'symbol' ? structuredClone(value) : value;
  try {
    return copyObject(value, 0) as T;
  } catch (e) {
    if (e instanceof NotPlain) return structuredClone(value);
    throw e;
  }
}

class NotPlain extends Error {}

function copyObject(v: object, depth: number): unknown {
  if (depth > 32) throw new NotPlain();
  if (Array.isArray(v)) {
    if (Object.getPrototypeOf(v) !== Array.prototype) throw new NotPlain();
    const out = new Array<unknown>(v.length);
    for (let i = 0; i < v.length; i++) {
      if (!(i in v)) continue; // a hole stays a hole
      const x: unknown = v[i];
      out[i] = x === null || typeof x !== 'object' ? plain(x) : copyObject(x, depth + 1);
    }
    return out;
  }
  const proto = Object.getPrototypeOf(v) as unknown;
  if (proto === Uint8Array.prototype) return new Uint8Array(v as Uint8Array);
  if (proto !== Object.prototype && proto !== null) throw new NotPlain();
  const out: Record<string, unknown> = {};
  const o = v as Record<string, unknown>;
  for (const k of Object.keys(o)) {
    const x = o[k];
    // defineProperty: a key named __proto__ stays an own property, as structuredClone keeps it.
    const c = x === null || typeof x !== 'object' ? plain(x) : copyObject(x, depth + 1);
    if (k === '__proto__')
      Object.defineProperty(out, k, { value: c, writable: true, enumerable: true, configurable: true });
    else out[k] = c;
  }
  return out;
}

/** Primitives are copied as they are; functions and symbols cannot be (structuredClone's error). */
function plain(x: unknown): unknown {
  if (typeof x === 'function' || typeof x === 'symbol') throw new NotPlain();
  return x;
}
