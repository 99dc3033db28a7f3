// Decision D35: event.ics is folded by our adapter (calendar/fold.ts), byte-identical to ical-generator's
// own output; these properties pin that identity over arbitrary text.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { foldLines as icalGeneratorFold } from 'ical-generator';
import type { Brand } from '../src/brands/brands.ts';
import { buildIcs, buildIcsReference } from '../src/calendar/ics.ts';
import { foldLines } from '../src/calendar/fold.ts';

// Any UTF-16 text: lone and paired surrogates, CRLFs, ASCII, 2- and 3-octet characters, emoji.
const text = fc
  .array(
    fc.oneof(
      fc.string({ unit: 'binary', maxLength: 120 }),
      fc.string({ unit: 'grapheme', maxLength: 120 }),
      fc.string({
        unit: fc.constantFrom('a', ' ', 'é', '日', '🎉', '\ud83c', '\udf89', '\r\n', '\n', ',', ';', '\\'),
        maxLength: 200,
      }),
    ),
    { maxLength: 6 },
  )
  .map((parts) => parts.join(''));

const brand = (name: string): Brand => ({
  key: 'dao',
  domain: 'domdao.example',
  name,
  fromAddress: 'no-reply@domdao.example',
  supportUrl: 'https://domdao.example/support',
  postalAddress: 'Somewhere 1',
  logoUrl: 'https://domdao.example/logo.png',
  primaryColor: '#112233',
  backgroundColor: '#ffffff',
});

// Date-times as callers write them (D41 stamps canonical UTC ones from their text): any fraction, none,
// offsets, lower-case separators, the same second twice, and texts Date rolls over or refuses.
const instant = fc.date({
  min: new Date('2000-01-01T00:00:00Z'),
  max: new Date('2100-01-01T00:00:00Z'),
  noInvalidDate: true,
});
const dateText = fc.oneof(
  instant.map((d) => d.toISOString()),
  instant.map((d) => d.toISOString().replace(/\.\d+Z$/, 'Z')),
  fc.tuple(instant, fc.stringMatching(/^\d{1,9}$/)).map(([d, f]) => d.toISOString().replace(/\.\d+Z$/, `.${f}Z`)),
  fc.tuple(instant, fc.constantFrom('+05:30', '-08:00', '+00:00')).map(([d, o]) => d.toISOString().replace('Z', o)),
  instant.map((d) => d.toISOString().replace('T', 't').replace('Z', 'z')),
  fc.constantFrom(
    '2026-11-23T17:00:00Z',
    '2026-11-23T17:00:00.999Z',
    '2026-11-23T17:00:00.001Z',
    '2026-02-29T00:00:00Z',
    '2024-02-29T00:00:00Z',
    '2026-11-23T24:00:00Z',
    '2026-11-31T10:00:00Z',
    '2026-13-01T10:00:00Z',
    '2026-11-23T17:00:60Z',
    '0999-01-01T00:00:00Z',
    '2026-11-23',
  ),
);

describe('decision D35: calendar folding adapter', () => {
  it('foldLines equals ical-generator foldLines on arbitrary text', () => {
    fc.assert(
      fc.property(text, (s) => foldLines(s) === icalGeneratorFold(s)),
      { numRuns: 3000 },
    );
  });

  it('folds exactly at the 75-octet boundary, never inside a surrogate pair', () => {
    const line = `DESCRIPTION:${'🎉'.repeat(40)}`;
    assert.equal(foldLines(line), icalGeneratorFold(line));
    for (const l of foldLines(line).split('\r\n')) assert.ok(Buffer.byteLength(l) <= 75);
    assert.ok(!foldLines(line).includes('\ufffd'));
  });

  it('decision D38: buildIcs is byte-identical to ical-generator calendar.toString() for arbitrary events, and refuses what it refuses', () => {
    const event = fc.record({
      uid: fc.string({ minLength: 1, maxLength: 80 }),
      title: text,
      description: text,
      location: fc.option(text, { nil: undefined }),
      url: fc.option(fc.oneof(fc.webUrl({ withQueryParameters: true }), text), { nil: undefined }),
      organizer: fc.record({
        name: fc.oneof(fc.string({ minLength: 1, maxLength: 60 }), text),
        email: fc.oneof(fc.emailAddress(), text),
      }),
      start: dateText,
      end: dateText,
      stamp: fc.date({
        min: new Date('2000-01-01T00:00:00Z'),
        max: new Date('2100-01-01T00:00:00Z'),
        noInvalidDate: true,
      }),
    });
    fc.assert(
      fc.property(event, fc.oneof(fc.string({ minLength: 1, maxLength: 80 }), text), (e, name) => {
        const ev = {
          ...e,
          ...(e.location === undefined && { location: undefined }),
          ...(e.url === undefined && { url: undefined }),
        };
        // Same text, or both refuse (an empty organizer name or email, an empty brand name).
        const outcome = (f: typeof buildIcs) => {
          try {
            return f(ev, brand(name));
          } catch (err) {
            return `throws ${(err as Error).message}`;
          }
        };
        assert.equal(outcome(buildIcs), outcome(buildIcsReference));
      }),
      { numRuns: 3000 },
    );
  });
});
