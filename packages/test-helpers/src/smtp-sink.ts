// A real SMTP server (smtp-server) on 127.0.0.1 that parses what it receives (mailparser), so tests
// check the MIME message an SMTP relay would get.
import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';

export interface ReceivedMail {
  from: string | undefined;
  to: string[];
  raw: string;
  parsed: ParsedMail;
}

export interface SmtpSink {
  port: number;
  received: ReceivedMail[];
  /** Answer the next N DATA commands with this SMTP code (e.g. 451 transient, 550 permanent). */
  failNext(count: number, code: number, message?: string): void;
  close(): Promise<void>;
}

export async function startSmtpSink(auth?: { user: string; password: string }): Promise<SmtpSink> {
  const received: ReceivedMail[] = [];
  let failures: Array<{ code: number; message: string }> = [];
  const options: SMTPServerOptions = {
    disabledCommands: auth ? ['STARTTLS'] : ['STARTTLS', 'AUTH'],
    allowInsecureAuth: true,
    authOptional: !auth,
    size: 64 * 1024 * 1024,
    logger: false,
    onAuth(a, _session, cb) {
      if (auth && a.username === auth.user && a.password === auth.password) return cb(null, { user: a.username });
      return cb(new Error('invalid credentials'));
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const failure = failures.shift();
        if (failure) {
          const err = new Error(failure.message) as Error & { responseCode: number };
          err.responseCode = failure.code;
          return cb(err);
        }
        const raw = Buffer.concat(chunks).toString('utf8');
        simpleParser(raw).then(
          (parsed) => {
            received.push({
              from: session.envelope.mailFrom ? session.envelope.mailFrom.address : undefined,
              to: session.envelope.rcptTo.map((r) => r.address),
              raw,
              parsed,
            });
            cb();
          },
          (err: Error) => cb(err),
        );
      });
    },
  };
  const server = new SMTPServer(options);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.server.address() as AddressInfo).port,
    received,
    failNext(count, code, message = 'try again later') {
      failures = Array.from({ length: count }, () => ({ code, message }));
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
