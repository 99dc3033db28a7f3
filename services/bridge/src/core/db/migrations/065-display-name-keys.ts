// Look-alike display names (decisions B89–B91): each chosen name's look-alike key, unique. Names chosen
// before that break the new rules (invisible characters, mark stacks) or look like a name chosen
// earlier go back to their default (the account registered first keeps a contested name), each with an
// audit row (`members.display_name_reset`, actor `system`, the member as subject). Reserved names
// depend on the configured DAO name and are given up at start-up instead (features/members).
//
// Decision R42: a migration is frozen. The rules it applies are copied here as they stood when it was
// written (identity/display-name-rules.ts at migration 065), never imported: a later change to the live
// rules must not change which names this step gave up, nor the keys it stored. The confusables come from
// `unhomoglyph`, pinned to an exact version in package.json (Unicode's data; too large to copy).
import { sql, type Kysely } from 'kysely';
import unhomoglyph from 'unhomoglyph';

type LookalikeRefusal = 'invisible' | 'combining_marks' | 'lookalike';

const DISPLAY_NAME_MAX_MARKS = 4;
const IGNORABLE = /\p{Default_Ignorable_Code_Point}/u;
const IGNORABLE_ALL = /\p{Default_Ignorable_Code_Point}/gu;
const MARK = /^\p{M}$/u;
const BASE = /^[\p{L}\p{N}]$/u;
// Spaces and F22's punctuation separate words: "Ada_Lovelace" and "Ada Lovelace" read as one name.
const SEPARATORS = /[\s.'_-]/gu;

const codePoint = (ch: string) => `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;

function invisibleProblem(name: string): string | undefined {
  const found = IGNORABLE.exec(name);
  return found ? `display_name: invisible characters are not allowed (${codePoint(found[0])})` : undefined;
}

function marksProblem(name: string): string | undefined {
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

function lookalikeKey(name: string): string {
  return skeleton(skeleton(name).toLowerCase()).replace(/i/g, 'l').replace(SEPARATORS, '');
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table users add column display_name_key text`.execute(db);
  const rows = await sql<{ id: string; display_name: string }>`
    select id, display_name from users where display_name is not null order by created_at, id`.execute(db);
  const taken = new Set<string>();
  for (const r of rows.rows) {
    const key = lookalikeKey(r.display_name);
    const reason: LookalikeRefusal | undefined = invisibleProblem(r.display_name)
      ? 'invisible'
      : marksProblem(r.display_name)
        ? 'combining_marks'
        : taken.has(key)
          ? 'lookalike'
          : undefined;
    if (reason === undefined) {
      taken.add(key);
      await sql`update users set display_name_key = ${key} where id = ${r.id}`.execute(db);
      continue;
    }
    await sql`update users set display_name = null where id = ${r.id}`.execute(db);
    await sql`insert into audit_log (at, event, actor, subject, request_id, client, outcome, detail)
      values (now(), 'members.display_name_reset', 'system', ${r.id}, null, 'internal', 'success', ${JSON.stringify({ reason })}::jsonb)`.execute(
      db,
    );
  }
  await sql`create unique index users_display_name_key_unique on users (display_name_key) where display_name_key is not null`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index users_display_name_key_unique`.execute(db);
  await sql`alter table users drop column display_name_key`.execute(db);
}
