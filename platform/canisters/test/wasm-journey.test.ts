// test-lane: wasm (decision R17: one file on the built wasm at a time)
// Decisions W1–W3: the canisters as the Internet Computer runs them. The built wasm of all six canisters runs
// on the test replica (test/wasm-host/), reached by the same Candid clients the bridge uses on an IC
// network; the same journey runs on the embedded platform, so the two hosts are held to one behaviour.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { IDL } from '@icp-sdk/core/candid';
import { Principal } from '@icp-sdk/core/principal';
import { principalFromSeed } from '../src/principals.ts';
import { CanisterCallError } from '../src/ic/index.ts';
import { harness, tempDir, ADMIN, BRIDGE } from './harness.ts';
import { eligibilityJourney } from './scenarios/eligibility.ts';
import { membershipAndGovernanceJourney, moneyJourney, type JourneyHost } from './scenarios/journey.ts';
import { deployWasm } from '@domdao/replica';
import { WasmReplica, type ReplicaImage } from '@domdao/replica/host';

const CONTROLLER = principalFromSeed('controller');

/** The embedded platform on disk, restarted (reopened) in the middle. */
async function embeddedHost(): Promise<{ host: JourneyHost; close(): void }> {
  let h = await harness({ dir: tempDir(), trustedProposers: [BRIDGE] });
  const host: JourneyHost = {
    ids: h.platform.ids,
    admin: ADMIN,
    bridge: BRIDGE,
    as: (p) => h.as(p),
    now: () => h.now(),
    advance: (ns) => h.advance(ns),
    tick: () => h.tick(),
    restart: async () => {
      h = await h.reopen();
    },
  };
  return { host, close: () => h.platform.close() };
}

/** The built wasm on the test replica, every canister upgraded in the middle. */
async function wasmHost(): Promise<{ host: JourneyHost; replica: WasmReplica }> {
  const replica = new WasmReplica();
  const d = await deployWasm({ admins: [ADMIN], registrars: [BRIDGE], controller: CONTROLLER }, replica);
  const host: JourneyHost = {
    ids: d.ids,
    admin: ADMIN,
    bridge: BRIDGE,
    as: (p) => d.as(p),
    now: () => replica.time,
    advance: (ns) => (replica.time += ns),
    tick: () => replica.tick(),
    restart: () => d.upgradeAll(),
  };
  return { host, replica };
}

for (const [name, journey] of [
  ['the membership and governance journey', membershipAndGovernanceJourney],
  ['the money journey (price, campaign in USD, treasury payout)', moneyJourney],
  ['eligibility fixed when voting opens (decisions G23, M8)', eligibilityJourney],
] as const) {
  describe(`${name} on both hosts (decision W3)`, () => {
    it('embedded platform, restarted from disk in the middle', async () => {
      const e = await embeddedHost();
      try {
        await journey(e.host);
      } finally {
        e.close();
      }
    });

    it('the built wasm on the test replica, every canister upgraded in the middle', async () => {
      const { host, replica } = await wasmHost();
      await journey(host);
      for (const c of replica.canisters.values()) assert.equal(c.version, 1n, `${c.id} was upgraded once`);
      // Decision W4: the host stops a message over its limit; none of the journey's came near one.
      assert.ok(
        replica.counts.length > 50 && replica.counts.every((c) => !c.trapped),
        `every message counted, none trapped: ${replica.log.map((l) => l.message).join('; ')}`,
      );
    });
  });
}

describe('decision W10: a deployment this process installed before is restored from its image', () => {
  /** The image as digests: what each canister is, and what the replica recorded (bytes as their SHA-256). */
  const digest = (image: ReplicaImage) => {
    // Not a JSON.stringify replacer: it would see a Buffer (the wasm files) only after its toJSON has
    // made an array of 21 million numbers.
    const hashed = (v: unknown): unknown =>
      v instanceof Uint8Array
        ? createHash('sha256').update(v).digest('hex')
        : typeof v === 'bigint'
          ? `${v}n`
          : Array.isArray(v)
            ? v.map(hashed)
            : v !== null && typeof v === 'object'
              ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, hashed(x)]))
              : v;
    return JSON.stringify(hashed(image));
  };

  it('an install and a restored deployment have the same heaps, globals, stable memory, timers and instruction counts, and the restored one works', async () => {
    const options = { admins: [ADMIN], registrars: [BRIDGE], controller: CONTROLLER };
    // Whichever of the first two is restored (an earlier test of the process may have installed it), the
    // other is installed: a real install is held to what the image restores.
    const first = new WasmReplica();
    await deployWasm(options, first);
    const installed = new WasmReplica();
    assert.equal((await deployWasm({ ...options, fresh: true }, installed)).restored, false);
    assert.equal(
      digest(installed.image()),
      digest(first.image()),
      'an install is deterministic, and its image is what it made',
    );
    const replica = new WasmReplica();
    const d = await deployWasm(options, replica);
    assert.equal(d.restored, true);
    assert.equal(digest(replica.image()), digest(installed.image()));
    // The restored canisters answer and change as installed ones do (the journeys above upgrade restored ones).
    assert.deepEqual(
      await d.as(BRIDGE).governance.create_proposal({ title: 'Restored', body: 'from the image', category: 'General' }),
      { Ok: 1n },
    );
    assert.equal((await d.as(BRIDGE).governance.list_proposals({})).length, 1);
  });
});

describe('IC message semantics on the built wasm (decision W2)', () => {
  it('a trap (arguments that are not the method’s Candid) leaves no partial state and is rejected as a canister error', async () => {
    const replica = new WasmReplica();
    const d = await deployWasm({ admins: [ADMIN], registrars: [BRIDGE], controller: CONTROLLER }, replica);
    const before = await d.as(BRIDGE).governance.list_proposals({});
    const stable = Buffer.from(
      replica.canister(d.ids.governance).stable.subarray(0, replica.canister(d.ids.governance).stablePages * 65_536),
    );
    const r = await replica.update(
      BRIDGE,
      d.ids.governance,
      'create_proposal',
      new Uint8Array(IDL.encode([IDL.Text], ['not a proposal'])),
    );
    assert.ok('rejectCode' in r && r.rejectCode === 5, JSON.stringify(r));
    assert.deepEqual(await d.as(BRIDGE).governance.list_proposals({}), before);
    const after = replica.canister(d.ids.governance);
    assert.ok(
      Buffer.from(after.stable.buffer, after.stable.byteOffset, after.stablePages * 65_536).equals(stable),
      'stable memory unchanged',
    );
    // And the canister still works after the trap.
    const ok = await d.as(BRIDGE).governance.create_proposal({ title: 'After', body: 'a trap', category: 'General' });
    assert.ok('Ok' in ok);
  });

  it('a trap after the writes (at the reply) rolls back heap and stable memory: the proposal is not there', async () => {
    const replica = new WasmReplica();
    const d = await deployWasm({ admins: [ADMIN], registrars: [BRIDGE], controller: CONTROLLER }, replica);
    const g = replica.canister(d.ids.governance);
    const stable = Buffer.from(g.stable.subarray(0, g.stablePages * 65_536));
    replica.trapAtReply = (_c, method) => method === 'create_proposal';
    await assert.rejects(
      d.as(BRIDGE).governance.create_proposal({ title: 'Lost', body: 'trapped at its reply', category: 'General' }),
      (e: Error) => e instanceof CanisterCallError && e.rejectCode === 5,
    );
    replica.trapAtReply = undefined;
    assert.ok(
      Buffer.from(g.stable.buffer, g.stable.byteOffset, g.stablePages * 65_536).equals(stable),
      'stable memory as before',
    );
    assert.deepEqual(await d.as(BRIDGE).governance.list_proposals({}), [], 'nor does list_proposals see it');
    const id = await d
      .as(BRIDGE)
      .governance.create_proposal({ title: 'Kept', body: 'after the trap', category: 'General' });
    assert.deepEqual(id, { Ok: 1n }, 'the id the trapped call took is given again');
  });

  it('queries never commit; a call to a method that does not exist is rejected as the IC does (IC0536, decision W13), not trapped', async () => {
    const replica = new WasmReplica();
    const d = await deployWasm({ admins: [ADMIN], registrars: [BRIDGE], controller: CONTROLLER }, replica);
    const settings = await d.as(ADMIN).governance.get_settings();
    assert.equal(settings.rules.length > 0, true);
    const missing = await replica.query(ADMIN, d.ids.governance, 'no_such_method', new Uint8Array(IDL.encode([], [])));
    assert.ok(
      'rejectCode' in missing && missing.rejectCode === 5 && missing.errorCode === 'IC0536',
      JSON.stringify(missing),
    );
    assert.equal(
      missing.rejectMessage,
      `Error from Canister ${d.ids.governance}: Canister has no query method 'no_such_method'.`,
    );
    await assert.rejects(
      d
        .as(ADMIN)
        .governance.get_proposal(999n)
        .then(() => replica.update(ADMIN, 'aaaaa-aa', 'install_code', new Uint8Array()))
        .then((r) => {
          if ('rejectCode' in r) throw new CanisterCallError('aaaaa-aa', 'install_code', r.rejectMessage, r.rejectCode);
        }),
      /the arguments of install_code could not be decoded/,
    );
    assert.equal(Principal.fromText(d.ids.governance).toText(), d.ids.governance);
  });
});
