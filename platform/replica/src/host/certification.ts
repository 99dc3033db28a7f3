// Decision W9: certified data and certificates on the test replica. A canister's certified data (at
// most 32 bytes, set by init, upgrade hooks, updates, callbacks and timers) is certified in a state
// tree `canister/<id>/certified_data` beside `time`, as the IC's certificates are (interface
// specification, "Certification"), and signed with the replica's own BLS12-381 key the way a subnet
// signs (a short signature over "ic-state-root" and the root hash). The replica's `rootKey` (DER, as
// an agent's root key) verifies it, so a client's own certificate check runs unchanged against it.
import { createHash } from 'node:crypto';
import { bls12_381 } from '@noble/curves/bls12-381';
import { Cbor } from '@icp-sdk/core/agent';
import { Principal } from '@icp-sdk/core/principal';

import { rootHash, type HashTree } from '../http/state-tree.ts';

type Tree = HashTree;

const sha256 = (...parts: Uint8Array[]) => {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return new Uint8Array(h.digest());
};
const text = (s: string) => new Uint8Array(Buffer.from(s));
const domain = (s: string) => Uint8Array.from([s.length, ...Buffer.from(s)]);

function leb128(n: bigint): Uint8Array {
  const out: number[] = [];
  do {
    const byte = Number(n & 0x7fn);
    n >>= 7n;
    out.push(n === 0n ? byte : byte | 0x80);
  } while (n !== 0n);
  return Uint8Array.from(out);
}

/** The DER prefix of an IC root key (a BLS12-381 G2 public key), as agents expect it. */
const DER_PREFIX = Buffer.from('308182301d060d2b0601040182dc7c0503010201060c2b0601040182dc7c05030201036100', 'hex');

export class TestSubnetKey {
  private readonly secret: Uint8Array;
  /** The public key, DER-encoded: what an agent is given as its root key. */
  readonly rootKey: Uint8Array;
  constructor(seed = 'domdao test replica') {
    // A scalar below the group order: the top byte cleared keeps any hash in range.
    this.secret = sha256(text(seed));
    this.secret[0] = 0;
    const pk = bls12_381.shortSignatures.getPublicKey(this.secret).toBytes(true);
    this.rootKey = new Uint8Array(Buffer.concat([DER_PREFIX, pk]));
  }

  /** The certificate of `canister`'s certified data at `time` (ns), CBOR-encoded: {tree, signature}. */
  certificate(canister: string, certifiedData: Uint8Array, time: bigint): Uint8Array {
    const tree: Tree = [
      1,
      [
        2,
        text('canister'),
        [2, Principal.fromText(canister).toUint8Array(), [2, text('certified_data'), [3, certifiedData]]],
      ],
      [2, text('time'), [3, leb128(time)]],
    ];
    return this.sign(tree);
  }

  /** A certificate of `tree` (decision W13's reads and calls): the CBOR of `{tree, signature}` signed by this key. */
  sign(tree: HashTree): Uint8Array {
    const s = bls12_381.shortSignatures;
    const signature = s
      .sign(s.hash(new Uint8Array(Buffer.concat([domain('ic-state-root'), rootHash(tree)]))), this.secret)
      .toBytes(true);
    return new Uint8Array(Cbor.encode({ tree, signature }));
  }
}
