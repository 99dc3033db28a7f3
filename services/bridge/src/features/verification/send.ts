// The verification email (spec 2 registration rule 4): sent by registration's outbox operation, whose
// payload holds the address and name sealed, and by account recovery's resend, which has them open.
import { randomUUID } from 'node:crypto';
import type { VerificationContext } from './context.ts';
import { deliver } from '../../core/email/deliveries.ts';
import type { UserOperationDeps } from '../../core/outbox/user-operations.ts';

/** The verification email (registration, resend), recorded in email_deliveries (decision N21); true when accepted. */
export async function sendVerification(
  ctx: VerificationContext,
  m: { userId: string; email: string; name: string; token: string; expiresAt: bigint; requestId: string },
): Promise<boolean> {
  const link = `${ctx.config.PUBLIC_URL}/verify-email?token=${encodeURIComponent(m.token)}`;
  const minutes = Math.max(1, Math.round(Number(m.expiresAt / 1_000_000n - BigInt(ctx.now())) / 60_000));
  const r = await deliver(ctx, {
    key: `verification:${m.token}`,
    userId: m.userId,
    request: {
      type: 'verification',
      to: m.email,
      domain: ctx.config.EMAIL_BRAND_DOMAIN,
      data: { user_name: m.name, verification_link: link, expires_minutes: minutes },
    },
    requestId: m.requestId,
    retry: false,
  });
  return r !== 'failed';
}

/**
 * Decision S23: the sender registration's outbox operation calls with the sealed address and name;
 * opening them is this feature's work, so the composition root only passes it on.
 */
export function verificationSender(ctx: VerificationContext): UserOperationDeps['sendVerification'] {
  return async (sealed, token, expiresAt) => {
    const email = (await ctx.opener.open('email', sealed.email_encrypted)).trim();
    const name = await ctx.opener.open('name', sealed.name_encrypted);
    return sendVerification(ctx, { userId: sealed.user_id, email, name, token, expiresAt, requestId: randomUUID() });
  };
}
