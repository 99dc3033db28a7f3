// Field types of the template catalog (spec 3 "Template catalog"). Every string has a length cap and a
// character class, so huge strings, control characters and header-injection attempts fail validation
// with a readable detail instead of reaching a subject line. The formats (`https-url`, `web-url`,
// `iso-date-time`, `iso-date`, `email`) are checked by the notification service's Ajv instance.
import { Type, type TSchema } from '@sinclair/typebox';

// \p{Cc} (U+0000–U+001F, U+007F–U+009F), \p{Zl} (U+2028) and \p{Zp} (U+2029) spelled as ranges: the
// published patterns then mean the same to validators that compile them without the `u` flag
// (decision D33; a test checks the equivalence over every code point).
export const NOT_LINE_BREAK_OR_CONTROL = '[^\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029]';
export const SINGLE_LINE = `^(?=[\\s\\S]*\\S)${NOT_LINE_BREAK_OR_CONTROL}*$`;
export const MULTI_LINE = `^(?=[\\s\\S]*\\S)(?:${NOT_LINE_BREAK_OR_CONTROL}|\\r?\\n|\\t)*$`;

/** Field types of the catalog. `max` is in characters. */
export const field = {
  /** One line of text: names, titles, labels, ids. */
  line: (max = 200) =>
    Type.String({
      minLength: 1,
      maxLength: max,
      pattern: SINGLE_LINE,
      'x-message': 'a single line of text without control characters',
    }),
  /** Free text where line breaks are allowed: descriptions, bodies. */
  text: (max = 5000) =>
    Type.String({
      minLength: 1,
      maxLength: max,
      pattern: MULTI_LINE,
      'x-message': 'text without control characters other than line breaks and tabs',
    }),
  httpsUrl: () => Type.String({ format: 'https-url' }),
  /** Rendered as a link, so only http(s): never javascript:, data: or a relative path. */
  webUrl: () => Type.String({ format: 'web-url' }),
  dateTime: () => Type.String({ format: 'iso-date-time', maxLength: 40 }),
  date: () => Type.String({ format: 'iso-date', maxLength: 40 }),
  email: () => Type.String({ format: 'email', maxLength: 254 }),
  count: () => Type.Integer({ minimum: 0, maximum: 1_000_000_000 }),
  positive: (max = 1_000_000) => Type.Integer({ minimum: 1, maximum: max }),
  enumOf: <T extends string>(values: readonly T[]) => Type.Unsafe<T>({ type: 'string', enum: [...values] }),
  opt: <S extends TSchema>(s: S) => Type.Optional(s),
};
