// Decision L26: the root hash the ledger certifies for ICRC-3's tip, against values computed here from
// the standard's and the IC interface specification's text with node:crypto, never the ledger's code:
// a known vector for the tip tree, and the tip of a real log (its last block hashed here too).
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { tipTree, treeRootHash } from '../core/certification.ts';
import { certifiedTip } from '../core/icrc3.ts';
import type { Value } from '../core/types.ts';
import { E8S, ledger, party } from './harness.ts';

const sha256 = (...parts: Uint8Array[]) => parts.reduce((h, p) => h.update(p), createHash('sha256')).digest();
/** The interface specification's domain separator: one byte of length, then the text. */
const sep = (s: string) => Buffer.concat([Buffer.from([s.length]), Buffer.from(s)]);
const leaf = (v: Uint8Array) => sha256(sep('ic-hashtree-leaf'), v);
const labeled = (label: string, t: Buffer) => sha256(sep('ic-hashtree-labeled'), Buffer.from(label), t);
const fork = (l: Buffer, r: Buffer) => sha256(sep('ic-hashtree-fork'), l, r);
function uleb(n: bigint): Buffer {
  const out: number[] = [];
  for (;;) {
    const low = Number(n % 128n);
    n /= 128n;
    if (n === 0n) return Buffer.from([...out, low]);
    out.push(low + 128);
  }
}
/** ICRC-3 "Value Hash", as far as the ledger's blocks need it (no Int). */
function valueHash(v: Value): Buffer {
  if ('Nat' in v) return sha256(uleb(v.Nat));
  if ('Text' in v) return sha256(Buffer.from(v.Text, 'utf8'));
  if ('Blob' in v) return sha256(v.Blob);
  if ('Array' in v) return sha256(...v.Array.map(valueHash));
  if ('Map' in v)
    return sha256(
      ...v.Map.map(([k, x]) => Buffer.concat([sha256(Buffer.from(k, 'utf8')), valueHash(x)])).sort(Buffer.compare),
    );
  throw new Error(
    `no Int in a ledger block: ${JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? String(x) : x))}`,
  );
}
/** ICRC-3's tip tree: the labels in order, last_block_hash then last_block_index (leb128). */
const tipRoot = (index: bigint, hash: Uint8Array) =>
  fork(labeled('last_block_hash', leaf(hash)), labeled('last_block_index', leaf(uleb(index))));

describe('ICRC-3 certified tip (decision L26)', () => {
  it('the tip tree of index 300 and a hash of 32 bytes 0xab has the root computed by hand (a known vector)', () => {
    const hash = new Uint8Array(32).fill(0xab);
    assert.equal(uleb(300n).toString('hex'), 'ac02', 'leb128 of 300');
    const expected = '3c00723070ad64731e95ede55c034fcdd307748a2f038b9e371763b88f566a39';
    assert.equal(tipRoot(300n, hash).toString('hex'), expected, 'the test computes the vector it states');
    assert.equal(Buffer.from(treeRootHash(tipTree(300n, hash))).toString('hex'), expected);
  });

  it("the ledger certifies the root of its last block's index and hash: none while empty, then each new block's", async () => {
    const l = await ledger();
    assert.equal(certifiedTip(l.stores), undefined, 'an empty log certifies nothing');
    const l2 = await ledger([[{ owner: party(1) }, 10n * E8S]]);
    for (let i = 1; i <= 3; i++) {
      assert.ok(
        'Ok' in
          (await l2
            .as(party(1))
            .icrc1_transfer({ to: { owner: party(2) }, amount: BigInt(i), memo: new Uint8Array([i]) })),
      );
      const log = await l2.as(party(2)).icrc3_get_blocks([{ start: 0n, length: 100n }]);
      const last = log.blocks.at(-1)!;
      assert.equal(last.id, log.log_length - 1n);
      assert.equal(last.id, BigInt(i));
      assert.deepEqual(
        Buffer.from(certifiedTip(l2.stores)!),
        tipRoot(last.id, valueHash(last.block as Value)),
        `after block ${i}`,
      );
    }
  });
});
