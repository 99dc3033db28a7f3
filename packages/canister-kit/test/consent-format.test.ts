// Decisions L36, L37: how consent messages show values, checked against outside references: ICRC-1's
// textual account encoding (the examples of the ICRC-1 standard's TextualEncoding.md), UTF-8 as the
// WHATWG decoder reads it, and Markdown code spans nothing in the text can close.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Principal } from '@icp-sdk/core/principal';
import {
  accountText,
  codeSpan,
  consentLanguage,
  duration,
  inert,
  memoText,
  principalBytes,
  renderConsent,
  timestamp,
  tokenAmount,
  utf8,
} from '../src/index.ts';

const OWNER = 'k2t6j-2nvnp-4zjm3-25dtz-6xhaa-c7boj-5gayf-oj3xs-i43lp-teztq-6ae';

describe('consent message values (decision L36)', () => {
  it('accounts in ICRC-1 textual form: the standard’s examples', () => {
    assert.equal(accountText({ owner: OWNER }), OWNER);
    assert.equal(
      accountText({ owner: OWNER, subaccount: new Uint8Array(32) }),
      OWNER,
      'the default subaccount is the principal alone',
    );
    const one = new Uint8Array(32);
    one[31] = 1;
    assert.equal(accountText({ owner: OWNER, subaccount: one }), `${OWNER}-6cc627i.1`);
    const counting = Uint8Array.from({ length: 32 }, (_, i) => i + 1);
    assert.equal(
      accountText({ owner: OWNER, subaccount: counting }),
      `${OWNER}-dfxgiyy.102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20`,
    );
  });

  it('principal bytes as @icp-sdk/core reads the text', () => {
    for (const text of [OWNER, '2vxsx-fae', 'aaaaa-aa', 'rrkah-fqaaa-aaaaa-aaaaq-cai'])
      assert.deepEqual(principalBytes(text), Principal.fromText(text).toUint8Array());
  });

  it('amounts with the token’s decimals, trailing zeros dropped', () => {
    assert.equal(tokenAmount(0n, 8), '0');
    assert.equal(tokenAmount(1n, 8), '0.00000001');
    assert.equal(tokenAmount(10_000n, 8), '0.0001');
    assert.equal(tokenAmount(150_000_000n, 8), '1.5');
    assert.equal(tokenAmount(2n ** 64n, 8), '184467440737.09551616');
    assert.equal(tokenAmount(42n, 0), '42');
  });

  it('times in UTC or the signer’s offset, durations in words', () => {
    const t = BigInt(Date.parse('2026-03-10T12:00:00Z')) * 1_000_000n;
    assert.equal(timestamp(t), '2026-03-10 12:00:00 UTC');
    assert.equal(timestamp(t, 330), '2026-03-10 17:30:00 UTC+05:30');
    assert.equal(timestamp(t, -720), '2026-03-10 00:00:00 UTC-12:00');
    assert.equal(timestamp(2n ** 64n - 1n), '2554-07-21 23:34:33 UTC', 'the last nat64 time');
    assert.equal(duration(0n), '0 seconds');
    assert.equal(duration(3_600_000_000_000n), '1 hour');
    assert.equal(duration(7n * 86_400n * 1_000_000_000n + 90n * 1_000_000_000n), '7 days 1 minute 30 seconds');
  });

  it('UTF-8 decoded strictly, as the WHATWG decoder in fatal mode does; memos shown as text or hex', () => {
    const fatal = new TextDecoder('utf-8', { fatal: true });
    const samples = [
      [0x61, 0x62],
      [0xc3, 0xa9],
      [0xe2, 0x9c, 0x93],
      [0xf0, 0x9d, 0x94, 0xbb],
      [0xc0, 0x80],
      [0xe0, 0x80, 0x80],
      [0xed, 0xa0, 0x80],
      [0xf4, 0x90, 0x80, 0x80],
      [0xe2, 0x82],
      [0x80],
      [0xff],
    ];
    for (const s of samples) {
      const bytes = Uint8Array.from(s);
      let expected: string | undefined;
      try {
        expected = fatal.decode(bytes);
      } catch {
        expected = undefined;
      }
      assert.equal(utf8(bytes), expected, `bytes ${s.join(',')}`);
    }
    assert.equal(memoText(new TextEncoder().encode('order 12')), 'order 12');
    assert.equal(memoText(Uint8Array.from([0x6f, 0x0a])), '0x6f0a', 'a control character: hex');
    assert.equal(memoText(Uint8Array.from([0xff, 0x00])), '0xff00');
    assert.equal(memoText(new Uint8Array()), '0x');
  });

  it('decision F41: every bidi formatting character the web app drops is inert here too, the Arabic letter mark U+061C included', () => {
    assert.equal(inert('a\u061Cb\u200Ec\u200Fd\u202Ae\u202Df\u2067g\u2069h'), 'a b c d e f g h');
    assert.equal(
      memoText(new TextEncoder().encode('pay\u061C')),
      `0x${Buffer.from('pay\u061C').toString('hex')}`,
      'a memo holding one is shown as hex',
    );
  });

  it('text from the arguments is inert: no controls or direction overrides, one line, bounded; code spans cannot be closed from inside', () => {
    assert.equal(inert('a\u202Eb\u2066c\nd\te\u0000f'), 'a b c d e f');
    assert.equal(inert('x'.repeat(10), 5), 'xxxx…');
    assert.equal(inert('x'.repeat(5), 5), 'xxxxx', 'exactly the maximum is shown whole');
    assert.equal(inert('x'.repeat(6), 5), 'xxxx…', 'one past it is cut');
    assert.equal(inert('x'.repeat(200)), 'x'.repeat(200), 'the default maximum, 200, exactly');
    assert.equal(inert('x'.repeat(201)), `${'x'.repeat(199)}…`);
    assert.equal(
      inert(`${'y'.repeat(10)}${' '.repeat(50_000)}z`, 20),
      `${'y'.repeat(10)}…`,
      'only the start of a long text is read, and it says it goes on',
    );
    assert.equal(inert('😀'.repeat(100), 10), `${'😀'.repeat(9)}…`, 'never half a surrogate pair');
    assert.equal(codeSpan('plain'), '`plain`');
    assert.equal(codeSpan('a `b` c'), '`` a `b` c ``');
    assert.equal(codeSpan('``x'), '``` ``x ```');
  });
});

describe('consent message rendering (decision L37)', () => {
  const draft = {
    intent: 'Do it',
    summary: 'You are doing it.',
    lines: [
      { label: 'When', value: { time: 1_000_000_000n } },
      { label: 'Who', value: { code: 'x`y' }, note: 'The one.' },
    ],
  };
  it('English tags are answered as asked, every other language falls back to "en"', () => {
    for (const [asked, answered] of [
      ['en', 'en'],
      ['en-US', 'en-US'],
      ['EN-gb', 'EN-gb'],
      ['de', 'en'],
      ['eng', 'en'],
      ['', 'en'],
    ] as const)
      assert.equal(consentLanguage(asked), answered, asked);
  });
  it('GenericDisplay when device_spec is absent; FieldsDisplay leaves notes out and types values', () => {
    assert.deepEqual(renderConsent(draft, { metadata: { language: 'fr' } }), {
      Ok: {
        consent_message: {
          GenericDisplayMessage:
            '# Do it\n\nYou are doing it.\n\n**When:** 1970-01-01 00:00:01 UTC\n\n**Who:** `` x`y ``  \nThe one.',
        },
        metadata: { language: 'en', utc_offset_minutes: 0 },
      },
    });
    assert.deepEqual(
      renderConsent(draft, { metadata: { language: 'en', utc_offset_minutes: -60 }, device_spec: 'FieldsDisplay' }),
      {
        Ok: {
          consent_message: {
            FieldsDisplayMessage: {
              intent: 'Do it',
              fields: [
                ['When', { TimestampSeconds: { amount: 1n } }],
                ['Who', { Text: { content: 'x`y' } }],
              ],
            },
          },
          metadata: { language: 'en', utc_offset_minutes: -60 },
        },
      },
    );
  });
});
