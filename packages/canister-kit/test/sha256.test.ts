// Decision L40: the canisters' own SHA-256 gives node:crypto's digest for every input, at each padding
// edge (55, 56 and 64 bytes: one more byte needs another block) and on random inputs.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { sha256 } from '../src/sha256.ts';

const reference = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

describe('decision L40: SHA-256 for the canisters', () => {
  it('FIPS 180-4 examples: "abc", the empty message and the two-block message', () => {
    const utf8 = (s: string) => new TextEncoder().encode(s);
    assert.equal(hex(sha256(utf8('abc'))), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    assert.equal(hex(sha256(new Uint8Array())), 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    assert.equal(
      hex(sha256(utf8('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq'))),
      '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1',
    );
  });

  it('every length from 0 to 200 bytes, across the padding edges at 55/56 and 119/120', () => {
    for (let n = 0; n <= 200; n++) {
      const data = Uint8Array.from({ length: n }, (_, i) => (i * 131 + n) & 0xff);
      assert.equal(hex(sha256(data)), reference(data), `length ${n}`);
    }
  });

  it('bytes with the high bit set (the words past 2^31 that int32 arithmetic must wrap)', () => {
    for (const n of [1, 4, 55, 56, 64, 65]) {
      const data = new Uint8Array(n).fill(0xff);
      assert.equal(hex(sha256(data)), reference(data), `length ${n}`);
    }
  });

  it('random inputs up to 4 KiB agree with node:crypto', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 4096 }), (data) => hex(sha256(data)) === reference(data)),
      { numRuns: 300 },
    );
  });

  it('leaves its input unchanged and answers a fresh array each time', () => {
    const data = Uint8Array.from([1, 2, 3]);
    const a = sha256(data);
    const b = sha256(data);
    assert.deepEqual([...data], [1, 2, 3]);
    assert.notEqual(a, b);
    a[0] = a[0]! ^ 1;
    assert.equal(hex(b), reference(data));
  });
});
