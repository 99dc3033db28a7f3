// argon2id at OWASP's minimum (19 MiB, t=2, p=1) or above (decision B5). Verifying an unknown email
// runs the same work against a fixed hash, so timing does not tell whether an account exists.
import argon2 from 'argon2';

/** argon2id's memory (KiB) and passes; the lanes (parallelism) are always 1. */
export interface Argon2Cost {
  memoryCost: number;
  timeCost: number;
}

/** Decision B5: OWASP's minimum, what every bridge hashes with unless a test's harness says otherwise. */
export const ARGON2_COST: Readonly<Argon2Cost> = { memoryCost: 19_456, timeCost: 2 };

export interface Passwords {
  hash(password: string): Promise<string>;
  /** False for an unknown account (`hash` undefined), after the same work as a wrong password. */
  verify(hash: string | undefined, password: string): Promise<boolean>;
}

/**
 * Hashing at `cost`. A stored hash carries its own cost, so `verify` checks a hash made at any cost;
 * only new hashes, and the fixed hash an unknown email is checked against, take this one.
 */
export function passwordHasher(cost: Readonly<Argon2Cost> = ARGON2_COST): Passwords {
  const options = {
    type: argon2.argon2id,
    parallelism: 1,
    memoryCost: cost.memoryCost,
    timeCost: cost.timeCost,
  } as const;
  let dummy: Promise<string> | undefined;
  return {
    hash: (password) => argon2.hash(password, options),
    async verify(hash, password) {
      dummy ??= argon2.hash('not-a-real-password-never-matches', options);
      const target = hash ?? (await dummy);
      let ok = false;
      try {
        ok = await argon2.verify(target, password);
      } catch {
        ok = false;
      }
      return hash !== undefined && ok;
    },
  };
}
