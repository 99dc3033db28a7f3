// The test replica's management canister over the IC's HTTP interface (decision W18), on an --empty
// replica (no wasm is installed here, so it runs in the fast lane): creation, the controller check with
// the IC's reject, update_settings, canister_status, and the effective canister id rule.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Actor, HttpAgent } from '@icp-sdk/core/agent';
import { Ed25519KeyIdentity } from '@icp-sdk/core/identity';
import { Principal } from '@icp-sdk/core/principal';
import { identityFromPem } from '@domdao/canisters/ic';
import { MANAGEMENT_CANISTER_ID, managementIdl, type CanisterSettings, type ManagementService } from '@domdao/canisters/management';
import { startReplica, type RunningReplica } from '../src/index.ts';

const noSettings: Omit<CanisterSettings, 'controllers'> = { compute_allocation: [], memory_allocation: [], freezing_threshold: [] };

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
    const { canister_id } = await mine.provisional_create_canister_with_cycles({ amount: [], settings: [], specified_id: [], sender_canister_version: [] });
    const id = canister_id.toText();
    const at = await management(owner(), id);
    const status = await at.canister_status({ canister_id });
    assert.deepEqual([status.module_hash, status.settings.controllers.map((p) => p.toText())], [[], [r.principal]]);

    const stranger = Ed25519KeyIdentity.generate();
    const theirs = await management(stranger, id);
    await assert.rejects(
      theirs.update_settings({ canister_id, settings: { controllers: [[stranger.getPrincipal()]], ...noSettings }, sender_canister_version: [] }),
      (e: Error) => /IC0512/.test(e.message) && e.message.includes(`Only the controllers of the canister ${id} can control it.`),
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

  it('decision W18: a management call is made at the canister its argument names: another effective canister id in the URL is refused', async () => {
    const mine = await management(owner(), MANAGEMENT_CANISTER_ID);
    const { canister_id } = await mine.provisional_create_canister_with_cycles({ amount: [], settings: [], specified_id: [], sender_canister_version: [] });
    const elsewhere = await management(owner(), MANAGEMENT_CANISTER_ID);
    await assert.rejects(elsewhere.canister_status({ canister_id }), (e: Error) =>
      e.message.includes(`Specified CanisterId ${canister_id.toText()} does not match effective canister id in URL aaaaa-aa`),
    );
  });
});
