// Spec 2 registration rules: age from the date of birth (13+ to register, 18+ to become Active) and
// the password policy (decision B4). Pure functions of their input and today's date.
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

export const PASSWORD_MIN = 12;
export const PASSWORD_MAX = 128;
// The most common passwords that still pass the length rule (from public breach top lists).
const COMMON = new Set(['password1234', 'passwordpassword', '123456789012', 'qwertyuiopas', 'iloveyou1234', '111111111111', 'letmeinletmein', 'administrator', 'qwerty123456', '1q2w3e4r5t6y']);

/**
 * Decision B4 (NIST SP 800-63B): 12 to 128 characters, any characters, not a well-known password,
 * not the email address or its local part. Returns the reason it is refused, or undefined.
 */
export function passwordProblem(password: string, email: string): string | undefined {
  const length = [...password].length;
  if (length < PASSWORD_MIN) return `the password must be at least ${PASSWORD_MIN} characters long`;
  if (length > PASSWORD_MAX) return `the password must be at most ${PASSWORD_MAX} characters long`;
  const lower = password.toLowerCase();
  if (COMMON.has(lower) || /^(.)\1+$/.test(password)) return 'the password is too common or repetitive';
  const e = email.trim().toLowerCase();
  const local = e.split('@')[0] ?? '';
  if (lower === e || (local.length >= 4 && lower.includes(local))) return 'the password must not contain your email address';
  return undefined;
}

/** A plausible mailbox: one @, a dot in the domain, no spaces or control characters, ≤ 254 characters. */
export function isEmail(s: string): boolean {
  return s.length <= 254 && /^[^\s@\u0000-\u001f]+@[^\s@\u0000-\u001f]+\.[^\s@\u0000-\u001f]+$/u.test(s);
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
