// test-lane: wasm (decision R17: one file on the built wasm at a time)
// Issue 47 item 2, the canisters' half (decisions K23, W22–W24, L47): a populated `npm start` platform's
// canister state, exported from its stopped data directory, imported into canisters that `npm run
// deploy` has just installed on the replica, through the IC's HTTP interface with the unmodified
// agent. Every store's checksum and the ledger's tip are the same after; members, votes, delegations,
// escrow and balances answer as before; a vote and a transfer work. Refused: an identity that is not a
// controller, a canister that took an update call, an import after the seal, a chunk over the limit.
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Actor, HttpAgent } from '@icp-sdk/core/agent';
import { Principal } from '@icp-sdk/core/principal';
import { Ed25519KeyIdentity } from '@icp-sdk/core/identity';
import { encode } from '@domdao/canister-kit';
import { MAX_CHUNK_ENTRIES, REFUSALS, type EntryText } from '@domdao/canister-kit/state-transfer';
import { canisterInitArgs, type RunningReplica } from '@domdao/replica';
import { startDeployedReplica } from '@domdao/replica/fixture';
import { MANAGEMENT_CANISTER_ID, managementIdl, type ManagementService } from '../src/management.ts';
import { CANISTERS, type CanisterIds, type CanisterName } from '../src/api.ts';
import { agentTransport, candidClients, identityFromPem } from '../src/ic/index.ts';
import {
  exportDeployedState,
  exportEmbeddedState,
  importState,
  manifestOf,
  remapPrincipals,
  StateTransferRefusal,
  summarizeState,
  transferClient,
  type CanisterStateExport,
  type IcTarget,
} from '../src/state-transfer/index.ts';
import { BRIDGE, harness, tempDir } from './harness.ts';
import { E8S, populate, type Populated } from './scenarios/populated.ts';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const ID_VAR: Record<CanisterName, string> = {
  governance: 'IC_GOVERNANCE_CANISTER_ID',
  membership: 'IC_MEMBERSHIP_CANISTER_ID',
  user: 'IC_USER_CANISTER_ID',
  campaign: 'IC_CAMPAIGN_CANISTER_ID',
  treasury: 'IC_TREASURY_CANISTER_ID',
  ledger: 'IC_LEDGER_CANISTER_ID',
};

/** The canister ids `npm run deploy -- --out` wrote. */
function deployedIds(out: string): CanisterIds {
  const vars = Object.fromEntries(
    readFileSync(out, 'utf8')
      .split('\n')
      .filter((l) => l.includes('='))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
  return Object.fromEntries(CANISTERS.map((c) => [c, vars[ID_VAR[c]]!])) as CanisterIds;
}

/** The transfer's refusals in the replica's canister log (decision K25): Azle writes each as its JSON. */
function transferLog(r: RunningReplica) {
  return r.replica.log.flatMap((l) => {
    try {
      const line = JSON.parse(l.message) as {
        event?: unknown;
        caller: string;
        step?: string;
        status: string;
        reason: string;
      };
      return typeof line.event === 'string' && line.event.startsWith('state_')
        ? [{ canister: l.canister, ...line, event: line.event }]
        : [];
    } catch {
      return [];
    }
  });
}

describe('canister state moved into deployed canisters over the IC HTTP interface (decisions W22–W24, L47)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'domdao-state-transfer-'));
  let r: RunningReplica;
  let target: IcTarget;
  let exp: CanisterStateExport;
  let world: Populated;
  const facts: Record<string, unknown> = {};
  /** A member with a real key: votes and transfers on the replica after the move. */
  const keyed = Ed25519KeyIdentity.generate();
  let deployer: string;
  let mapping: Record<string, string>;

  before(async () => {
    // The source: `npm start`'s canisters, populated a few days before now (the replica runs on the wall clock).
    const dataDir = tempDir();
    const h = await harness({
      dir: join(dataDir, 'canisters'),
      start: new Date(Date.now() - 4 * 86_400_000).toISOString(),
    });
    world = await populate(h, keyed.getPrincipal().toText());
    const { a, b, c, owner } = world.members;
    const as = (p: string) => h.as(p);
    facts.balances = await Promise.all([a, b, c, owner].map((p) => as(p).ledger.icrc1_balance_of({ owner: p })));
    facts.supply = await as(a).ledger.icrc1_total_supply();
    facts.allowance = await as(b).ledger.icrc2_allowance({ account: { owner: b }, spender: { owner } });
    facts.tally = await as(a).governance.get_tally(world.openProposal);
    facts.campaign = await as(owner).campaign.get_campaign(world.campaign);
    facts.tokens = await Promise.all(
      [a, b, c, owner].map((p) => as(p).membership.icrc7_tokens_of({ owner: p }, undefined, undefined)),
    );
    h.platform.close();
    exp = await exportEmbeddedState(dataDir);

    // Decision R54: a copy of the run's replica that `npm run deploy` installed the six onto (`--empty`).
    r = await startDeployedReplica(join(dir, 'replica'), join(dir, 'a.env'));
    const pem = readFileSync(r.env.IC_IDENTITY_PEM_FILE!, 'utf8');
    target = {
      host: r.env.IC_HOST!,
      identityPem: pem,
      fetchRootKey: true,
      canisterIds: deployedIds(join(dir, 'a.env')),
    };
    deployer = identityFromPem(pem).getPrincipal().toText();
    // The embedded bridge's principal becomes the deploying identity (registrar, trusted proposer) with the canister
    // ids.
    mapping = {
      ...Object.fromEntries(CANISTERS.map((c) => [exp.canisterIds[c], target.canisterIds[c]])),
      [BRIDGE]: deployer,
    };
  });
  after(async () => {
    await r?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const transfer = async (t: IcTarget) => {
    const agent = await HttpAgent.create({
      host: t.host,
      identity: identityFromPem(t.identityPem),
      shouldFetchRootKey: true,
    });
    return transferClient(agentTransport(agent), t.canisterIds);
  };
  const statuses = async (t: IcTarget) => {
    const client = await transfer(t);
    return Promise.all(CANISTERS.map(async (c) => (await client.status(c)).status));
  };

  it('W22: an identity that is not a controller is refused before anything is written', async () => {
    const stranger = {
      ...target,
      identityPem: generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
    };
    await assert.rejects(importState(stranger, exp), (e: unknown) => {
      assert.ok(e instanceof StateTransferRefusal);
      assert.equal(
        e.message,
        `the governance canister (${target.canisterIds.governance}) refused: ${REFUSALS.notController}`,
      );
      return true;
    });
    await assert.rejects(exportDeployedState(stranger), new RegExp(REFUSALS.notController));
    assert.deepEqual(await statuses(target), Array(6).fill('fresh'));
    // Decision K25: the status is a controller's only too, and each refusal is a line in the canister's log.
    await assert.rejects((await transfer(stranger)).status('ledger'), new RegExp(REFUSALS.notController));
    const strangerText = identityFromPem(stranger.identityPem).getPrincipal().toText();
    const lines = transferLog(r!);
    assert.ok(
      lines.some(
        (l) =>
          l.event === 'state_status.refused' && l.canister === target.canisterIds.ledger && l.caller === strangerText,
      ),
      JSON.stringify(lines),
    );
    assert.ok(
      lines.some(
        (l) =>
          l.event === 'state_status.refused' &&
          l.canister === target.canisterIds.governance &&
          l.reason === REFUSALS.notController,
      ),
    );
  });

  it('W22: a canister that has taken an update call is not empty: the import is refused and nothing changes; reinstalled, it is fresh again', async () => {
    const agent = await HttpAgent.create({
      host: target.host,
      identity: identityFromPem(target.identityPem),
      shouldFetchRootKey: true,
    });
    const clients = candidClients(target.canisterIds, agentTransport(agent));
    await clients.treasury.get_balance();
    const before = summarizeState(await exportDeployedState(target));
    await assert.rejects(importState(target, exp), (e: unknown) => {
      assert.ok(e instanceof StateTransferRefusal);
      assert.equal(
        e.message,
        `the treasury canister (${target.canisterIds.treasury}) is not empty: it has taken update calls since it was installed`,
      );
      return true;
    });
    assert.deepEqual(await statuses(target), ['fresh', 'fresh', 'fresh', 'fresh', 'live', 'fresh']);
    assert.deepEqual(summarizeState(await exportDeployedState(target)), before);
    assert.deepEqual(
      await (await transfer(target)).importRaw('treasury', { Begin: manifestOf(exp.canisters.treasury) }),
      { Err: REFUSALS.live },
    );
    // A controller may reinstall it (the IC empties its stable memory): fresh again, as deploy left it.
    const management = Actor.createActor<ManagementService>(managementIdl, {
      agent,
      canisterId: MANAGEMENT_CANISTER_ID,
      effectiveCanisterId: Principal.fromText(target.canisterIds.treasury),
    });
    await management.install_code({
      mode: { reinstall: null },
      canister_id: Principal.fromText(target.canisterIds.treasury),
      wasm_module: readFileSync(join(ROOT, '.azle', 'treasury', 'treasury.wasm')),
      arg: canisterInitArgs(target.canisterIds, { admins: [deployer], registrars: [deployer] }).treasury(),
      sender_canister_version: [],
    });
    assert.deepEqual(await statuses(target), Array(6).fill('fresh'));
  });

  it('W22: a chunk past the limit (entries) is refused by the canister; one at the limit is taken', async () => {
    const client = await transfer(target);
    const entries = (n: number): EntryText[] =>
      Array.from({ length: n }, (_, i) => [encode(`k${String(i).padStart(4, '0')}`), encode(i)]);
    assert.deepEqual(
      await client.importRaw('treasury', {
        Begin: { version: exp.canisters.treasury.version, stores: manifestOf(exp.canisters.treasury).stores },
      }),
      {
        Ok: { status: 'importing', imported: 0n },
      },
    );
    const over = await client.importRaw('treasury', {
      Chunk: { store: 'intents', entries: entries(MAX_CHUNK_ENTRIES + 1) },
    });
    assert.match('Err' in over ? over.Err : '', /^a chunk holds at most 500 entries/);
    const at = await client.importRaw('treasury', { Chunk: { store: 'intents', entries: entries(MAX_CHUNK_ENTRIES) } });
    assert.deepEqual(at, { Ok: { status: 'importing', imported: BigInt(MAX_CHUNK_ENTRIES) } });
    const counts = r.replica.counts.filter((c) => c.method === 'state_import');
    facts.chunkInstructions = counts[counts.length - 1]!.instructions;
    // An update call to a canister that is importing waits for the seal.
    const clients = candidClients(
      target.canisterIds,
      agentTransport(
        await HttpAgent.create({
          host: target.host,
          identity: identityFromPem(target.identityPem),
          shouldFetchRootKey: true,
        }),
      ),
    );
    await assert.rejects(
      clients.treasury.get_balance(),
      /this canister is importing its state: update calls wait until the import is sealed/,
    );
  });

  it('W22, W23, L47: imported into the freshly deployed canisters, every store checksum and the ledger tip equal the export; members, votes, escrow and balances answer as before', async () => {
    const lines: string[] = [];
    const report = await importState(target, exp, { principals: { [BRIDGE]: deployer }, say: (l) => lines.push(l) });
    assert.equal(lines.length, 12, lines.join('\n'));
    const source = summarizeState(exp);
    assert.deepEqual(summarizeState(await exportDeployedState(target)), summarizeState(remapPrincipals(exp, mapping)));
    assert.deepEqual(report, summarizeState(remapPrincipals(exp, mapping)));
    assert.equal(report.ledger.tipHash, source.ledger.tipHash);
    assert.equal(report.ledger.blocks, source.ledger.blocks);
    for (const [canister, store] of [
      ['ledger', 'blocks'],
      ['governance', 'votes'],
      ['governance', 'delegations'],
      ['user', 'accounts'],
      ['membership', 'tokens'],
    ] as const)
      assert.deepEqual(
        report.canisters[canister].stores[store],
        source.canisters[canister].stores[store],
        `${canister}.${store}: no canister id in it, the same bytes`,
      );
    assert.deepEqual(await statuses(target), Array(6).fill('sealed'));

    const identity = identityFromPem(target.identityPem);
    const agent = await HttpAgent.create({ host: target.host, identity, shouldFetchRootKey: true });
    const clients = candidClients(target.canisterIds, agentTransport(agent));
    const { a, b, c, owner } = world.members;
    assert.deepEqual(
      await Promise.all([a, b, c, owner].map((p) => clients.ledger.icrc1_balance_of({ owner: p }))),
      facts.balances,
    );
    assert.equal(await clients.ledger.icrc1_total_supply(), facts.supply);
    assert.deepEqual(
      await clients.ledger.icrc2_allowance({ account: { owner: b }, spender: { owner } }),
      facts.allowance,
    );
    assert.deepEqual(await clients.governance.get_tally(world.openProposal), facts.tally);
    assert.deepEqual(await clients.campaign.get_campaign(world.campaign), facts.campaign);
    assert.deepEqual(
      await Promise.all(
        [a, b, c, owner].map((p) => clients.membership.icrc7_tokens_of({ owner: p }, undefined, undefined)),
      ),
      facts.tokens,
    );
    // The certified tip is the imported one: the ledger's tip certificate's tree names the last block.
    const tip = await clients.ledger.icrc3_get_tip_certificate();
    assert.ok(tip, 'the ledger certifies its tip after the seal');
    assert.ok(
      Buffer.from(tip.hash_tree).toString('hex').includes(report.ledger.tipHash!),
      'the certified tree holds the tip hash',
    );
    facts.report = report;
  });

  it("W22: after the seal, another import is refused; a member votes and transfers, the bridge's principal (renamed) proposes, the escrow is at the campaign canister's new id", async () => {
    await assert.rejects(importState(target, exp), /has already imported a state and is sealed, and not this export's/);
    assert.deepEqual(await (await transfer(target)).importRaw('membership', { Seal: null }), { Err: REFUSALS.sealed });
    // Decision K25: the refused step is a line in the membership canister's log.
    assert.ok(
      transferLog(r!).some(
        (l) => l.canister === target.canisterIds.membership && l.event === 'state_import.refused' && l.step === 'Seal',
      ),
    );
    // Decision W30: the very import again (a run killed after the seal) finds it done: every canister kept, nothing
    // written.
    const kept: string[] = [];
    assert.deepEqual(
      await importState(target, exp, { principals: { [BRIDGE]: deployer }, say: (l) => kept.push(l) }),
      facts.report,
    );
    assert.deepEqual(
      kept,
      CANISTERS.map((c) => `${c}: already sealed with this export, kept`),
    );

    const member = candidClients(
      target.canisterIds,
      agentTransport(await HttpAgent.create({ host: target.host, identity: keyed, shouldFetchRootKey: true })),
    );
    const { b, c } = world.members;
    assert.deepEqual(await member.governance.cast_vote(world.openProposal, 'Yes'), { Ok: null });
    const tally = (await member.governance.get_tally(world.openProposal))!;
    assert.equal(tally.yes_votes, (facts.tally as typeof tally).yes_votes + 1n);
    assert.ok('Ok' in (await member.ledger.icrc1_transfer({ to: { owner: c }, amount: 2n * E8S })));
    assert.equal(await member.ledger.icrc1_balance_of({ owner: c }), (facts.balances as bigint[])[2]! + 2n * E8S);

    const bridge = candidClients(
      target.canisterIds,
      agentTransport(
        await HttpAgent.create({
          host: target.host,
          identity: identityFromPem(target.identityPem),
          shouldFetchRootKey: true,
        }),
      ),
    );
    assert.equal(
      await bridge.ledger.icrc1_balance_of({ owner: deployer }),
      5n * E8S,
      "the embedded bridge's DOM is the deploying identity's now",
    );
    const created = await bridge.governance.create_proposal({
      title: 'after the move',
      body: 'b',
      category: 'SetDomPrice',
      payload: { SetDomPrice: { price_usd: 0.7 } },
      proposer: b,
    });
    assert.ok(
      'Ok' in created,
      JSON.stringify(created, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v)),
    );

    const escrow = exp.canisters.ledger.stores.balances!.filter(([k]) =>
      (JSON.parse(k) as string).startsWith(exp.canisterIds.campaign),
    );
    assert.ok(escrow.length > 0);
    const after = await exportDeployedState(target);
    const moved = after.canisters.ledger.stores.balances!.filter(([k]) =>
      (JSON.parse(k) as string).startsWith(target.canisterIds.campaign),
    );
    assert.deepEqual(
      moved.map(([, v]) => v),
      escrow.map(([, v]) => v),
    );
    console.log(
      `# W22 measured: a chunk of ${MAX_CHUNK_ENTRIES} small entries took ${String(facts.chunkInstructions)} instructions (update limit 40 B)`,
    );
    console.log(`# W24 report: ${JSON.stringify(facts.report)}`);
  });
});
