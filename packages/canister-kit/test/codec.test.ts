// The state codec (decision K4's log and K5's stable values): bigint and Uint8Array round-trip through
// JSON. Decision P6 replaced JSON.parse's reviver by one walk after a plain parse; this holds the new
// decoder to the reviver it replaced, value for value.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { decode, encode } from '../src/codec.ts';

/** The decoder before P6, kept here as the reference. */
function reviverDecode(text: string): unknown {
  return JSON.parse(text, (_key, v: unknown) => {
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
      const o = v as Record<string, unknown>;
      const keys = Object.keys(o);
      if (keys.length === 1 && typeof o.$n === 'string') return BigInt(o.$n);
      if (keys.length === 1 && typeof o.$b === 'string') {
        const hex = o.$b;
        if (hex.length % 2 !== 0 || !/^[0-9a-f]*$/.test(hex)) throw new SyntaxError('bad hex in encoded state');
        return Uint8Array.from({ length: hex.length / 2 }, (_, i) => parseInt(hex.slice(i * 2, i * 2 + 2), 16));
      }
    }
    return v;
  });
}

// Plain objects never use the tag keys (the codec's contract), so none is generated.
const stateValue = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.bigInt({ min: -(2n ** 80n), max: 2n ** 80n }),
    fc.uint8Array({ maxLength: 8 }),
    fc.string(),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(
      fc.oneof(
        fc.string().filter((k) => !['__proto__', '$n', '$b'].includes(k)),
        fc.constantFrom('constructor', '$x', 'a'),
      ),
      tie('value'),
      { maxKeys: 4, noNullPrototype: true },
    ),
  ),
})).value;

describe('state codec', () => {
  it('round-trips bigint, blobs and nesting, and decodes every text exactly as the reviver did', () => {
    fc.assert(
      fc.property(stateValue, (v) => {
        const text = encode(v);
        assert.deepEqual(decode(text), v);
        assert.deepEqual(decode(text), reviverDecode(text));
      }),
      { numRuns: 1000 },
    );
  });

  it('any JSON text, tags included, decodes (or fails) exactly as with the reviver', () => {
    const tagged = fc.oneof(
      fc.jsonValue({ maxDepth: 3 }),
      fc.record({ $n: fc.oneof(fc.constantFrom('12', '-3', 'x', ''), fc.integer().map(String)) }),
      fc.record({ $b: fc.constantFrom('00ff', 'abc', 'zz', '') }),
    );
    fc.assert(
      fc.property(fc.array(tagged, { maxLength: 3 }), (v) => {
        const text = JSON.stringify(v);
        const outcome = (f: () => unknown) => {
          try {
            return { ok: f() };
          } catch (e) {
            return { err: (e as Error).name };
          }
        };
        assert.deepEqual(
          outcome(() => decode(text)),
          outcome(() => reviverDecode(text)),
        );
      }),
      { numRuns: 1000 },
    );
  });

  it('a key named __proto__ stays an own property and never changes the prototype', () => {
    const decoded = decode<Record<string, unknown>>('{"__proto__":{"$n":"5"},"a":1}');
    assert.equal(Object.getPrototypeOf(decoded), Object.prototype);
    assert.equal(Object.getOwnPropertyDescriptor(decoded, '__proto__')?.value, 5n);
  });
});
