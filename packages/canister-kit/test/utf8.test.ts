// Decision W17: the kit's UTF-8 decoder (QuickJS's native string functions instead of Azle's
// TextDecoder polyfill) reads every text as TextDecoder does: any string's UTF-8, chunk edges and
// multi-byte characters included, and bytes that are not UTF-8 (the standard's replacement rules).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { decodeUtf8 } from '../src/utf8.ts';

const utf8 = new TextEncoder();
const reference = new TextDecoder();

describe('decodeUtf8 (decision W17)', () => {
  it('reads the UTF-8 of any string as TextDecoder does', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 300 }), (s) =>
        assert.equal(decodeUtf8(utf8.encode(s)), reference.decode(utf8.encode(s))),
      ),
      { numRuns: 500 },
    );
  });

  it('across its 8 KiB chunks: a character split by a chunk edge, an empty text, JSON with quotes and backslashes', () => {
    for (const pad of [8190, 8191, 8192, 16383]) {
      const s = 'x'.repeat(pad) + 'é😀' + '"\\\u0000\u2028'.repeat(3);
      assert.equal(decodeUtf8(utf8.encode(s)), s);
    }
    assert.equal(decodeUtf8(new Uint8Array(0)), '');
  });

  it('bytes that are not UTF-8 are read with replacement characters, as TextDecoder reads them', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (b) => assert.equal(decodeUtf8(b), reference.decode(b))),
      { numRuns: 500 },
    );
    assert.equal(decodeUtf8(new Uint8Array([0x61, 0xff, 0x62])), 'a\ufffdb');
  });
});
