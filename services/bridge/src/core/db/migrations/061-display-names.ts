// Display names (decision F22): the member's chosen name (unique ignoring case) and the default derived
// from their principal, filled in here for accounts that registered before.
//
// Decision R42: a migration is frozen. What it computes is copied here as it stood when it was written
// (identity/display-names.ts at migration 061), never imported: a later change to the live default name
// must not change what this step wrote, nor what a database migrated later holds.
import { createHash } from 'node:crypto';
import { sql, type Kysely } from 'kysely';

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

/** The default name as decision F22 defined it at this migration (frozen copy, decision R42). */
function defaultDisplayName(principal: string): string {
  const h = createHash('sha256').update(`domdao/display-name/v1:${principal}`).digest();
  return `${ADJECTIVES[h[0]! % ADJECTIVES.length]} ${ANIMALS[h[1]! % ANIMALS.length]} #${h.subarray(2, 4).toString('hex')}`;
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table users add column display_name text`.execute(db);
  await sql`alter table users add column default_name text`.execute(db);
  const rows = await sql<{ id: string; principal: string }>`select id, principal from users`.execute(db);
  for (const r of rows.rows)
    await sql`update users set default_name = ${defaultDisplayName(r.principal)} where id = ${r.id}`.execute(db);
  await sql`alter table users alter column default_name set not null`.execute(db);
  await sql`create unique index users_display_name_unique on users (lower(display_name)) where display_name is not null`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index users_display_name_unique`.execute(db);
  await sql`alter table users drop column display_name`.execute(db);
  await sql`alter table users drop column default_name`.execute(db);
}
