// Spec 2 registration rules: age from the date of birth (13+ to register, 18+ to become Active) and
// the display name (decision B36). Pure functions of their input and today's date; the address and
// password rules every feature shares are in identity/.
/** Whole years between a YYYY-MM-DD date of birth and `today` (UTC); undefined for an impossible date. */
export function ageOn(dob: string, today: Date): number | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(dob);
  if (!m) return undefined;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const born = new Date(Date.UTC(y, mo - 1, d));
  if (born.getUTCFullYear() !== y || born.getUTCMonth() !== mo - 1 || born.getUTCDate() !== d) return undefined;
  if (born.getTime() > today.getTime() || y < 1900) return undefined;
  let years = today.getUTCFullYear() - y;
  const beforeBirthday = today.getUTCMonth() < mo - 1 || (today.getUTCMonth() === mo - 1 && today.getUTCDate() < d);
  if (beforeBirthday) years--;
  return years;
}

/**
 * Decision B36: a name the notification service accepts as a one-line field (its `user_name`):
 * 1 to 200 characters, not blank, no control characters (C0, DEL, C1: CR, LF and NUL included),
 * no line or paragraph separators. Returns the reason it is refused, or undefined.
 */
export function displayNameProblem(name: string): string | undefined {
  if (name.trim().length === 0 || [...name].length > 200) return 'name must be 1 to 200 characters';
  if (/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(name)) return 'name must be one line without control characters';
  return undefined;
}
