// The log line of one committed update (decision P7): the same text as `encode({seq, ops})` of the
// state codec, written without JSON.stringify's replacer, which is called for every value and was the
// largest single cost of journaling a vote. Strings go through JSON.stringify (native quoting), numbers
// through String (JSON's own number form); anything that is not plain data (an object with toJSON, a
// class instance, a typed array other than Uint8Array) is handed to the codec's encode, so the text is
// the codec's in every case; property tests hold the two equal.
import { crc32 } from 'node:zlib';
import { encode } from '../codec.ts';
import type { Op } from './wal-types.ts';

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));
const quoted = new Map<string, string>();
/** Store names and record keys repeat: their quoted form is kept (bounded). */
function quote(s: string): string {
  let q = quoted.get(s);
  if (q === undefined) {
    q = JSON.stringify(s);
    if (quoted.size < 4096) quoted.set(s, q);
  }
  return q;
}

function bytes(b: Uint8Array): string {
  let hex = '';
  for (let i = 0; i < b.length; i++) hex += HEX[b[i]!];
  return `{"$b":"${hex}"}`;
}

/** A value inside an array or an object, or undefined where JSON leaves it out (undefined, functions, symbols). */
function value(v: unknown, depth: number): string | undefined {
  switch (typeof v) {
    case 'string':
      return JSON.stringify(v);
    case 'number':
      return Number.isFinite(v) ? String(v) : 'null';
    case 'boolean':
      return v ? 'true' : 'false';
    case 'bigint':
      return `{"$n":"${v.toString()}"}`;
    case 'object':
      return v === null ? 'null' : object(v, depth);
    default:
      return undefined;
  }
}

function object(v: object, depth: number): string | undefined {
  if (depth > 64) throw new TooDeep();
  if (Array.isArray(v)) {
    if (typeof (v as { toJSON?: unknown }).toJSON === 'function') return encode(v);
    let out = '[';
    for (let i = 0; i < v.length; i++) out += (i ? ',' : '') + (value(v[i], depth + 1) ?? 'null');
    return `${out}]`;
  }
  const proto = Object.getPrototypeOf(v) as unknown;
  if (proto === Uint8Array.prototype)
    return typeof (v as { toJSON?: unknown }).toJSON === 'function' ? encode(v) : bytes(v as Uint8Array);
  if ((proto !== Object.prototype && proto !== null) || typeof (v as { toJSON?: unknown }).toJSON === 'function')
    return encode(v);
  let out = '{';
  let first = true;
  const o = v as Record<string, unknown>;
  for (const k in o) {
    if (!Object.hasOwn(o, k)) continue;
    const e = value(o[k], depth + 1);
    if (e === undefined) continue;
    out += `${first ? '' : ','}${quote(k)}:${e}`;
    first = false;
  }
  return `${out}}`;
}

class TooDeep extends Error {}

/** `encode(value)` of the state codec, faster for plain data. */
export function encodeValue(v: unknown): string | undefined {
  try {
    return value(v, 0);
  } catch (e) {
    if (e instanceof TooDeep) return encode(v); // very deep or cyclic: the codec's own outcome
    throw e;
  }
}

/** One log line without its newline: exactly `encode({ seq, ops })`. */
export function encodeRecord(seq: number, ops: Op[]): string {
  let out = `{"seq":${seq},"ops":[`;
  for (let i = 0; i < ops.length; i++) {
    const op = ops[i]!;
    out += `${i ? ',' : ''}[${quote(op[0])},${encodeValue(op[1]) ?? 'null'}`;
    out += op.length === 3 ? `,${encodeValue(op[2]) ?? 'null'}]` : ']';
  }
  return `${out}]}`;
}

/**
 * One log line of format 2 (decision P10), without its newline:
 *   `L2 <CRC-32 of the rest, 8 lowercase hex digits> <seq>` then, per store the update wrote,
 *   a tab, the store's name as a JSON string, a tab, and the store's writes as a JSON array of
 *   `[key, value]` (a write) and `[key]` (a delete), in the codec's text.
 * JSON escapes every control character inside strings, so a raw tab only ever separates fields and a
 * line can be split per store at open without JSON.parse; the checksum finds damage at open.
 */
export function encodeLine(seq: number, ops: Op[]): string {
  const names: string[] = [];
  const bodies: string[] = [];
  for (let i = 0; i < ops.length; i++) {
    const op = ops[i]!;
    const write =
      op.length === 3
        ? `[${encodeValue(op[1]) ?? 'null'},${encodeValue(op[2]) ?? 'null'}]`
        : `[${encodeValue(op[1]) ?? 'null'}]`;
    const at = names.indexOf(op[0]);
    if (at < 0) {
      names.push(op[0]);
      bodies.push(write);
    } else bodies[at] += `,${write}`;
  }
  let rest = String(seq);
  for (let i = 0; i < names.length; i++) rest += `\t${quote(names[i]!)}\t[${bodies[i]}]`;
  return `L2 ${(crc32(rest) >>> 0).toString(16).padStart(8, '0')} ${rest}`;
}
