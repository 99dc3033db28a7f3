// Spec 2 Roles rule 2: the roles an account gets when its address is verified.
import type { VerificationContext } from './context.ts';
import { canonicalEmail } from '../../core/identity/email.ts';

/** The canonical addresses of BOOTSTRAP_ADMIN_EMAILS (config.ts refuses an entry that has none). */
function bootstrapAdminAddresses(list: string | undefined): Set<string> {
  return new Set(
    (list ?? '')
      .split(',')
      .filter((s) => s.trim() !== '')
      .map((s) => canonicalEmail(s))
      .flatMap((c) => ('address' in c ? [c.address] : [])),
  );
}

/**
 * Spec 2 Roles rule 2: `member` on verification; the bootstrap admins also get `admin`, only when the
 * verified address is exactly a configured one (decision B83): the stored address is compared as it is,
 * never folded, so a look-alike registered before decision B82 (`ᵃdmin@`) is not an admin.
 */
export function verificationRoles(
  ctx: VerificationContext,
): (user: { roles: string[]; email_encrypted: string }) => Promise<string[]> {
  const bootstrapAdmins = bootstrapAdminAddresses(ctx.config.BOOTSTRAP_ADMIN_EMAILS);
  return async (user) => {
    // Decrypting the address is only needed to recognise a bootstrap admin.
    const email =
      bootstrapAdmins.size > 0 ? (await ctx.opener.open('email', user.email_encrypted).catch(() => '')).trim() : '';
    return [...new Set([...user.roles, 'member', ...(bootstrapAdmins.has(email) ? ['admin'] : [])])];
  };
}
