// Which email provider the service sends through, from its configuration.
import type { NotificationConfig } from '../config.ts';
import type { EmailProvider } from './provider.ts';
import { resendProvider } from './resend.ts';
import { smtpProvider } from './smtp.ts';
import { stubProvider } from './stub.ts';

/** Stub mode exactly when EMAIL_PROVIDER_API_KEY is unset (spec 3), whatever EMAIL_PROVIDER says. */
export function providerFromConfig(config: NotificationConfig): EmailProvider {
  const key = config.EMAIL_PROVIDER_API_KEY;
  if (key === undefined) return stubProvider();
  const retry = { maxAttempts: config.PROVIDER_MAX_ATTEMPTS, budgetMs: config.PROVIDER_RETRY_BUDGET_MS };
  if (config.EMAIL_PROVIDER === 'smtp') {
    return smtpProvider({
      host: config.SMTP_HOST,
      port: config.SMTP_PORT,
      secure: config.SMTP_SECURE,
      requireTls: config.SMTP_REQUIRE_TLS,
      user: config.SMTP_USER,
      password: key,
      timeoutMs: config.PROVIDER_TIMEOUT_MS,
      retry,
    });
  }
  return resendProvider({
    apiKey: key,
    baseUrl: config.EMAIL_PROVIDER_API_URL,
    timeoutMs: config.PROVIDER_TIMEOUT_MS,
    retry,
  });
}
