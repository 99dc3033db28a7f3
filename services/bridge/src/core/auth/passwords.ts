// argon2id at OWASP's minimum (19 MiB, t=2, p=1) or above (decision B5). Verifying an unknown email
// runs the same work against a fixed hash, so timing does not tell whether an account exists.
import argon2 from 'argon2';

export const ARGON2_OPTIONS = { type: argon2.argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export function hashPassword(password: string): Promise<string> {
  return argon2.hash(password, ARGON2_OPTIONS);
}

let dummy: Promise<string> | undefined;

export async function verifyPassword(hash: string | undefined, password: string): Promise<boolean> {
  dummy ??= argon2.hash('not-a-real-password-never-matches', ARGON2_OPTIONS);
  const target = hash ?? (await dummy);
  let ok = false;
  try {
    ok = await argon2.verify(target, password);
  } catch {
    ok = false;
  }
  return hash !== undefined && ok;
}
