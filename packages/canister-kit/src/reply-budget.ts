// Decision W6: list answers of records with long free text (proposal bodies up to 50,000
// characters, campaign descriptions up to 20,000) stay under the IC's limits, so a page may be
// shorter than its limit; the caller pages on from the last item, as always. One item is always
// answered. Two budgets:
// - the 2 MiB reply: the text a page carries stays under REPLY_TEXT_BUDGET, on every host;
// - the 5 billion instruction query limit, on a host that counts instructions (the IC): Azle 0.33
//   reads, decodes and Candid-encodes a record for ≈ 10 million instructions plus 50,000–80,000 per
//   byte of its text (the metered wasm: a list page grows by 0.135 billion per 2,700-character
//   proposal; get_proposal takes 3.9 billion with a 50,000-character body), so a page stops when
//   35 million per record plus 80,000 per byte would pass ANSWER_COST.total (3 of the 5 billion;
//   40 records of 220 characters measured 2.18 billion, one of 50,000 characters 4.46 billion).

/** UTF-8 bytes of the text a page may carry: 1.5 MiB, leaving the rest of the 2 MiB for the records' other fields. */
export const REPLY_TEXT_BUDGET = 1_536 * 1024;

/** UTF-8 length of `s` from its UTF-16 code units (no encoder: cheap on every host). */
export function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff) {
      n += 4; // a surrogate pair: one 4-byte character
      i++;
    } else n += 3;
  }
  return n;
}

/** The cost model of one answer on the IC (instructions; measured on Azle 0.33, see above). */
export const ANSWER_COST = { perItem: 35_000_000, perByte: 80_000, total: 3_000_000_000 } as const;
/** Stored bytes a metered answer may read (`EntriesOptions.maxStoredBytes`): what the cost model allows for text. */
export const ANSWER_STORED_BYTES = ANSWER_COST.total / ANSWER_COST.perByte;

/**
 * Takes items while the text they carry (`text(item)`) stays within the reply budget and, when
 * `metered` (the host counts instructions), while their estimated cost stays within ANSWER_COST.total;
 * at most `limit`, at least one.
 */
export function withinReplyBudget<T>(
  items: Iterable<T>,
  limit: number,
  text: (item: T) => string,
  options: { metered?: boolean; budget?: number } = {},
): T[] {
  const budget = options.budget ?? REPLY_TEXT_BUDGET;
  const out: T[] = [];
  let bytes = 0;
  let cost = 0;
  if (limit <= 0) return out;
  for (const item of items) {
    const size = utf8Length(text(item));
    const itemCost = options.metered ? ANSWER_COST.perItem + ANSWER_COST.perByte * size : 0;
    if (out.length > 0 && (bytes + size > budget || cost + itemCost > ANSWER_COST.total)) break;
    out.push(item);
    bytes += size;
    cost += itemCost;
    // Stop before asking for another item when none could fit: asking decodes it.
    if (out.length >= limit || (options.metered && cost + ANSWER_COST.perItem > ANSWER_COST.total)) break;
  }
  return out;
}
