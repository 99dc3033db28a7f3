// Decision D36: the date checks and date formatting of the catalog are hand-written for speed; these
// properties prove they accept and print exactly what the regex-and-Date and ICU versions did.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { formatDate, formatDateTime, formatUtcDate } from '../src/rendering/format.ts';
import { isIsoDate, isIsoDateTime } from '../src/templates/template-schema.ts';

// The reference: the checks as they were before D36.
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.\d{1,9})?(?:[Zz]|[+-](\d{2}):(\d{2}))$/;
function refRealDate(y: string, m: string, d: string): boolean {
  const date = new Date(Date.UTC(Number(y), Number(m) - 1, Number(d)));
  return date.getUTCFullYear() === Number(y) && date.getUTCMonth() === Number(m) - 1 && date.getUTCDate() === Number(d);
}
function refIsIsoDateTime(value: string): boolean {
  const m = DATE_TIME.exec(value);
  if (!m) return false;
  const [, y, mo, d, h, mi, s, oh, om] = m;
  return (
    refRealDate(y!, mo!, d!) &&
    Number(h) < 24 &&
    Number(mi) < 60 &&
    Number(s) < 60 &&
    (oh === undefined || (Number(oh) < 24 && Number(om) < 60))
  );
}
function refIsIsoDate(value: string): boolean {
  const m = DATE.exec(value);
  return m !== null && refRealDate(m[1]!, m[2]!, m[3]!);
}
const ICU = new Intl.DateTimeFormat('en-GB', { timeZone: 'UTC', day: 'numeric', month: 'long', year: 'numeric' });

const digits = (min: number, max: number) =>
  fc.string({ unit: fc.constantFrom('0', '1', '2', '3', '4', '5', '6', '9'), minLength: min, maxLength: max });
const sep = (...xs: string[]) => fc.constantFrom(...xs, '', 'x', ' ', '٣');
// Near-valid strings: each part right or slightly wrong, so both sides of every branch are exercised.
const nearDateTime = fc
  .tuple(
    fc.oneof(
      digits(4, 4),
      digits(0, 5),
      fc.integer({ min: 0, max: 9999 }).map((y) => String(y).padStart(4, '0')),
    ),
    sep('-'),
    fc.oneof(
      fc.integer({ min: 0, max: 13 }).map((m) => String(m).padStart(2, '0')),
      digits(0, 3),
    ),
    sep('-'),
    fc.oneof(
      fc.integer({ min: 0, max: 32 }).map((d) => String(d).padStart(2, '0')),
      digits(0, 3),
    ),
    fc.oneof(
      fc.constant(''),
      fc
        .tuple(
          sep('T', 't'),
          digits(1, 3),
          sep(':'),
          digits(1, 3),
          sep(':'),
          digits(1, 3),
          fc.oneof(
            fc.constant(''),
            fc.tuple(sep('.'), digits(0, 11)).map((a) => a.join('')),
          ),
          fc.oneof(
            sep('Z', 'z'),
            fc.tuple(sep('+', '-'), digits(1, 3), sep(':'), digits(1, 3)).map((a) => a.join('')),
          ),
        )
        .map((a) => a.join('')),
    ),
    fc.oneof(fc.constant(''), fc.constant('\n'), fc.string({ maxLength: 2 })),
  )
  .map((a) => a.join(''));
const anyText = fc.oneof(
  nearDateTime,
  fc.string({ maxLength: 40 }),
  fc.string({ unit: fc.constantFrom('0', '2', '9', '-', ':', 'T', 't', 'Z', 'z', '+', '.'), maxLength: 32 }),
);

describe('decision D36: date checks and formatting', () => {
  it('isIsoDateTime accepts exactly what the regex-and-Date reference accepts', () => {
    fc.assert(
      fc.property(anyText, (s) => isIsoDateTime(s) === refIsIsoDateTime(s)),
      { numRuns: 50000 },
    );
  });
  it('isIsoDate accepts exactly what the regex-and-Date reference accepts', () => {
    fc.assert(
      fc.property(anyText, (s) => isIsoDate(s) === refIsIsoDate(s)),
      { numRuns: 50000 },
    );
  });
  it('every valid date-time the reference knows is accepted (leap days, offsets, fractions, years 0100-9999)', () => {
    fc.assert(
      fc.property(
        fc.date({ min: new Date('0100-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true }),
        fc.constantFrom('Z', 'z', '+05:30', '-23:59', '.123Z', '.123456789+00:00'),
        (d, tail) => {
          const s = d.toISOString().slice(0, 19) + tail;
          return isIsoDateTime(s) && refIsIsoDateTime(s) && isIsoDate(s.slice(0, 10)) && refIsIsoDate(s.slice(0, 10));
        },
      ),
      { numRuns: 5000 },
    );
    for (const s of ['2024-02-29T00:00:00Z', '2000-02-29T00:00:00Z']) assert.ok(isIsoDateTime(s), s);
    for (const s of [
      '1900-02-29T00:00:00Z',
      '2023-02-29T00:00:00Z',
      '0099-12-31T00:00:00Z',
      '2026-11-20T24:00:00Z',
      '2026-11-20T12:00:00.1234567890Z',
      '2026-11-20T12:00:00+24:00',
      '2026-11-20T12:00:00',
    ]) {
      assert.equal(isIsoDateTime(s), false, s);
      assert.equal(refIsIsoDateTime(s), false, s);
    }
  });
  it('formatUtcDate prints what ICU en-GB prints, for every date (ICU keeps years before 1 and invalid dates)', () => {
    const icu = (d: Date) => {
      try {
        return ICU.format(d);
      } catch (e) {
        return `throws ${(e as Error).name}`;
      }
    };
    const ours = (d: Date) => {
      try {
        return formatUtcDate(d);
      } catch (e) {
        return `throws ${(e as Error).name}`;
      }
    };
    fc.assert(
      fc.property(fc.date(), (d) => ours(d) === icu(d)),
      { numRuns: 20000 },
    );
    fc.assert(
      fc.property(
        fc.date({ min: new Date('0001-01-01T00:00:00Z'), max: new Date('+010001-01-01T00:00:00Z') }),
        (d) => ours(d) === icu(d),
      ),
      { numRuns: 20000 },
    );
    assert.equal(ours(new Date(NaN)), icu(new Date(NaN)));
  });
});

// The formatting as it was before D37 read the fields of canonical UTC strings without a Date.
function refFormatDate(iso: string): string {
  return formatUtcDate(new Date(iso.length === 10 ? `${iso}T00:00:00Z` : iso));
}
function refFormatDateTime(iso: string): string {
  if (iso.length === 10) return refFormatDate(iso);
  const d = new Date(iso);
  const date = formatUtcDate(d);
  return `${date}, ${String(d.getUTCHours()).padStart(2, '0')}:${String(d.getUTCMinutes()).padStart(2, '0')} UTC`;
}
const outcome = (f: (s: string) => string, s: string) => {
  try {
    return f(s);
  } catch (e) {
    return `throws ${(e as Error).name}`;
  }
};

// Canonical shapes with every field anywhere near its limits (day 00, month 13, hour 24, second 60, …).
const two = (max: number) => fc.integer({ min: 0, max }).map((n) => String(n).padStart(2, '0'));
const fieldwise = fc
  .tuple(
    fc
      .oneof(fc.integer({ min: 0, max: 9999 }), fc.constantFrom(999, 1000, 1900, 2000, 2024, 2100))
      .map((y) => String(y).padStart(4, '0')),
    two(13),
    two(32),
    two(25),
    two(61),
    two(61),
    fc.constantFrom('', '.', '.5', '.123', '.123456789', '.1234567890', '.x'),
    fc.constantFrom('Z', 'z', '', '+00:00', '-05:30', 'ZZ'),
    fc.boolean(),
  )
  .map(([y, mo, d, h, mi, sec, frac, tail, dateOnly]) =>
    dateOnly ? `${y}-${mo}-${d}` : `${y}-${mo}-${d}T${h}:${mi}:${sec}${frac}${tail}`,
  );

describe('decision D37: dates printed from the text of canonical UTC values', () => {
  it('formatDate and formatDateTime print what the Date-based versions printed, for any text', () => {
    fc.assert(
      fc.property(
        fc.oneof(anyText, fieldwise),
        (s) =>
          outcome(formatDateTime, s) === outcome(refFormatDateTime, s) &&
          outcome(formatDate, s) === outcome(refFormatDate, s),
      ),
      { numRuns: 50000 },
    );
  });
  it('… and for every valid date and date-time (leap days, fractions, offsets, years 0100-9999)', () => {
    fc.assert(
      fc.property(
        fc.date({ min: new Date('0100-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true }),
        fc.constantFrom('Z', 'z', '+05:30', '-23:59', '.1Z', '.123Z', '.123456789Z', '.123456789+00:00'),
        (d, tail) => {
          const s = d.toISOString().slice(0, 19) + tail;
          return (
            formatDateTime(s) === refFormatDateTime(s) &&
            formatDateTime(s.slice(0, 10)) === refFormatDateTime(s.slice(0, 10)) &&
            formatDate(s) === refFormatDate(s)
          );
        },
      ),
      { numRuns: 20000 },
    );
    for (const s of [
      '2024-02-29T23:59:59Z',
      '2023-02-29T00:00:00Z',
      '2026-11-20T24:00:00Z',
      '2026-11-20T12:00:60Z',
      '0999-12-31T00:00:00Z',
      '1000-01-01',
      '2026-13-01',
      '2026-11-20T12:00:00.Z',
    ]) {
      assert.equal(outcome(formatDateTime, s), outcome(refFormatDateTime, s), s);
    }
  });
});
