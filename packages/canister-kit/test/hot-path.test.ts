// Decision P7: the update path's cheaper parts answer what the ones they replaced
// answered. The log line is the state codec's text, character for character; the embedded store reads
// and writes as a plain map would, including the keys sorted-btree's get(key, default) mis-answers
// (above every key of the tree) and values that are undefined; a rollback and the journal see every write.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { decode, encode } from '../src/codec.ts';
import { encodeRecord, encodeValue } from '../src/embedded/record.ts';
import { EmbeddedHost } from '../src/embedded/index.ts';

// Everything JSON.stringify meets in practice, the codec's tags and what JSON leaves out or turns into null.
const anyValue = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.bigInt({ min: -(2n ** 80n), max: 2n ** 80n }),
    fc.uint8Array({ maxLength: 8 }),
    fc.string({ unit: 'binary' }),
    fc.double(),
    fc.integer(),
    fc.boolean(),
    fc.constantFrom(null, undefined, -0, NaN, Infinity, () => 1, Symbol('s')),
    fc.constantFrom(
      new Date(0),
      new Map([[1, 2]]),
      Buffer.from([1, 2]),
      new Int16Array([3]),
      Object.assign(Object.create(null) as object, { a: 1 }),
      {
        toJSON: () => 'x',
      },
    ),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.oneof(fc.string(), fc.constantFrom('__proto__', '0', '10', 'constructor', 'a"b')), tie('value'), {
      maxKeys: 4,
    }),
  ),
})).value;

describe('the log line (decision P7)', () => {
  it('encodeValue is encode, character for character, on any value', () => {
    fc.assert(
      fc.property(anyValue, (v) => {
        assert.equal(encodeValue(v), encode(v));
      }),
      { numRuns: 3000 },
    );
  });

  it('encodeRecord is encode({seq, ops}), and decodes to the same record', () => {
    const key = fc.oneof(fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }), fc.integer(), fc.string());
    const op = fc.oneof(fc.tuple(fc.string(), key, anyValue), fc.tuple(fc.string(), key));
    fc.assert(
      fc.property(fc.nat(), fc.array(op, { maxLength: 5 }), (seq, ops) => {
        const line = encodeRecord(seq, ops);
        assert.equal(line, encode({ seq, ops }));
        assert.deepEqual(decode(line), decode(encode({ seq, ops })));
      }),
      { numRuns: 2000 },
    );
  });

  it('nesting too deep for the fast path and cycles get the codec’s own outcome', () => {
    let deep: unknown = 1n;
    for (let i = 0; i < 200; i++) deep = { a: [deep] };
    assert.equal(encodeValue(deep), encode(deep));
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    assert.throws(() => encodeValue(cyclic), TypeError);
  });
});

describe('the embedded store against a map (decision P7)', () => {
  it('get, has, set, delete, size and order agree under random writes, with undefined values, rollbacks and keys past the end', async () => {
    const action = fc.oneof(
      fc.record({
        kind: fc.constant('set' as const),
        key: fc.integer({ min: 0, max: 400 }),
        value: fc.option(fc.integer(), { nil: undefined }),
      }),
      fc.record({ kind: fc.constant('delete' as const), key: fc.integer({ min: 0, max: 400 }) }),
      fc.record({ kind: fc.constant('append' as const), value: fc.option(fc.integer(), { nil: undefined }) }),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ actions: fc.array(action, { maxLength: 40 }), fail: fc.boolean() }), { maxLength: 12 }),
        async (calls) => {
          const host = EmbeddedHost.open();
          const s = host.store<number, number | undefined>('governance', 'votes');
          const model = new Map<number, number | undefined>();
          // Enough keys for the tree to have internal nodes, where sorted-btree's get(key, default) slips.
          await host.update('governance', () => {
            for (let k = 0; k < 400; k += 4) s.set(k, k % 8 ? k : undefined);
          });
          for (let k = 0; k < 400; k += 4) model.set(k, k % 8 ? k : undefined);
          for (const call of calls) {
            const draft = new Map(model);
            const outcome = host.update('governance', () => {
              for (const a of call.actions) {
                if (a.kind === 'delete') assert.equal(s.delete(a.key), draft.delete(a.key));
                else {
                  const key = a.kind === 'append' ? Math.max(400, ...draft.keys()) + 1 : a.key;
                  s.set(key, a.value);
                  draft.set(key, a.value);
                }
              }
              if (call.fail) throw new Error('trap');
            });
            if (call.fail) await assert.rejects(outcome, /trap/);
            else {
              await outcome;
              model.clear();
              for (const [k, v] of draft) model.set(k, v);
            }
            assert.equal(s.size, model.size);
            for (let k = 0; k <= 402 + calls.length * 40; k++) {
              assert.equal(s.has(k), model.has(k), `has(${k})`);
              assert.equal(s.get(k), model.get(k), `get(${k})`);
            }
            assert.deepEqual(
              [...s.entries()],
              [...model].sort((a, b) => a[0] - b[0]),
            );
          }
          host.close();
        },
      ),
      { numRuns: 150 },
    );
  });

  it('the journal holds the last write of each key, after a restart too', async () => {
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const dir = mkdtempSync(join(tmpdir(), 'hot-path-'));
    try {
      const host = EmbeddedHost.open({ dir, fsync: false });
      const s = host.store<string, number>('ledger', 'balances');
      await host.update('ledger', () => {
        for (let i = 0; i < 40; i++) s.set(`k${i % 7}`, i); // past the scan limit: the last write per key by map
        s.delete('k3');
        s.set('k9', 9);
      });
      await host.update('ledger', () => {
        s.set('a', 1);
        s.set('a', 2);
        s.delete('k0');
      });
      const expected = [...s.entries()];
      host.close();
      const again = EmbeddedHost.open({ dir });
      assert.deepEqual([...again.store<string, number>('ledger', 'balances').entries()], expected);
      again.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
