// Members are shown by a display name, never an email or a bare principal (decision F22). Every account
// has a friendly default, "Amber Otter #3f2a", derived from its principal and stored at registration
// (`users.default_name`) so a search can find it; a member may choose their own (`users.display_name`,
// unique ignoring case and by its look-alike key, display-name-rules.ts). A chosen name cannot contain
// `#` or `@`, so it never looks like someone's default or an email address.
import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import type { Db } from '../db/schema.ts';
import {
  invisibleProblem,
  isReserved,
  lookalikeKey,
  marksProblem,
  type LookalikeRefusal,
} from './display-name-rules.ts';

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
  if (length < DISPLAY_NAME_MIN || length > DISPLAY_NAME_MAX)
    return { problem: `display_name: ${DISPLAY_NAME_MIN} to ${DISPLAY_NAME_MAX} characters` };
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

/** Why a name chosen at join is refused: the HTTP answer, and the look-alike rule to audit (B89–B91). */
export interface ChosenNameRefusal {
  status: 400 | 409;
  code: 'VALIDATION_ERROR' | 'NAME_TAKEN';
  message: string;
  refusal?: LookalikeRefusal;
}

/**
 * Decision F47: a display name chosen at join (registration, or an account started afresh) is held to
 * the rules a member's profile holds it to (F22, B89–B91): the stored form and its look-alike key, or
 * the refusal. `replacing` is the registration the new account replaces, whose name is not in the way.
 */
export async function chosenAtJoin(
  db: Db,
  raw: string,
  reserved: Set<string>,
  replacing?: string,
): Promise<{ name: string; key: string } | { refused: ChosenNameRefusal }> {
  const n = normaliseDisplayName(raw);
  if ('problem' in n)
    return {
      refused: { status: 400, code: 'VALIDATION_ERROR', message: n.problem, ...(n.refusal && { refusal: n.refusal }) },
    };
  if (isReserved(n.name, reserved))
    return {
      refused: {
        status: 400,
        code: 'VALIDATION_ERROR',
        message: 'display_name: reserved for the DAO and its admins; choose another',
        refusal: 'reserved',
      },
    };
  const key = lookalikeKey(n.name);
  let holder = db.selectFrom('users').select('display_name').where('display_name_key', '=', key);
  if (replacing !== undefined) holder = holder.where('id', '!=', replacing);
  const held = await holder.executeTakeFirst();
  if (held) return { refused: nameTaken(held.display_name?.toLowerCase() === n.name.toLowerCase()) };
  return { name: n.name, key };
}

/** 409 NAME_TAKEN as the profile answers it: the same name is plainly taken; one that only looks the same is audited (B91). */
export function nameTaken(same: boolean): ChosenNameRefusal {
  return same
    ? { status: 409, code: 'NAME_TAKEN', message: 'another member already uses this name; choose another' }
    : {
        status: 409,
        code: 'NAME_TAKEN',
        message: "another member's name looks the same as this one; choose another",
        refusal: 'lookalike',
      };
}
