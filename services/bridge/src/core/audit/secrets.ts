// Secret rotation noticed (decision B66): at start the bridge compares a fingerprint of each secret
// with the one it last ran with and audits `secret.rotation_noticed` (naming the variable) when it
// differs. A key of 32 random bytes is fingerprinted with SHA-256 (nothing to guess); a secret an
// operator types (a token, a webhook secret) with scrypt (N = 2^10, r = 8, salted with its name), so a
// leaked table does not let guesses of a weak token be tested at hash speed. About 10 ms a secret.
import { createHash, scrypt } from 'node:crypto';
import { promisify } from 'node:util';
import type { Db } from '../db/schema.ts';
import { SYSTEM, type AuditRecorder } from './log.ts';

const scryptAsync = promisify(scrypt) as (
  password: Uint8Array | string,
  salt: string,
  keylen: number,
  options: { N: number; r: number; p: number },
) => Promise<Buffer>;

export async function fingerprint(name: string, secret: Uint8Array | string): Promise<string> {
  const salt = `domdao secret fingerprint ${name}`;
  if (typeof secret !== 'string' && secret.length >= 32)
    return createHash('sha256').update(salt).update(secret).digest('hex').slice(0, 32);
  return (await scryptAsync(secret, salt, 16, { N: 1024, r: 8, p: 1 })).toString('hex');
}

/** Names of the rotated secrets; the first sight of a secret is recorded without an event. */
export async function noticeSecretRotations(o: {
  db: Db;
  audit: AuditRecorder;
  secrets: Record<string, Uint8Array | string | undefined>;
  now: () => number;
}): Promise<string[]> {
  const present = Object.entries(o.secrets).filter(
    (e): e is [string, Uint8Array | string] => e[1] !== undefined && e[1].length > 0,
  );
  const prints = await Promise.all(
    present.map(async ([name, value]) => [name, await fingerprint(name, value)] as const),
  );
  const known = new Map(
    (await o.db.selectFrom('secret_fingerprints').select(['name', 'fingerprint']).execute()).map((r) => [
      r.name,
      r.fingerprint,
    ]),
  );
  const rotated: string[] = [];
  for (const [name, print] of prints) {
    const was = known.get(name);
    if (was === print) continue;
    const seen_at = new Date(o.now());
    await o.db
      .insertInto('secret_fingerprints')
      .values({ name, fingerprint: print, seen_at })
      .onConflict((oc) => oc.column('name').doUpdateSet({ fingerprint: print, seen_at }))
      .execute();
    if (was === undefined) continue;
    rotated.push(name);
    await o.audit.record(undefined, {
      event: 'secret.rotation_noticed',
      actor: SYSTEM,
      outcome: 'success',
      detail: { variable: name },
    });
  }
  return rotated;
}
