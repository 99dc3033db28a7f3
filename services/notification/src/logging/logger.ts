// Structured JSON logs. Inside a request every line carries request_id (Fastify binds it as the
// child logger's label). Nothing secret is ever passed to the logger: no tokens, no attachment bytes.
import pino, { type DestinationStream, type Logger } from 'pino';

export function createLogger(level: string, service: string, version: string, stream?: DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service, version },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      // Defence in depth: should a header object ever be logged, the credentials are not.
      redact: { paths: ['req.headers.authorization', 'headers.authorization', '*.authorization'], censor: '[redacted]' },
    },
    stream ?? pino.destination({ sync: false }),
  );
}
