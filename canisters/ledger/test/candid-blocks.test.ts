// Decision L42: the wasm's icrc3_get_blocks replies are written without the candid library's encoder
// (candid-blocks.ts). Every byte is compared with the library's own encoding of the same result
// (@icp-sdk/core's IDL, which the bridge decodes with): random ICRC-3 Values of every case, naturals
// and integers across the LEB128 byte boundaries and past 2^64, several blocks and archive callbacks.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { IDL } from '@icp-sdk/core/candid';
import { Principal } from '@icp-sdk/core/principal';
import { toCandid } from '@domdao/canister-kit/candid';
import { encodeGetBlocksReply, encodeValue, getBlocksReplyHeader, idlHash } from '../candid-blocks.ts';
import { ledgerTypes } from '../candid.ts';
import type { GetBlocksResult } from '../core/block-log.ts';
import type { Value } from '../core/types.ts';

const types = ledgerTypes(IDL);
const principalCodec = {
  fromText: (t: string) => Principal.fromText(t),
  toText: (p: unknown) => (p as Principal).toText(),
};
const header = getBlocksReplyHeader(IDL, types.GetBlocksResult);

const nat = fc.oneof(
  fc.bigInt({ min: 0n, max: 300n }),
  fc.constantFrom(
    127n,
    128n,
    16383n,
    16384n,
    2n ** 53n - 1n,
    2n ** 53n,
    2n ** 63n,
    2n ** 64n - 1n,
    2n ** 64n,
    2n ** 70n + 5n,
  ),
  fc.bigInt({ min: 0n, max: 2n ** 80n }),
);
const int = fc.oneof(
  fc.bigInt({ min: -300n, max: 300n }),
  fc.constantFrom(-64n, -65n, 63n, 64n, -(2n ** 63n), 2n ** 63n),
  fc.bigInt({ min: -(2n ** 80n), max: 2n ** 80n }),
);
const { value } = fc.letrec<{ value: Value }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.uint8Array({ maxLength: 40 }).map((Blob) => ({ Blob })),
    fc.string({ unit: 'grapheme', maxLength: 12 }).map((Text) => ({ Text })),
    nat.map((Nat) => ({ Nat })),
    int.map((Int) => ({ Int })),
    fc.array(tie('value'), { maxLength: 4 }).map((Array) => ({ Array })),
    fc.array(fc.tuple(fc.string({ maxLength: 10 }), tie('value')), { maxLength: 5 }).map((Map) => ({ Map })),
  ),
}));
const principal = fc.uint8Array({ minLength: 0, maxLength: 29 }).map((b) => Principal.fromUint8Array(b).toText());
const range = fc.record({ start: nat, length: nat });

/** The candid library's encoding of a result, as any canister of the ledger's interface would reply it. */
const libraryEncoding = (r: GetBlocksResult) =>
  new Uint8Array(IDL.encode([types.GetBlocksResult], [toCandid(types.GetBlocksResult, r, principalCodec)]));

describe('icrc3_get_blocks replies written directly (decision L42)', () => {
  it('field ids are Candid’s hash of the label (the spec’s examples)', () => {
    assert.equal(idlHash('foo'), 5097222);
    assert.equal(idlHash('bar'), 4895187);
    assert.equal(idlHash('Nat'), 3900609);
  });

  it('a reply of random Values, blocks and archive callbacks is byte for byte the candid library’s', () => {
    fc.assert(
      fc.property(
        nat,
        fc.array(fc.tuple(nat, value), { maxLength: 5 }),
        fc.array(fc.tuple(fc.array(range, { maxLength: 3 }), principal, fc.string({ maxLength: 20 })), {
          maxLength: 3,
        }),
        (log_length, blocks, archived) => {
          const result: GetBlocksResult = {
            log_length,
            blocks: blocks.map(([id, block]) => ({ id, block })),
            archived_blocks: archived.map(([args, canister, method]) => ({ args, callback: [canister, method] })),
          };
          const written = encodeGetBlocksReply(header, {
            log_length,
            blocks: blocks.map(([id, block]) => ({ id, value: encodeValue(block) })),
            archived_blocks: archived.map(([args, canister, method]) => ({
              args,
              callback: { canister: Principal.fromText(canister).toUint8Array(), method },
            })),
          });
          assert.deepEqual(Buffer.from(written).toString('hex'), Buffer.from(libraryEncoding(result)).toString('hex'));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('a negative nat is refused rather than written', () => {
    assert.throws(() => encodeGetBlocksReply(header, { log_length: -1n, blocks: [], archived_blocks: [] }), RangeError);
  });
});
