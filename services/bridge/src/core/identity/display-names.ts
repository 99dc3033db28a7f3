// Members are shown by a display name, never an email or a bare principal (decision F22). Every account
// has a friendly default, "Amber Otter #3f2a", derived from its principal and stored at registration
// (`users.default_name`) so a search can find it; a member may choose their own (`users.display_name`,
// unique ignoring case and by its look-alike key, display-name-rules.ts). A chosen name cannot contain
// `#` or `@`, so it never looks like someone's default or an email address.
import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import type { Db } from '../db/index.ts';
import { invisibleProblem, marksProblem, type LookalikeRefusal } from './display-name-rules.ts';

const ADJECTIVES = [
  'Amber',
  'Azure',
  'Bold',
  'Brave',
  'Bright',
  'Calm',
  'Clever',
  'Coral',
  'Crisp',
  'Daring',
  'Eager',
  'Fair',
  'Gentle',
  'Golden',
  'Happy',
  'Hazel',
  'Ivory',
  'Jolly',
  'Keen',
  'Kind',
  'Lively',
  'Lucky',
  'Mellow',
  'Merry',
  'Misty',
  'Noble',
  'Olive',
  'Plucky',
  'Quiet',
  'Rosy',
  'Rustic',
  'Sage',
  'Scarlet',
  'Silver',
  'Sunny',
  'Swift',
  'Tidy',
  'True',
  'Velvet',
  'Vivid',
  'Warm',
  'Wise',
  'Witty',
  'Young',
  'Zesty',
  'Cosmic',
  'Dusky',
  'Frosty',
] as const;
const ANIMALS = [
  'Otter',
  'Heron',
  'Badger',
  'Falcon',
  'Fox',
  'Hare',
  'Ibis',
  'Jay',
  'Koala',
  'Lark',
  'Lynx',
  'Marten',
  'Newt',
  'Owl',
  'Panda',
  'Puffin',
  'Quail',
  'Raven',
  'Robin',
  'Seal',
  'Swan',
  'Tern',
  'Tiger',
  'Vole',
  'Wren',
  'Yak',
  'Zebra',
  'Beaver',
  'Crane',
  'Dolphin',
  'Egret',
  'Finch',
  'Gecko',
  'Hedgehog',
  'Kestrel',
  'Lemur',
  'Moose',
  'Narwhal',
  'Ocelot',
  'Pelican',
  'Rabbit',
  'Salmon',
  'Toucan',
  'Walrus',
  'Bison',
  'Cougar',
  'Dove',
  'Elk',
] as const;

/** The account's default name: the same principal always gives the same name. */
export function defaultDisplayName(principal: string): string {
  const h = createHash('sha256').update(`domdao/display-name/v1:${principal}`).digest();
  return `${ADJECTIVES[h[0]! % ADJECTIVES.length]} ${ANIMALS[h[1]! % ANIMALS.length]} #${h.subarray(2, 4).toString('hex')}`;
}

export const DISPLAY_NAME_MIN = 3;
export const DISPLAY_NAME_MAX = 32;
/** Letters (any script), marks, digits, spaces and . - _ ' ; at least one letter. */
const ALLOWED = /^[\p{L}\p{M}\p{N} .'_-]+$/u;

/**
 * The name as stored (NFC, trimmed, inner spaces collapsed), or why it is refused; `refusal` names the
 * look-alike rules (decisions B89, B90), which are audited. Invisible characters and mark stacks are
 * judged first, so a name that tries either is refused as such whatever else is wrong with it.
 */
export function normaliseDisplayName(raw: string): { name: string } | { problem: string; refusal?: LookalikeRefusal } {
  const name = raw.normalize('NFC').trim().replace(/\s+/gu, ' ');
  const invisible = invisibleProblem(name);
  if (invisible) return { problem: invisible, refusal: 'invisible' };
  const marks = marksProblem(name);
  if (marks) return { problem: marks, refusal: 'combining_marks' };
  const length = [...name].length;
  if (length < DISPLAY_NAME_MIN || length > DISPLAY_NAME_MAX) return { problem: `display_name: ${DISPLAY_NAME_MIN} to ${DISPLAY_NAME_MAX} characters` };
  if (!ALLOWED.test(name)) return { problem: "display_name: letters, digits, spaces and . - _ ' only" };
  if (!/\p{L}/u.test(name)) return { problem: 'display_name: at least one letter' };
  return { name };
}

/** principal → the name shown for it; principals that are no member's (canisters, the treasury) are absent. */
export async function displayNames(db: Db, principals: Iterable<string>): Promise<Map<string, string>> {
  const wanted = [...new Set(principals)].filter((p) => p.length > 0);
  const names = new Map<string, string>();
  // Chunks keep the statement's parameter list bounded (a vote list can hold thousands of voters).
  for (let i = 0; i < wanted.length; i += 500) {
    const rows = await db
      .selectFrom('users')
      .select(['principal', sql<string>`coalesce(display_name, default_name)`.as('name')])
      .where('principal', 'in', wanted.slice(i, i + 500))
      .execute();
    for (const r of rows) names.set(r.principal, r.name);
  }
  return names;
}

/**
 * The name of the verified member whose principal this is, or undefined: who may receive a member's
 * transfer (decision B75), the same accounts `GET /api/members` finds.
 */
export async function verifiedMemberName(db: Db, principal: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('users')
    .select(sql<string>`coalesce(display_name, default_name)`.as('name'))
    .where('principal', '=', principal)
    .where('email_verified_at', 'is not', null)
    .executeTakeFirst();
  return row?.name;
}

/** The display-name lookup features receive (they never read the users table themselves). */
export type DisplayNames = (principals: Iterable<string>) => Promise<Map<string, string>>;
