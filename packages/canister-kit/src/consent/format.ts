// How consent messages show values (decisions L36, L37): token amounts with the token's decimals,
// accounts in ICRC-1's textual form, times in UTC or the signer's offset, memos as UTF-8 or hex, and
// text from the caller's arguments made inert. Plain code with no host dependency, so the embedded
// core and the wasm build produce the same bytes.
import { BIDI_CONTROL_CLASS } from '../bidi.ts';
import { isDefaultSubaccount, type Account } from '../call.ts';

export { duration } from '../duration.ts';

const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';
const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function base32(bytes: Uint8Array): string {
  let out = '';
  let bits = 0;
  let value = 0;
  for (const b of bytes) {
    value = (value << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out;
}

/** A principal's bytes from its text (base32 of crc32 ‖ bytes, dash-grouped). */
export function principalBytes(text: string): Uint8Array {
  const chars = text.replace(/-/g, '');
  const out: number[] = [];
  let bits = 0;
  let value = 0;
  for (const ch of chars) {
    const v = BASE32.indexOf(ch);
    if (v < 0) throw new TypeError(`not a principal: ${text}`);
    value = ((value << 5) | v) & 0xffff;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Uint8Array.from(out.slice(4));
}

const hex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');

/** ICRC-1 "Textual encoding of accounts": the owner, or `owner-checksum.subaccount` (hex, leading zeros dropped). */
export function accountText(account: Account): string {
  if (isDefaultSubaccount(account.subaccount)) return account.owner;
  const sub = account.subaccount!;
  const owner = principalBytes(account.owner);
  const joined = new Uint8Array(owner.length + sub.length);
  joined.set(owner);
  joined.set(sub, owner.length);
  const c = crc32(joined);
  const checksum = base32(Uint8Array.from([c >>> 24, (c >>> 16) & 0xff, (c >>> 8) & 0xff, c & 0xff]));
  return `${account.owner}-${checksum}.${hex(sub).replace(/^0+/, '')}`;
}

/** `amount` of a token with `decimals` decimals: trailing zeros dropped (150000000, 8 → "1.5"). */
export function tokenAmount(amount: bigint, decimals: number): string {
  const scale = 10n ** BigInt(decimals);
  const whole = (amount / scale).toString();
  const frac = (amount % scale).toString().padStart(decimals, '0').replace(/0+$/, '');
  return frac ? `${whole}.${frac}` : whole;
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/** IC time (ns) as `YYYY-MM-DD hh:mm:ss UTC`, or shifted by the signer's offset and labelled `UTC+hh:mm`. */
export function timestamp(ns: bigint, utcOffsetMinutes = 0): string {
  const ms = Number(ns / 1_000_000n) + utcOffsetMinutes * 60_000;
  const d = new Date(ms);
  const date = `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
  const time = `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
  if (utcOffsetMinutes === 0) return `${date} ${time} UTC`;
  const abs = Math.abs(utcOffsetMinutes);
  return `${date} ${time} UTC${utcOffsetMinutes < 0 ? '-' : '+'}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}

/** Strict UTF-8 (no overlongs, surrogates or values past U+10FFFF), or undefined. */
export function utf8(bytes: Uint8Array): string | undefined {
  let out = '';
  for (let i = 0; i < bytes.length;) {
    const b = bytes[i]!;
    const need = b < 0x80 ? 0 : b >= 0xc2 && b < 0xe0 ? 1 : b >= 0xe0 && b < 0xf0 ? 2 : b >= 0xf0 && b < 0xf5 ? 3 : -1;
    if (need < 0 || i + need >= bytes.length) return undefined;
    let cp = need === 0 ? b : b & (0x3f >> need);
    for (let k = 1; k <= need; k++) {
      const c = bytes[i + k]!;
      if ((c & 0xc0) !== 0x80) return undefined;
      cp = (cp << 6) | (c & 0x3f);
    }
    if (
      (need === 2 && (cp < 0x800 || (cp >= 0xd800 && cp < 0xe000))) ||
      (need === 3 && (cp < 0x10000 || cp > 0x10ffff))
    )
      return undefined;
    out += String.fromCodePoint(cp);
    i += need + 1;
  }
  return out;
}

// Controls, bidirectional formatting characters (the web app's set, decision F41, U+061C included) and
// line separators could reorder or hide what a signer shows.
const UNSAFE = new RegExp(
  `[\\u0000-\\u001f\\u007f-\\u009f\\u200b-\\u200f\\u2028-\\u202e\\u2060-\\u206f\\ufeff${BIDI_CONTROL_CLASS}]`,
  'u',
);
const UNSAFE_ALL = new RegExp(UNSAFE.source, 'gu');

/** Text from the caller's arguments, one line: unsafe characters become spaces, runs of spaces one, at most `max` characters. */
export function inert(text: string, max = 200): string {
  // Only the start can be shown: a 50 000-character body is cut first (each character costs the wasm).
  let head = text.length > max * 4 ? text.slice(0, max * 4) : text;
  if (/[\ud800-\udbff]$/.test(head)) head = head.slice(0, -1);
  const flat = head.replace(UNSAFE_ALL, ' ').replace(/\s+/g, ' ').trim();
  const chars = Array.from(flat);
  return chars.length > max || head.length < text.length ? `${chars.slice(0, max - 1).join('')}…` : flat;
}

/** A memo: its UTF-8 text when it is printable text, else `0x` and its hex. */
export function memoText(memo: Uint8Array): string {
  const text = utf8(memo);
  return text !== undefined && !UNSAFE.test(text) && text.trim() === text && text.length > 0 ? text : `0x${hex(memo)}`;
}

/** Markdown code span of `text` that no backtick inside it can close (CommonMark: a longer fence). */
export function codeSpan(text: string): string {
  const longest = Math.max(0, ...Array.from(text.matchAll(/`+/g), (m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  return longest > 0 ? `${fence} ${text} ${fence}` : `${fence}${text}${fence}`;
}
