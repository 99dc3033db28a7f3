// Captures a service's JSON log lines in memory, so tests can assert on log events.
import { Writable } from 'node:stream';

export type LogLine = Record<string, unknown> & { level?: string; event?: string; msg?: string; request_id?: string };

export interface CapturedLogs {
  stream: Writable;
  /** Raw text of everything logged, to assert that a secret never appears anywhere. */
  readonly raw: string;
  lines(): LogLine[];
  events(name: string): LogLine[];
}

export function captureLogs(): CapturedLogs {
  let raw = '';
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      raw += chunk.toString('utf8');
      done();
    },
  });
  const lines = () =>
    raw
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as LogLine);
  return {
    stream,
    get raw() {
      return raw;
    },
    lines,
    events: (name) => lines().filter((l) => l.event === name),
  };
}
