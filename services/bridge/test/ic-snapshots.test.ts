// test-lane: replica
// Canisters on an IC network backed up and restored with canister snapshots (decisions W26, W27): the
// test replica serves the management canister's snapshot methods over the IC's HTTP interface with the
// IC's rules, and `npm run backup -- --ic take|list|restore` drives them with the deploy tool's agent.
// Snapshot, then a transfer and an account made, then the snapshots loaded: the transfer and the account
// are gone and everything from before is there.
// Decision W28: the snapshots and loads survive a crash and a clean stop, each image in a file of its own.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { generateKeyPairSync } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Actor, HttpAgent } from '@icp-sdk/core/agent';
import { Principal } from '@icp-sdk/core/principal';
import { principalFromSeed } from '@domdao/canisters';
import { icClientsFromEnv, identityFromPem } from '@domdao/canisters/ic';
import { MANAGEMENT_CANISTER_ID, managementIdl, type ManagementService } from '@domdao/canisters/management';
import { startReplica, type RunningReplica } from '@domdao/replica';
import { runScript } from '@domdao/test-helpers';
import { startInstalledReplica } from '@domdao/replica/fixture';

const E8S = 100_000_000n;
const NAMES = ['ledger', 'membership', 'governance', 'user', 'campaign', 'treasury'] as const;

const run = (args: string[], env: Record<string, string | undefined>) => runScript('scripts/backup.ts', args, env);

describe('decisions W26, W27: canister snapshots on the replica, driven by npm run backup -- --ic', () => {
  const dir = mkdtempSync(join(tmpdir(), 'domdao-snapshots-'));
  let r: RunningReplica;
  let management: (id: string, pem?: string) => Promise<ManagementService>;
  const snapshotsOf = () => Object.fromEntries(NAMES.map((n) => [n, r.replica.snapshots.get(r.ids[n])?.length ?? 0]));

  /** The journal the replica started with (a copy of the run's installed replica, decision R54). */
  let firstJournal: string[] = [];
  before(async () => {
    r = await startInstalledReplica(join(dir, 'replica'));
    firstJournal = readdirSync(join(dir, 'replica')).filter((f) => /^journal-/.test(f));
    management = async (id, pem = r.env.IC_IDENTITY_PEM_FILE!) => {
      const agent = await HttpAgent.create({
        host: r.url,
        identity: identityFromPem(readFileSync(pem, 'utf8')),
        shouldFetchRootKey: true,
      });
      return Actor.createActor<ManagementService>(managementIdl, {
        agent,
        canisterId: MANAGEMENT_CANISTER_ID,
        effectiveCanisterId: Principal.fromText(id),
      });
    };
  });
  after(async () => {
    await r?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('decision W27: take, a transfer and an account made after it, restore: the transfer and the account are gone, everything before is there', async () => {
    const { clients } = await icClientsFromEnv(r.env);
    const before1 = principalFromSeed('snapshot-before');
    const after1 = principalFromSeed('snapshot-after');
    const account = (principal: string) => ({
      principal,
      email_encrypted: 'e',
      name_encrypted: 'n',
      dob_encrypted: 'd',
      password_hash: '$argon2id$v=19$m=65536,t=3,p=4$c29tZXNhbHQ$RdescudvJCsgt3ub+b+dWRWJTmaaJObG',
      tos_accepted_at: 1n,
      is_age_verified_18_plus: true,
    });
    const ok = (r: object) =>
      assert.ok(
        'Ok' in r,
        JSON.stringify(r, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v)),
      );
    ok(await clients.ledger.icrc1_transfer({ to: { owner: before1 }, amount: 5n * E8S }));
    ok(await clients.user.create_account(account(before1)));
    const blocksBefore = (await clients.ledger.icrc3_get_blocks([{ start: 0n, length: 0n }])).log_length;
    const mineBefore = await clients.ledger.icrc1_balance_of({ owner: r.principal });

    const set = join(dir, 'set.json');
    const taken = await run(['--ic', 'take', '--out', set], r.env);
    assert.equal(taken.code, 0, taken.err + taken.out);
    assert.deepEqual(snapshotsOf(), Object.fromEntries(NAMES.map((n) => [n, 1])));
    for (const n of NAMES) assert.equal(r.replica.stopped.has(r.ids[n]), false, `${n} is running again`);
    const listed = await run(['--ic', 'list'], r.env);
    assert.equal(listed.code, 0, listed.err);
    for (const n of NAMES) assert.match(listed.out, new RegExp(`^${n} ${r.ids[n]}: 1 snapshot\\(s\\)$`, 'm'));

    // After the backup: a transfer and an account.
    ok(await clients.ledger.icrc1_transfer({ to: { owner: after1 }, amount: 7n * E8S }));
    ok(await clients.user.create_account(account(after1)));
    assert.equal(await clients.ledger.icrc1_balance_of({ owner: after1 }), 7n * E8S);

    const restored = await run(['--ic', 'restore', '--from', set], r.env);
    assert.equal(restored.code, 0, restored.err + restored.out);
    for (const n of NAMES) assert.equal(r.replica.stopped.has(r.ids[n]), false, `${n} is running again`);
    assert.equal(await clients.ledger.icrc1_balance_of({ owner: after1 }), 0n, 'the transfer after the backup is gone');
    assert.equal(await clients.user.get_account(after1), undefined, 'the account made after the backup is gone');
    assert.equal(
      await clients.ledger.icrc1_balance_of({ owner: before1 }),
      5n * E8S,
      'the transfer before the backup is there',
    );
    assert.ok(await clients.user.get_account(before1), 'the account made before the backup is there');
    assert.equal(await clients.ledger.icrc1_balance_of({ owner: r.principal }), mineBefore);
    assert.equal(
      (await clients.ledger.icrc3_get_blocks([{ start: 0n, length: 0n }])).log_length,
      blocksBefore,
      'the ledger ends where it ended at the backup',
    );
    // And it goes on: a transfer after the restore.
    ok(await clients.ledger.icrc1_transfer({ to: { owner: after1 }, amount: 2n * E8S }));
    assert.equal(await clients.ledger.icrc1_balance_of({ owner: after1 }), 2n * E8S);
  });

  it('decision W26: controllers only, load only on a stopped canister, a stopped canister rejects calls, the limit per canister and replace_snapshot', async () => {
    const id = r.ids.treasury;
    const mc = await management(id);
    const canister_id = Principal.fromText(id);
    const [first] = await mc.list_canister_snapshots({ canister_id });
    assert.ok(first);
    await assert.rejects(
      mc.load_canister_snapshot({ canister_id, snapshot_id: Uint8Array.from(first.id), sender_canister_version: [] }),
      /IC0510|must be stopped before loading a snapshot/,
    );
    // Another identity is no controller: refused by the tool before any canister is stopped.
    const stranger = join(dir, 'stranger.pem');
    writeFileSync(
      stranger,
      generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
    );
    const before = snapshotsOf();
    const res = await run(['--ic', 'take'], { ...r.env, IC_IDENTITY_PEM_FILE: stranger });
    assert.equal(res.code, 2, res.err);
    assert.match(
      res.err,
      /^backup: the identity \S+ \(IC_IDENTITY_PEM_FILE\) is not a controller of the ledger canister \S+: snapshots are for its controllers only\n$/,
    );
    assert.deepEqual(snapshotsOf(), before);
    assert.equal(r.replica.stopped.size, 0);
    await assert.rejects(
      (await management(id, stranger)).take_canister_snapshot({
        canister_id,
        replace_snapshot: [],
        uninstall_code: [],
        sender_canister_version: [],
      }),
      /IC0512|Only the controllers/,
    );
    // Stopped: calls and queries are rejected, status says so; started again, they run.
    await mc.stop_canister({ canister_id });
    assert.deepEqual((await mc.canister_status({ canister_id })).status, { stopped: null });
    const { clients } = await icClientsFromEnv(r.env);
    await assert.rejects(clients.treasury.get_balance(), /IC0508|is stopped/);
    await mc.start_canister({ canister_id });
    await clients.treasury.get_balance();
    // The limit (lowered here: an image of an Azle canister is tens of MB): one more only by replacing one.
    r.replica.snapshotLimit = 2;
    try {
      const second = await mc.take_canister_snapshot({
        canister_id,
        replace_snapshot: [],
        uninstall_code: [],
        sender_canister_version: [],
      });
      await assert.rejects(
        mc.take_canister_snapshot({
          canister_id,
          replace_snapshot: [],
          uninstall_code: [],
          sender_canister_version: [],
        }),
        /maximum number of snapshots allowed: 2/,
      );
      const third = await mc.take_canister_snapshot({
        canister_id,
        replace_snapshot: [Uint8Array.from(first.id)],
        uninstall_code: [],
        sender_canister_version: [],
      });
      const ids = (await mc.list_canister_snapshots({ canister_id })).map((s) => Buffer.from(s.id).toString('hex'));
      assert.deepEqual(
        ids,
        [second, third].map((s) => Buffer.from(s.id).toString('hex')),
      );
      await mc.delete_canister_snapshot({ canister_id, snapshot_id: Uint8Array.from(second.id) });
      await assert.rejects(
        mc.delete_canister_snapshot({ canister_id, snapshot_id: Uint8Array.from(second.id) }),
        /Could not find the snapshot ID/,
      );
      assert.equal((await mc.list_canister_snapshots({ canister_id })).length, 1);
    } finally {
      r.replica.snapshotLimit = 10;
    }
    assert.equal(existsSync(join(dir, 'set.json')), true);
  });

  it("decision W28: each snapshot's image is a file of its own and the journal names it (no whole state.bin per snapshot); a crash and a clean stop keep every take, load and delete", async () => {
    const replicaDir = join(dir, 'replica');
    const { clients } = await icClientsFromEnv(r.env);
    const balances = async (c: typeof clients) =>
      Promise.all(
        ['snapshot-before', 'snapshot-after'].map((seed) =>
          c.ledger.icrc1_balance_of({ owner: principalFromSeed(seed) }),
        ),
      );
    const held = await balances(clients);
    assert.deepEqual(held, [5n * E8S, 2n * E8S]);
    const listed = () =>
      Object.fromEntries(
        NAMES.map((n) => [
          n,
          (r.replica.snapshots.get(r.ids[n]) ?? []).map((s) => Buffer.from(s.id).toString('hex')).sort(),
        ]),
      );
    const kept = listed();
    const counters = Object.fromEntries(NAMES.map((n) => [n, r.replica.snapshotCounter.get(r.ids[n])]));
    // Eight takes, six loads and a delete since the start: still the journal it started with, no new state.bin.
    assert.equal(firstJournal.length, 1);
    assert.deepEqual(
      readdirSync(replicaDir).filter((f) => /^journal-/.test(f)),
      firstJournal,
    );
    const files = () => readdirSync(join(replicaDir, 'snapshots')).sort();
    assert.deepEqual(
      files().length,
      NAMES.length + 2,
      'one file per snapshot taken (the deleted one stays until the next state.bin)',
    );

    // A crash: the journal's records bring back the loads (the later transfer applies on the loaded state) and the
    // lists.
    await r.abandon();
    r = await startReplica({ dir: replicaDir });
    assert.deepEqual(listed(), kept);
    assert.deepEqual(Object.fromEntries(NAMES.map((n) => [n, r.replica.snapshotCounter.get(r.ids[n])])), counters);
    assert.deepEqual(await balances((await icClientsFromEnv(r.env)).clients), held);

    // A clean stop: state.bin names the snapshots kept, and the deleted one's file is gone.
    await r.stop();
    r = await startReplica({ dir: replicaDir });
    assert.deepEqual(listed(), kept);
    assert.deepEqual(
      files(),
      Object.values(kept)
        .flat()
        .map((id) => `${id}.bin`)
        .sort(),
    );
    assert.deepEqual(await balances((await icClientsFromEnv(r.env)).clients), held);
    const again = await run(['--ic', 'list'], r.env);
    assert.equal(again.code, 0, again.err);
    assert.match(again.out, new RegExp(`^treasury ${r.ids.treasury}: 1 snapshot\\(s\\)$`, 'm'));
  });
});
