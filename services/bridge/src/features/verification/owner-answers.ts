// Decision B86: a registration confirmed by someone who did not choose its password starts afresh from
// that person's own answers, read as registration reads them (spec 2 rules 1 and 3): the date of birth
// first (under 13: COPPA_BLOCK, and nothing else is even read), then the name, then the terms. The JSON
// route carries them sealed in the browser; the link page's form, which has no script, in plain text,
// and the bridge seals them itself (decision B87).
import { HttpError } from '../../core/http/errors.ts';
import { ageOn, displayNameProblem } from '../../core/identity/registration-rules.ts';
import { UndecryptableError } from '../../core/identity/sealed-fields.ts';
import type { VerificationContext } from './context.ts';

/** The JSON route's fields, sealed to the bridge's key like registration's. */
export interface SealedAnswers {
  name_encrypted?: string | undefined;
  dob_encrypted?: string | undefined;
  tos_accepted?: boolean | undefined;
  /** Decision F47: the name other members see, plain (it is public); absent: the random default. */
  display_name?: string | undefined;
}
/** The link page's form fields. */
export interface PlainAnswers {
  name?: string | undefined;
  dob?: string | undefined;
  tos_accepted?: boolean | undefined;
  /** Decision F47: the name other members see; empty or absent: the name above. */
  display_name?: string | undefined;
}
export type Answers = { sealed: SealedAnswers } | { plain: PlainAnswers };

/** What the new account is made of: the owner's answers only. */
export interface OwnerAnswers {
  name_encrypted: string;
  dob_encrypted: string;
  age: number;
  /** The name in clear, for the admins' word index (decision B106); never stored as it is. */
  name: string;
  /** The display name asked for (decision F47), not yet checked against the members' names. */
  display_name?: string;
}

/** The fields an answer set lacks, by the names its route uses. */
export function missingAnswers(a: Answers): string[] {
  const [fields, values]: [string[], unknown[]] =
    'sealed' in a
      ? [
          ['dob_encrypted', 'name_encrypted', 'tos_accepted'],
          [a.sealed.dob_encrypted, a.sealed.name_encrypted, a.sealed.tos_accepted],
        ]
      : [
          ['dob', 'name', 'tos_accepted'],
          [a.plain.dob, a.plain.name, a.plain.tos_accepted],
        ];
  return fields.filter((_, i) => values[i] === undefined || values[i] === '' || values[i] === false);
}

/** Spec 2 rule 3's age gate, authoritative: the owner's age in whole years, or the refusal. */
export function ageGate(dob: string, now: number): number {
  const years = ageOn(dob, new Date(now));
  if (years === undefined) throw new HttpError(400, 'VALIDATION_ERROR', 'dob must be a real date of birth, YYYY-MM-DD');
  if (years < 13) throw new HttpError(403, 'COPPA_BLOCK', 'registration requires an age of 13 or over');
  return years;
}

export async function readAnswers(ctx: Pick<VerificationContext, 'opener' | 'now'>, a: Answers): Promise<OwnerAnswers> {
  const missing = missingAnswers(a);
  if (missing.length > 0)
    throw new HttpError(
      400,
      'VALIDATION_ERROR',
      `choosing a new password starts the account afresh: send your own ${missing.join(', ')} with it (decision B86; tos_accepted must be true)`,
    );
  try {
    if ('sealed' in a) {
      const age = ageGate(await ctx.opener.open('dob', a.sealed.dob_encrypted!), ctx.now());
      const name = await ctx.opener.open('name', a.sealed.name_encrypted!);
      nameGate(name);
      return {
        name_encrypted: a.sealed.name_encrypted!,
        dob_encrypted: a.sealed.dob_encrypted!,
        age,
        name,
        ...(a.sealed.display_name !== undefined && { display_name: a.sealed.display_name }),
      };
    }
  } catch (e) {
    if (e instanceof UndecryptableError)
      throw new HttpError(
        400,
        'UNDECRYPTABLE',
        'an encrypted field could not be decrypted (tampered, or sealed to another key)',
      );
    throw e;
  }
  const dob = a.plain.dob!.trim();
  const age = ageGate(dob, ctx.now());
  // Trimmed as the web app's join page trims it before sealing.
  const name = a.plain.name!.trim();
  nameGate(name);
  // Decision F47: the page's field left empty shows the name typed above.
  const display = a.plain.display_name?.trim() || name;
  return {
    name_encrypted: await ctx.opener.seal('name', name),
    dob_encrypted: await ctx.opener.seal('dob', dob),
    age,
    name,
    display_name: display,
  };
}

function nameGate(name: string): void {
  const problem = displayNameProblem(name);
  if (problem) throw new HttpError(400, 'VALIDATION_ERROR', problem);
}
