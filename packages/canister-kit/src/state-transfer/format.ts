// The one form of a canister's state in transit (decision K23): every store as its entries in key
// order, each key and value as the codec's JSON text (../codec.ts, what both hosts already store), so
// an export read from the embedded host, from a deployed canister or from a file is the same text.
// A store's checksum is the CRC-32 (IEEE) of the UTF-8 bytes of `key \n value \n` for each entry in
// order: cheap enough for QuickJS to keep per chunk inside the canister, and what zlib.crc32 computes.

/** Bumped when the form of an export or the transfer's methods change. */
export const STATE_FORMAT = 1;
/** One import chunk holds at most this many entries, and this many characters of key and value text (decision W22). */
export const MAX_CHUNK_ENTRIES = 500;
export const MAX_CHUNK_CHARS = 1_000_000;
/** One export page holds at most this many entries, and stops after this many characters (the reply stays far below 2 MiB). */
export const MAX_EXPORT_ENTRIES = 500;
export const EXPORT_PAGE_CHARS = 1_000_000;
/**
 * Where the host counts instructions (the IC), an export page also stops before its message would pass
 * this many (decision W33): the IC stops a query at 5 billion, and a page of 500 accounts cost about
 * 10.9 billion (≈ 21.8 million an account, docs/ic-cost.md, W32). What a page will cost is the
 * instructions used so far (the counter) plus the Candid encoding of its reply, which runs after the
 * page is made, so the counter cannot see it: EXPORT_REPLY_COST_PER_BYTE a byte of key and value text.
 * As W6's ANSWER_COST.total, 3 of the 5 billion, leaving room for the model's error.
 */
export const EXPORT_INSTRUCTION_BUDGET = 3_000_000_000n;
/**
 * Instructions Azle 0.33 spends Candid-encoding a byte of the reply's text (its TextEncoder in QuickJS,
 * W17): measured on the metered wasm, a page of 761-character accounts costs 30.6 M an entry, of which
 * the loop that makes the page 1.9 M (≈ 37,700 a byte for the rest).
 */
export const EXPORT_REPLY_COST_PER_BYTE = 40_000n;

/** A store's entry in transit: the codec's JSON of its key and of its value. */
export type EntryText = [key: string, value: string];

/** A canister's state version: the transfer's format and its store list in memory-id order (decision K23). */
export function stateVersion(storeNames: readonly string[]): string {
  return `${STATE_FORMAT}:${storeNames.join(',')}`;
}

const TABLE = (() => {
  const t = new Int32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c;
  }
  return t;
})();

/** Continues a CRC-32 (as zlib.crc32(data, crc)) over the UTF-8 bytes of `text`, without making the bytes. */
export function crc32Text(crc: number, text: string): number {
  let c = ~crc;
  const byte = (b: number) => {
    c = TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  };
  for (let i = 0; i < text.length; i++) {
    let u = text.charCodeAt(i);
    if (u < 0x80) {
      byte(u);
      continue;
    }
    if (u >= 0xd800 && u < 0xdc00 && i + 1 < text.length) {
      const low = text.charCodeAt(i + 1);
      if (low >= 0xdc00 && low < 0xe000) {
        u = 0x10000 + ((u - 0xd800) << 10) + (low - 0xdc00);
        i++;
      } else u = 0xfffd;
    } else if (u >= 0xd800 && u < 0xe000) u = 0xfffd; // a lone surrogate, as TextEncoder writes it
    if (u < 0x800) {
      byte(0xc0 | (u >> 6));
    } else if (u < 0x10000) {
      byte(0xe0 | (u >> 12));
      byte(0x80 | ((u >> 6) & 0x3f));
    } else {
      byte(0xf0 | (u >> 18));
      byte(0x80 | ((u >> 12) & 0x3f));
      byte(0x80 | ((u >> 6) & 0x3f));
    }
    if (u >= 0x80) byte(0x80 | (u & 0x3f));
  }
  return ~c >>> 0;
}

/** The checksum after one more entry. */
export function crc32Entry(crc: number, [key, value]: EntryText): number {
  return crc32Text(crc32Text(crc32Text(crc32Text(crc, key), '\n'), value), '\n');
}
