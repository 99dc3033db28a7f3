// The operator commands' structured log (decision R51): a refusal or a failure of `npm run migrate`,
// `npm run backup` or `npm run restore` is one clear sentence on stderr for the person at the terminal,
// then one pino line in the services' own form (service, version, level, event) for whoever collects
// logs, on stderr too: stdout is the command's report (`--json` parses it whole).
import { readFileSync } from 'node:fs';
import { createLogger } from '@domdao/service-kit';

const VERSION = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string })
  .version;

export interface CliLog {
  /** Bad input, nothing changed: the sentence, then `<tool>.refused` at warn. */
  refused(message: string, fields?: object): void;
  /** Anything else: the sentence, then `<tool>.failed` at error. */
  failed(message: string, fields?: object): void;
}

export function cliLog(tool: 'migrate' | 'backup' | 'restore'): CliLog {
  const { logger } = createLogger(process.env.LOG_LEVEL ?? 'info', tool, VERSION, {
    write: (line: string) => void process.stderr.write(line),
  });
  return {
    refused(message, fields = {}) {
      process.stderr.write(`${tool}: ${message}\n`);
      logger.warn({ event: `${tool}.refused`, ...fields, reason: message }, `${tool} refused: ${message}`);
    },
    failed(message, fields = {}) {
      process.stderr.write(`${tool}: failed: ${message}\n`);
      logger.error({ event: `${tool}.failed`, ...fields, reason: message }, `${tool} failed: ${message}`);
    },
  };
}
