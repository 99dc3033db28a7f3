// The password policy (decision B4, NIST SP 800-63B), applied at registration and at a password reset.
export const PASSWORD_MIN = 12;
export const PASSWORD_MAX = 128;
// The most common passwords that still pass the length rule (from public breach top lists).
const COMMON = new Set([
  'password1234',
  'passwordpassword',
  '123456789012',
  'qwertyuiopas',
  'iloveyou1234',
  '111111111111',
  'letmeinletmein',
  'administrator',
  'qwerty123456',
  '1q2w3e4r5t6y',
]);

/**
 * 12 to 128 characters, any characters, not a well-known password, not the email address or its
 * local part. Returns the reason it is refused, or undefined.
 */
export function passwordProblem(password: string, email: string): string | undefined {
  const length = [...password].length;
  if (length < PASSWORD_MIN) return `the password must be at least ${PASSWORD_MIN} characters long`;
  if (length > PASSWORD_MAX) return `the password must be at most ${PASSWORD_MAX} characters long`;
  const lower = password.toLowerCase();
  if (COMMON.has(lower) || /^(.)\1+$/.test(password)) return 'the password is too common or repetitive';
  const e = email.trim().toLowerCase();
  const local = e.split('@')[0] ?? '';
  if (lower === e || (local.length >= 4 && lower.includes(local)))
    return 'the password must not contain your email address';
  return undefined;
}
