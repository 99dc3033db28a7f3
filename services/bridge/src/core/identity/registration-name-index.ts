// Decision B106: admins find a member by the name given at registration, which stays sealed (HPKE, the
// bridge's key) at rest. The bridge keeps a keyed index of the name's words instead of the name: each
// word folded (NFKD, marks and case dropped) and HMAC-SHA-256'd under the blind-index key with its own
// label, 16 bytes each, in `users.name_index`. A search finds whole words (case and accents aside), as
// the email's blind index finds whole addresses; a database copy alone reads no name.
import { createHmac } from 'node:crypto';

/** At most this many words of one name are indexed (a registration name is at most 200 characters). */
export const NAME_INDEX_MAX_WORDS = 16;
const LABEL = 'domdao/registration-name-word/v1:';

/** The name's words as the index folds them: "José  O'Brien-Smith" → jose, o, brien, smith. */
export function nameWords(name: string): string[] {
  const folded = name.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase();
  return [...new Set(folded.split(/[^\p{L}\p{N}]+/u).filter((w) => w.length > 0))].slice(0, NAME_INDEX_MAX_WORDS);
}

/** The index entries of a name (or of a search's words); Buffers, which both database drivers send as bytea in an array. */
export function nameIndex(key: Uint8Array, name: string): Buffer[] {
  return nameWords(name).map((w) =>
    createHmac('sha256', key)
      .update(LABEL + w, 'utf8')
      .digest()
      .subarray(0, 16),
  );
}
