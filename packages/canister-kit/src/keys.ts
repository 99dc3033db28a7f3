// Store keys that sort correctly as strings (StableBTreeMap orders keys by their serialized bytes, so
// composite keys are fixed-width decimal numbers joined by a separator that sorts before any digit).
const U64_DIGITS = 20;

/** A nat64 as 20 decimal digits: string order equals numeric order. */
export function u64Key(n: bigint): string {
  if (n < 0n || n > 0xffff_ffff_ffff_ffffn) throw new RangeError('not a nat64');
  return n.toString().padStart(U64_DIGITS, '0');
}

/** `a|b|…`: every part but the last must be fixed-width or free of the separator. */
export function compositeKey(...parts: string[]): string {
  return parts.join('|');
}

/** Entries of a store whose string keys start with `prefix`, in key order, from `start` (inclusive) when given. */
export function* withPrefix<V>(
  entries: (from: string) => IterableIterator<[string, V]>,
  prefix: string,
  start = prefix,
): IterableIterator<[string, V]> {
  for (const entry of entries(start)) {
    if (!entry[0].startsWith(prefix)) return;
    yield entry;
  }
}
