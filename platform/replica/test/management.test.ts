// The test replica's management canister over the IC's HTTP interface (decision W18), on an --empty
// replica (no built canister is installed here, only a hand-made module of a few bytes, so it runs in the
// fast lane): creation, the controller check with the IC's reject, update_settings, canister_status, the
// effective canister id rule, and how the journal keeps them (decision W34).
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Actor, HttpAgent } from '@icp-sdk/core/agent';
import { Ed25519KeyIdentity } from '@icp-sdk/core/identity';
import { Principal } from '@icp-sdk/core/principal';
import { identityFromPem } from '@domdao/canisters/ic';
import {
  MANAGEMENT_CANISTER_ID,
  managementIdl,
  type CanisterSettings,
  type ManagementService,
} from '@domdao/canisters/management';
import { startReplica, type RunningReplica } from '../src/index.ts';
import { u32 } from '../src/host/index.ts';

const noSettings: Omit<CanisterSettings, 'controllers'> = {
  compute_allocation: [],
  memory_allocation: [],
  freezing_threshold: [],
};

const name = (text: string) => [...u32(text.length), ...Buffer.from(text)];
const section = (id: number, content: number[]) => [id, ...u32(content.length), ...content];
/** i64.store of `value` (below 0x40: one LEB128 byte) at heap address 0. */
const storeAtZero = (value: number) => [0x41, 0x00, 0x42, value, 0x37, 0x03, 0x00];
/**
 * A module whose `canister_init` stores `init` at heap address 0 and copies those 8 bytes to a page of
 * stable memory it grows, and whose `canister_post_upgrade` stores `upgraded` there (stable memory kept).
 */
function probe(init: number, upgraded: number): Uint8Array {
  const bodies = [
    [...storeAtZero(init), 0x42, 0x01, 0x10, 0x00, 0x1a, 0x42, 0x00, 0x42, 0x00, 0x42, 0x08, 0x10, 0x01],
    storeAtZero(upgraded),
  ];
  return Uint8Array.from([
    ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
    // () -> (), (i64) -> i64, (i64, i64, i64) -> ()
    ...section(1, [0x03, 0x60, 0x00, 0x00, 0x60, 0x01, 0x7e, 0x01, 0x7e, 0x60, 0x03, 0x7e, 0x7e, 0x7e, 0x00]),
    ...section(2, [
      0x02,
      ...name('ic0'),
      ...name('stable64_grow'),
      0x00,
      0x01,
      ...name('ic0'),
      ...name('stable64_write'),
      0x00,
      0x02,
    ]),
    ...section(3, [0x02, 0x00, 0x00]),
    ...section(5, [0x01, 0x00, 0x01]),
    ...section(7, [
      0x03,
      ...name('memory'),
      0x02,
      0x00,
      ...name('canister_init'),
      0x00,
      0x02,
      ...name('canister_post_upgrade'),
      0x00,
      0x03,
    ]),
    ...section(10, [0x02, ...bodies.flatMap((b) => [...u32(b.length + 2), 0x00, ...b, 0x0b])]),
  ]);
}

describe('decision W18: the management canister of an --empty test replica over HTTP', () => {
  const dir = mkdtempSync(join(tmpdir(), 'domdao-management-'));
  let r: RunningReplica;
  const management = async (identity: ReturnType<typeof identityFromPem>, effective: string) =>
    Actor.createActor<ManagementService>(managementIdl, {
      agent: await HttpAgent.create({ host: r.url, identity, shouldFetchRootKey: true }),
      canisterId: MANAGEMENT_CANISTER_ID,
      effectiveCanisterId: Principal.fromText(effective),
    });
  const owner = () => identityFromPem(readFileSync(r.env.IC_IDENTITY_PEM_FILE!, 'utf8'));

  before(async () => {
    r = await startReplica({ dir, empty: true });
  });
  after(async () => {
    await r?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("decision W18: a created canister is the caller's; only a controller reads its status or changes its settings (IC0512), and a restart keeps it", async () => {
    const mine = await management(owner(), MANAGEMENT_CANISTER_ID);
    const { canister_id } = await mine.provisional_create_canister_with_cycles({
      amount: [],
      settings: [],
      specified_id: [],
      sender_canister_version: [],
    });
    const id = canister_id.toText();
    const at = await management(owner(), id);
    const status = await at.canister_status({ canister_id });
    assert.deepEqual([status.module_hash, status.settings.controllers.map((p) => p.toText())], [[], [r.principal]]);

    const stranger = Ed25519KeyIdentity.generate();
    const theirs = await management(stranger, id);
    await assert.rejects(
      theirs.update_settings({
        canister_id,
        settings: { controllers: [[stranger.getPrincipal()]], ...noSettings },
        sender_canister_version: [],
      }),
      (e: Error) =>
        /IC0512/.test(e.message) && e.message.includes(`Only the controllers of the canister ${id} can control it.`),
    );
    await assert.rejects(theirs.canister_status({ canister_id }), /IC0512/);
    assert.deepEqual(r.replica.controllersOf(id), [r.principal]);

    await at.update_settings({
      canister_id,
      settings: { controllers: [[Principal.fromText(r.principal), stranger.getPrincipal()]], ...noSettings },
      sender_canister_version: [],
    });
    const shared = await theirs.canister_status({ canister_id });
    assert.deepEqual(
      shared.settings.controllers.map((p) => p.toText()),
      [r.principal, stranger.getPrincipal().toText()],
    );

    // Management rounds end with a snapshot: a restart (even a crash) keeps the canister and its controllers.
    await r.abandon();
    r = await startReplica({ dir });
    assert.equal(r.empty, true);
    assert.deepEqual(r.replica.controllersOf(id), [r.principal, stranger.getPrincipal().toText()]);
  });

  it('decision W34: a create, an install, new controllers and an upgrade are journaled (no new state.bin); a crash and a clean stop keep them', async () => {
    const own = mkdtempSync(join(tmpdir(), 'domdao-management-journal-'));
    let q = await startReplica({ dir: own, empty: true });
    try {
      const agent = await HttpAgent.create({
        host: q.url,
        identity: identityFromPem(readFileSync(q.env.IC_IDENTITY_PEM_FILE!, 'utf8')),
        shouldFetchRootKey: true,
      });
      const at = (effective: string) =>
        Actor.createActor<ManagementService>(managementIdl, {
          agent,
          canisterId: MANAGEMENT_CANISTER_ID,
          effectiveCanisterId: Principal.fromText(effective),
        });
      const made = await at(MANAGEMENT_CANISTER_ID).provisional_create_canister_with_cycles({
        amount: [],
        settings: [],
        specified_id: [],
        sender_canister_version: [],
      });
      const canister_id = made.canister_id;
      const id = canister_id.toText();
      const mine = at(id);
      const installed = probe(0x11, 0x22);
      await mine.install_code({
        mode: { install: null },
        canister_id,
        wasm_module: installed,
        arg: new Uint8Array(),
        sender_canister_version: [],
      });
      const other = Ed25519KeyIdentity.generate().getPrincipal();
      await mine.update_settings({
        canister_id,
        settings: { controllers: [[Principal.fromText(q.principal), other]], ...noSettings },
        sender_canister_version: [],
      });
      const upgraded = probe(0x11, 0x33);
      await mine.install_code({
        mode: { upgrade: [] },
        canister_id,
        wasm_module: upgraded,
        arg: new Uint8Array(),
        sender_canister_version: [],
      });
      const state = () => {
        const c = q.replica.canister(id);
        return {
          heap: Buffer.from(c.live().heap.subarray(0, 8)).toString('hex'),
          stable: Buffer.from(c.stable.subarray(0, 8)).toString('hex'),
          version: c.version,
          module: createHash('sha256').update(c.wasm).digest('hex'),
          controllers: q.replica.controllersOf(id),
        };
      };
      const expected = {
        heap: `33${'00'.repeat(7)}`,
        stable: `11${'00'.repeat(7)}`,
        version: 1n,
        module: createHash('sha256').update(upgraded).digest('hex'),
        controllers: [q.principal, other.toText()],
      };
      assert.deepEqual(state(), expected);
      // Four management rounds since the directory's first state.bin: still its journal, each module in a file once.
      assert.deepEqual(
        readdirSync(own).filter((f) => /^journal-/.test(f)),
        ['journal-1.bin'],
      );
      assert.deepEqual(
        readdirSync(join(own, 'modules')).sort(),
        [installed, upgraded].map((m) => `${createHash('sha256').update(m).digest('hex')}.wasm`).sort(),
      );

      // A crash (no state.bin written): the journal alone brings the canister back as it was.
      await q.abandon();
      q = await startReplica({ dir: own });
      assert.deepEqual(state(), expected);
      // A clean stop: the new state.bin holds the module, so the module files go.
      await q.stop();
      q = await startReplica({ dir: own });
      assert.deepEqual(state(), expected);
      assert.deepEqual(readdirSync(join(own, 'modules')), []);
    } finally {
      await q.stop();
      rmSync(own, { recursive: true, force: true });
    }
  });

  it('decision W18: a management call is made at the canister its argument names: another effective canister id in the URL is refused', async () => {
    const mine = await management(owner(), MANAGEMENT_CANISTER_ID);
    const { canister_id } = await mine.provisional_create_canister_with_cycles({
      amount: [],
      settings: [],
      specified_id: [],
      sender_canister_version: [],
    });
    const elsewhere = await management(owner(), MANAGEMENT_CANISTER_ID);
    await assert.rejects(elsewhere.canister_status({ canister_id }), (e: Error) =>
      e.message.includes(
        `Specified CanisterId ${canister_id.toText()} does not match effective canister id in URL aaaaa-aa`,
      ),
    );
  });
});
