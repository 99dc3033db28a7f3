// test-lane: wasm (decision R17: one file on the built wasm at a time)
// Decision L28: DFINITY's ICRC-1/ICRC-2 acceptance cases and the rules of the ICRC-1, ICRC-2, ICRC-3
// and ICRC-10 texts the suite leaves out (icrc-suite/), one set of cases run on both hosts: the
// embedded ledger core and the built wasm (`ledger_embedded`) on the test replica. ICRC-3's hash is
// checked against the standard's test vectors, and the tip certificate on the wasm host the way a
// client checks it (decision L26, W9).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { IDL } from '@icp-sdk/core/candid';
import { Cbor, Certificate, lookupResultToBuffer } from '@icp-sdk/core/agent';
import { Principal } from '@icp-sdk/core/principal';
import { toCandid } from '@domdao/canister-kit/candid';
import { ledgerTypes } from '@domdao/canister-ledger';
import { EMBEDDED_CANISTER_IDS } from '../src/index.ts';
import { candidClients, principalCodec } from '../src/ic/index.ts';
import { principalFromSeed } from '../src/principals.ts';
import { harness, type Harness } from './harness.ts';
import { WasmReplica } from '@domdao/replica/host';
import { wasmOf } from '@domdao/replica';
import { ROOT, SUITE, type LedgerEnv } from './icrc-suite/cases.ts';
import { RULES } from './icrc-suite/rules.ts';
import { lookup, reconstruct, uleb, valueHash, type Tree, type Value } from './icrc-suite/verify.ts';

const E8S = 100_000_000n;
const CONTROLLER = principalFromSeed('controller');

async function fundRoot(env: LedgerEnv): Promise<void> {
  const r = await env.ledger(env.minter).icrc1_transfer({ to: { owner: ROOT }, amount: 1_000_000n * E8S });
  assert.ok('Ok' in r);
}

async function embeddedEnv(): Promise<{ env: LedgerEnv; close(): void }> {
  const h: Harness = await harness();
  const env: LedgerEnv = {
    host: 'embedded',
    ledgerId: h.platform.ids.ledger,
    minter: h.platform.ids.governance,
    ledger: (p) => h.as(p).ledger,
    time: () => h.now(),
    advance: (ns) => h.advance(ns),
    // Decision L26: no subnet signs the embedded host's state, so there is no certificate to give.
    checkTipCertificate: async (tip) => assert.equal(tip, undefined),
  };
  return { env, close: () => h.platform.close() };
}

async function wasmEnv(): Promise<{ env: LedgerEnv; replica: WasmReplica; upgrade(): Promise<void> }> {
  const replica = new WasmReplica();
  const ids = EMBEDDED_CANISTER_IDS;
  const init = ledgerTypes(IDL).InitArgs;
  const arg = {
    minting_account: { owner: ids.governance },
    transfer_fee: 10_000n,
    token_name: 'DOM',
    token_symbol: 'DOM',
    decimals: 8,
    initial_balances: [],
  };
  const initArg = new Uint8Array(IDL.encode([init], [toCandid(init as never, arg, principalCodec)]));
  await replica.install(ids.ledger, wasmOf('ledger'), initArg, CONTROLLER);
  const canisterId = Principal.fromText(ids.ledger);
  const env: LedgerEnv = {
    host: 'wasm',
    ledgerId: ids.ledger,
    minter: ids.governance,
    ledger: (p) => candidClients(ids, replica.transport(p)).ledger,
    time: () => replica.time,
    advance: (ns) => (replica.time += ns),
    async checkTipCertificate(tip, lastIndex, lastHash) {
      assert.ok(tip, 'an ingress query gets the certificate');
      const tree = Cbor.decode<Tree>(tip.hash_tree);
      assert.deepEqual(lookup(tree, ['last_block_index']), uleb(lastIndex), 'last_block_index, leb128');
      assert.deepEqual(lookup(tree, ['last_block_hash']), lastHash, 'last_block_hash is the hash of the last block');
      // The certificate as a client checks it: the agent's verification with the replica's root key...
      const verify = (certificate: Uint8Array) =>
        Certificate.create({
          certificate,
          rootKey: replica.subnetKey.rootKey,
          principal: { canisterId },
          disableTimeVerification: true,
        });
      const cert = await verify(tip.certificate);
      const certified = lookupResultToBuffer(
        cert.lookup_path(['canister', canisterId.toUint8Array(), 'certified_data']),
      );
      assert.deepEqual(
        Buffer.from(certified!),
        reconstruct(tree),
        'the certified data is the root hash of the tip tree',
      );
      // ...and our own reading of the same certificate.
      const raw = Cbor.decode<{ tree: Tree; signature: Uint8Array }>(tip.certificate);
      assert.deepEqual(lookup(raw.tree, ['canister', canisterId.toUint8Array(), 'certified_data']), reconstruct(tree));
      assert.deepEqual(lookup(raw.tree, ['time']), uleb(replica.time));
      const forged = new Uint8Array(
        Cbor.encode({ ...raw, signature: raw.signature.map((b, i) => (i === 5 ? b ^ 1 : b)) }),
      );
      await assert.rejects(verify(forged), 'a changed signature does not verify');
      const otherTree = new Uint8Array(Cbor.encode({ ...raw, tree: [1, raw.tree, [3, new Uint8Array([1])]] }));
      await assert.rejects(verify(otherTree), 'a changed tree does not verify');
      // An update call of the same query (replicated) has no certificate, as on the IC.
      const viaUpdate = await replica.update(
        ROOT,
        ids.ledger,
        'icrc3_get_tip_certificate',
        new Uint8Array(IDL.encode([], [])),
      );
      assert.ok('reply' in viaUpdate);
      assert.deepEqual(
        IDL.decode(
          [IDL.Opt(IDL.Record({ certificate: IDL.Vec(IDL.Nat8), hash_tree: IDL.Vec(IDL.Nat8) }))],
          viaUpdate.reply,
        ),
        [[]],
      );
    },
  };
  return { env, replica, upgrade: () => replica.upgrade(ids.ledger, initArg, CONTROLLER) };
}

describe('ICRC-3 representation-independent hash: the test vectors of the standard (HASHINGVALUES.md)', () => {
  const hex = (v: Value) => valueHash(v).toString('hex');
  const bytes = (h: string) => new Uint8Array(Buffer.from(h, 'hex'));
  it('Nat, Int, Text, Blob, Array and Map give the published hashes', () => {
    assert.equal(hex({ Nat: 42n }), '684888c0ebb17f374298b65ee2807526c066094c701bcc7ebbe1c1095f494fc1');
    assert.equal(hex({ Int: -42n }), 'de5a6f78116eca62d7fc5ce159d23ae6b889b365a1739ad2cf36f925a140d0cc');
    assert.equal(hex({ Text: 'Hello, World!' }), 'dffd6021bb2bd5b0af676290809ec3a53191dd81c7f70a4b28688a362182986f');
    assert.equal(hex({ Blob: bytes('01020304') }), '9f64a747e1b97f131fabb6b447296c9b6f0201e79fb3c5356e6c77e89b6a806a');
    assert.equal(
      hex({ Array: [{ Nat: 3n }, { Text: 'foo' }, { Blob: bytes('0506') }] }),
      '514a04011caa503990d446b7dec5d79e19c221ae607fb08b2848c67734d468d6',
    );
    assert.equal(
      hex({
        Map: [
          ['from', { Blob: bytes('00abcdef0012340056789a00bcdef000012345678900abcdef01') }],
          ['to', { Blob: bytes('00ab0def0012340056789a00bcdef000012345678900abcdef01') }],
          ['amount', { Nat: 42n }],
          ['created_at', { Nat: 1699218263n }],
          ['memo', { Nat: 0n }],
        ],
      }),
      'c56ece650e1de4269c5bdeff7875949e3e2033f85b2d193c2ff4f7f78bdcfc75',
    );
  });
});

const CASES = [...SUITE, ...RULES];

describe('decision L28: the ICRC-1/ICRC-2 suite and the standards’ rules on the embedded ledger', () => {
  let embedded: Awaited<ReturnType<typeof embeddedEnv>>;
  before(async () => {
    embedded = await embeddedEnv();
    await fundRoot(embedded.env);
  });
  after(() => embedded.close());
  for (const c of CASES) it(`embedded: ${c.name}`, () => c.run(embedded.env));
});

describe('decision L28: the same cases on the built wasm (test replica)', () => {
  let env: LedgerEnv;
  before(async () => {
    env = (await wasmEnv()).env;
    await fundRoot(env);
  });
  for (const c of CASES) it(`wasm: ${c.name}`, () => c.run(env));
});

describe('decisions L26, W9: the certified tip on the test replica follows committed blocks only', () => {
  it('a transfer that traps after setting certified data leaves the certified tip as it was; a committed one moves it; an upgrade keeps it and the certificate still verifies', async () => {
    const { env, replica, upgrade } = await wasmEnv();
    await fundRoot(env);
    const ledger = replica.canister(env.ledgerId);
    const root = env.ledger(ROOT);
    const certifiedTip = async () => {
      const tip = await root.icrc3_get_tip_certificate();
      assert.ok(tip);
      return {
        data: Buffer.from(ledger.certifiedData),
        index: lookup(Cbor.decode<Tree>(tip.hash_tree), ['last_block_index']),
      };
    };
    const before = await certifiedTip();
    assert.equal(before.data.length, 32);
    assert.deepEqual(before.index, uleb(0n));
    replica.trapAtReply = (_c, method) => method === 'icrc1_transfer';
    await assert.rejects(root.icrc1_transfer({ to: { owner: env.minter }, amount: 10n * E8S }), /injected trap/);
    replica.trapAtReply = undefined;
    assert.deepEqual(await certifiedTip(), before, 'rolled back with the message');
    assert.equal((await root.icrc3_get_blocks([])).log_length, 1n);
    assert.ok('Ok' in (await root.icrc1_transfer({ to: { owner: env.minter }, amount: 10n * E8S })));
    const moved = await certifiedTip();
    assert.notDeepEqual(moved.data, before.data);
    assert.deepEqual(moved.index, uleb(1n));
    await upgrade();
    assert.deepEqual(await certifiedTip(), moved, 'kept across the upgrade (and set again by post_upgrade)');
    const tip = (await root.icrc3_get_tip_certificate())!;
    const cert = await Certificate.create({
      certificate: tip.certificate,
      rootKey: replica.subnetKey.rootKey,
      principal: { canisterId: Principal.fromText(env.ledgerId) },
      disableTimeVerification: true,
    });
    assert.deepEqual(
      Buffer.from(
        lookupResultToBuffer(
          cert.lookup_path(['canister', Principal.fromText(env.ledgerId).toUint8Array(), 'certified_data']),
        )!,
      ),
      moved.data,
    );
  });
});
