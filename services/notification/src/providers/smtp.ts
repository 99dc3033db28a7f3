// SMTP delivery for self-hosters, through nodemailer (MIME building, RFC 2047 subjects, SMTPUTF8,
// STARTTLS). SMTP's own "try later" answers (4xx) are retried like an HTTP 429.
import nodemailer from 'nodemailer';
import type { EmailProvider } from './provider.ts';
import { ProviderError } from './provider.ts';
import { withProviderRetry, type RetryPolicy } from './retry.ts';

export interface SmtpOptions {
  host: string;
  port: number;
  secure: boolean;
  requireTls: boolean;
  user?: string | undefined;
  password: string;
  timeoutMs: number;
  retry: RetryPolicy;
}

export function smtpProvider(opts: SmtpOptions): EmailProvider {
  const transport = nodemailer.createTransport({
    host: opts.host,
    port: opts.port,
    secure: opts.secure,
    requireTLS: opts.requireTls,
    ignoreTLS: !opts.secure && !opts.requireTls,
    ...(opts.user !== undefined && { auth: { user: opts.user, pass: opts.password } }),
    pool: true,
    maxConnections: 4,
    connectionTimeout: opts.timeoutMs,
    greetingTimeout: opts.timeoutMs,
    socketTimeout: opts.timeoutMs,
  });
  return {
    name: 'smtp',
    stub: false,
    async send(message, { log }) {
      const attempt = async () => {
        try {
          const info = await transport.sendMail({
            from: message.from,
            to: message.to,
            subject: message.subject,
            html: message.html,
            text: message.text,
            headers: message.headers,
            attachments: message.attachments.map((a) => ({
              filename: a.filename,
              content: a.content,
              encoding: 'base64',
              ...(a.contentType !== undefined && { contentType: a.contentType }),
            })),
          });
          return { messageId: String(info.messageId) };
        } catch (err) {
          const e = err as { responseCode?: number; code?: string; message?: string };
          const code = e.responseCode;
          const transient = code !== undefined && code >= 400 && code < 500;
          throw new ProviderError(
            `SMTP ${code ?? e.code ?? 'error'}: ${String(e.message).slice(0, 500)}`,
            code ?? e.code,
            undefined,
            transient,
          );
        }
      };
      return withProviderRetry(attempt, {
        ...opts.retry,
        onRetry: (n, delayMs, err) =>
          log.warn(
            { event: 'email.provider_retry', attempt: n, delay_ms: delayMs, status: err.status },
            'SMTP server asked to retry',
          ),
      });
    },
    async close() {
      transport.close();
    },
  };
}
