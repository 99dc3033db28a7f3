// What a chosen display name may not look like (decisions B89–B91), beside decision F22's characters
// and length: nothing invisible, a bounded stack of combining marks on each letter, and neither a
// reserved name nor another member's name by its look-alike key, a UTS #39 skeleton. Confusables come
// from `unhomoglyph` (Unicode's confusables.txt, shipped inside the package; decision B91).
import unhomoglyph from 'unhomoglyph';

/** Why a name was refused or given up, in audit rows (decision B61's detail: a code, never the name). */
export type LookalikeRefusal = 'invisible' | 'combining_marks' | 'reserved' | 'lookalike';

/** Decision B90: at most this many combining marks on one letter or digit, counted in NFD. */
export const DISPLAY_NAME_MAX_MARKS = 4;

/** Decision B91: never anyone's, whatever the case, script or spacing; the DAO's own name is added. */
export const RESERVED_DISPLAY_NAMES = ['Admin', 'Administrator', 'Moderator'] as const;

const IGNORABLE = /\p{Default_Ignorable_Code_Point}/u;
const IGNORABLE_ALL = /\p{Default_Ignorable_Code_Point}/gu;
const MARK = /^\p{M}$/u;
const BASE = /^[\p{L}\p{N}]$/u;
// Spaces and F22's punctuation separate words: "Ada_Lovelace" and "Ada Lovelace" read as one name.
const SEPARATORS = /[\s.'_-]/gu;

const codePoint = (ch: string) => `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;

/**
 * Decision B89: default-ignorable code points draw nothing (U+034F COMBINING GRAPHEME JOINER, the
 * Hangul fillers U+115F, U+1160, U+3164, U+FFA0, variation selectors, zero-width characters, bidi
 * controls…), so "Admin" + one of them would show as "Admin". Refused, naming the first.
 */
export function invisibleProblem(name: string): string | undefined {
  const found = IGNORABLE.exec(name);
  return found ? `display_name: invisible characters are not allowed (${codePoint(found[0])})` : undefined;
}

/**
 * Decision B90: every combining mark sits on a letter or digit, at most DISPLAY_NAME_MAX_MARKS on one
 * and never the same one twice (a second acute draws over the first: "é" + U+0301 shows as "é").
 * Stacks past the limit spill over the lines around the name.
 */
export function marksProblem(name: string): string | undefined {
  let onBase = false;
  const marks = new Set<string>();
  for (const ch of name.normalize('NFD')) {
    if (!MARK.test(ch)) {
      onBase = BASE.test(ch);
      marks.clear();
      continue;
    }
    if (!onBase) return `display_name: a combining mark (${codePoint(ch)}) must follow a letter or digit`;
    if (marks.has(ch)) return `display_name: the same combining mark (${codePoint(ch)}) twice on one letter`;
    marks.add(ch);
    if (marks.size > DISPLAY_NAME_MAX_MARKS)
      return `display_name: at most ${DISPLAY_NAME_MAX_MARKS} combining marks on one letter`;
  }
  return undefined;
}

/** UTS #39 skeleton: NFD, default-ignorables removed, each character's prototype, NFD again. */
function skeleton(s: string): string {
  return unhomoglyph(s.normalize('NFD').replace(IGNORABLE_ALL, '')).normalize('NFD');
}

/**
 * Decision B91: two names with the same key look the same. The skeleton, lower-cased and skeletonised
 * again (so Cyrillic "ТОМ" meets "tom" as "TOM" does), with i and l as one letter (an upper-case I is
 * l's look-alike, its lower case is not) and without spaces or . - _ '. Stored as
 * `users.display_name_key`, unique; F22's case-blind index on the name stays beside it.
 */
export function lookalikeKey(name: string): string {
  return skeleton(skeleton(name).toLowerCase()).replace(/i/g, 'l').replace(SEPARATORS, '');
}

/** The keys no member may choose: the reserved names and the DAO's own (BRAND_DAO_NAME). */
export function reservedKeys(daoName: string): Set<string> {
  return new Set([...RESERVED_DISPLAY_NAMES, daoName].map(lookalikeKey).filter((k) => k.length > 0));
}

/** Whether `name` is reserved: its key, or its lower case's, is one of `reserved`. */
export function isReserved(name: string, reserved: Set<string>): boolean {
  return reserved.has(lookalikeKey(name)) || reserved.has(lookalikeKey(name.toLowerCase()));
}
