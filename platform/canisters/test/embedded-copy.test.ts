// Decision P7: arguments and results cross between canisters of the embedded platform as copies, made
// by copyValue instead of structuredClone on the update path; it must give what structuredClone gives.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { copyValue } from '../src/embedded/copy-value.ts';

const cloneable = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.bigInt(),
    fc.uint8Array({ maxLength: 8 }),
    fc.string(),
    fc.double(),
    fc.boolean(),
    fc.constantFrom(null, undefined, -0),
    fc.constantFrom(
      new Date(5),
      new Map([[1, { a: 2 }]]),
      new Set([1]),
      Buffer.from([1, 2]),
      new Int16Array([3]),
      new Error('x'),
      Object.assign(Object.create(null) as object, { a: 1 }),
      // eslint-disable-next-line no-sparse-arrays -- a sparse array is one of the values copied
      [1, , 3],
    ),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.oneof(fc.string(), fc.constantFrom('__proto__', '0', 'constructor')), tie('value'), {
      maxKeys: 4,
    }),
  ),
})).value;

/** Every object reachable from `v`. */
function objects(v: unknown, out = new Set<object>()): Set<object> {
  if (v !== null && typeof v === 'object' && !out.has(v)) {
    out.add(v);
    if (!ArrayBuffer.isView(v)) for (const x of Object.values(v)) objects(x, out);
  }
  return out;
}

describe('copyValue (decision P7)', () => {
  it('gives what structuredClone gives, and shares no object with what it copied', () => {
    fc.assert(
      fc.property(cloneable, (v) => {
        const c = copyValue(v);
        assert.deepStrictEqual(c, structuredClone(v));
        const mine = objects(v);
        for (const o of objects(c)) assert.ok(!mine.has(o), 'a copy, not a reference');
      }),
      { numRuns: 2000 },
    );
  });

  it('what structuredClone refuses, it refuses the same way; a cycle is copied as a cycle', () => {
    assert.throws(
      () => copyValue({ f: () => 1 }),
      (e: Error) => e.name === 'DataCloneError',
    );
    assert.throws(
      () => copyValue([Symbol('s')]),
      (e: Error) => e.name === 'DataCloneError',
    );
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    const c = copyValue(cyclic);
    assert.equal(c.self, c);
  });
});
