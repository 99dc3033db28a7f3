// The send's one log line (email.stub_send / email.sent) written as pino writes it, without pino's
// generic object walk (decision D42). pino serialises every property through its stringifier lookup,
// a character loop per short string and a stable stringify for arrays; a send line has a fixed shape
// of plain values, so it is assembled from pino's own pieces (level prefix, time, the child's
// bindings, end of line) and handed to the same stream. Values that are not plain ASCII take pino's
// own path, so the bytes are always pino's; a test compares the two on every shape of input.
import pino, { type Logger } from 'pino';

const { lsCacheSym, timeSym, chindingsSym, streamSym, endSym, needsMetadataGsym } =
  pino.symbols as typeof pino.symbols & { needsMetadataGsym: symbol };

/** Printable ASCII without `"` and `\`: pino and JSON write such a string between quotes as it is. */
const PLAIN = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/** `"value"` when pino writes the string unchanged between quotes, else undefined. */
export function plainJson(value: string): string | undefined {
  return PLAIN.test(value) ? `"${value}"` : undefined;
}

const INFO = 30;

/**
 * `log.info(obj, msg)` for an object whose properties, serialised, are `props` (`,"key":value…`, each
 * value as pino writes it) and a plain `msg`; with `bindings` (`,"key":value…`), as
 * `log.child(those bindings).info(obj, msg)` (decision D45: the child is not made). Returns false,
 * writing nothing, when the stream wants pino's per-line metadata (then the caller logs the usual
 * way); a disabled level writes nothing.
 */
export function writeInfo(log: Logger, bindings: string, props: string, msg: string): boolean {
  if (!log.isLevelEnabled('info')) return true;
  const p = log as unknown as Record<symbol, unknown>;
  const stream = p[streamSym] as { write(line: string): void } & Record<symbol, unknown>;
  if (stream[needsMetadataGsym] === true) return false;
  const levels = p[lsCacheSym] as Record<number, string>;
  const time = p[timeSym] as (this: unknown) => string;
  stream.write(
    `${levels[INFO]}${time.call(log)}${p[chindingsSym] as string}${bindings}${props},"msg":"${msg}"${p[endSym] as string}`,
  );
  return true;
}
