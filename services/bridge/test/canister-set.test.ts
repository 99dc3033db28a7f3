// No silent split (decisions B100–B103, V40): a database belongs to one canister set, recorded at the
// first start and compared at every start; embedded canisters belong to one live bridge (a PostgreSQL
// lease); production needs IC canisters or BRIDGE_SINGLE_INSTANCE=true; and the rows whose meaning is
// one set's (the followers' events, outbox operations, the wallet's index of the ledger) are that set's,
// so rows of another set in the tables are never followed from, run or shown.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { once } from 'node:events';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { ConfigError } from '@domdao/config';
import { captureLogs, freePort, START_DEV_FLAGS, type CapturedLogs } from '@domdao/test-helpers';
import { openBridge } from '../src/compose/open-bridge.ts';
import { loadBridgeConfig } from '../src/config.ts';
import { CanisterSetRefused } from '../src/core/canister-set/refused.ts';
import { EMBEDDED_LEASE_KEY } from '../src/core/canister-set/binding.ts';
import { icCanisterSet, SET_FILE } from '../src/core/canister-set/identity.ts';
import {
  ADMIN_EMAIL,
  BACKENDS,
  bridge,
  eventually,
  freshPostgres,
  TEST_PASSWORD_COST,
  type Bridge,
} from './harness.ts';

const MAIN = new URL('../src/main.ts', import.meta.url).pathname;
const FOREIGN = 'embedded:AAAAAAAAAAAAAAAAAAAAAA';

/** A bridge opened the production way from `env` (what `npm run bridge` does before it listens). */
async function open(env: Record<string, string>, logs: CapturedLogs = captureLogs()) {
  const opened = await openBridge(loadBridgeConfig(env), env, {
    logStream: logs.stream,
    scheduler: false,
    passwordCost: TEST_PASSWORD_COST,
  });
  return { app: opened.app, opened, logs };
}

const baseEnv = (dir: string, url: string): Record<string, string> => ({
  NODE_ENV: 'test',
  LOG_LEVEL: 'info',
  DATA_DIR: dir,
  DATABASE_URL: url,
  PUBLIC_URL: 'https://bridge.domdao.example',
});

const tempDir = (prefix: string) => mkdtempSync(join(tmpdir(), prefix));

/** The refusal `open` must end in, with its reason. */
async function refused(
  p: Promise<unknown>,
  reason: CanisterSetRefused['reason'],
  message: RegExp,
): Promise<CanisterSetRefused> {
  let err: unknown;
  await p.then(
    () => assert.fail(`the bridge started; expected a refusal (${reason})`),
    (e: unknown) => (err = e),
  );
  assert.ok(err instanceof CanisterSetRefused, String(err));
  assert.equal(err.reason, reason);
  assert.match(err.message, message);
  return err;
}

async function auditRows(
  url: string,
): Promise<Array<{ event: string; outcome: string; detail: Record<string, unknown> }>> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (
      await c.query(`select event, outcome, detail from audit_log where event = 'canister_set.refused' order by id`)
    ).rows;
  } finally {
    await c.end();
  }
}

/** Holders and waiters of the embedded canisters' lease in the database at `url`. */
async function leaseState(url: string): Promise<{ held: number; waiting: number }> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const { rows } = await c.query<{ held: string; waiting: string }>(
      `select count(*) filter (where granted)::text as held, count(*) filter (where not granted)::text as waiting
       from pg_locks where locktype = 'advisory' and database = (select oid from pg_database where datname = current_database())
       and ((classid::bigint << 32) | objid::bigint) = $1::bigint`,
      [EMBEDDED_LEASE_KEY.toString()],
    );
    return { held: Number(rows[0]!.held), waiting: Number(rows[0]!.waiting) };
  } finally {
    await c.end();
  }
}

function startProcess(env: Record<string, string>): {
  child: ChildProcess;
  output: () => string;
  exit: Promise<number>;
} {
  const child = spawn(process.execPath, [...START_DEV_FLAGS, MAIN], {
    env: { PATH: process.env.PATH, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exit = once(child, 'exit').then(([code]) => code as number);
  return { child, output: () => out, exit };
}

describe('decisions B100, B101: one canister set per database, one live bridge per embedded set', () => {
  it('two bridges with embedded canisters on one PostgreSQL database: the second is refused while the first lives (its own DATA_DIR, or a copy of the first set), another set is refused for good, the first set starts again once it stopped', async (t) => {
    const db = await freshPostgres('bridge_split', { migrated: true });
    t.after(() => db.drop());
    const [dirA, dirB, dirCopy] = [tempDir('split-a-'), tempDir('split-b-'), tempDir('split-copy-')];
    t.after(() => [dirA, dirB, dirCopy].forEach((d) => rmSync(d, { recursive: true, force: true })));

    const a = await open(baseEnv(dirA, db.url));
    const recorded = a.logs.events('canister_set.recorded');
    assert.equal(recorded.length, 1, 'the first start records the set');
    const setA = recorded[0]!.canister_set as string;
    assert.match(setA, /^embedded:[A-Za-z0-9_-]{22}$/);
    const proposal = await a.opened.canisters.clients.governance.create_proposal({
      title: 'Kept',
      body: 'Made by the first set.',
      category: 'General',
    });
    assert.ok('Ok' in proposal);

    // Another DATA_DIR (another set) while the first lives: the lease names the live holder.
    const inUse = new RegExp(
      `this database is in use by the bridge on .+ \\(PID ${process.pid}, DATA_DIR ${dirA}, since .+\\), a live bridge with embedded canisters: .+stop the other bridge first, or run several bridges with canisters on an IC network`,
    );
    const logsB = captureLogs();
    await refused(open(baseEnv(dirB, db.url), logsB), 'in_use', inUse);
    assert.equal(logsB.events('bridge.start_refused').length, 1, 'a log line says why');
    // The same set in another directory (DATA_DIR copied to a second host): the lease refuses it too.
    mkdirSync(join(dirCopy, 'canisters'));
    copyFileSync(join(dirA, 'canisters', SET_FILE), join(dirCopy, 'canisters', SET_FILE));
    await refused(open(baseEnv(dirCopy, db.url)), 'in_use', inUse);

    await a.app.close();
    // The first stopped: another set is still refused, now because the database is the first set's.
    const err = await refused(
      open(baseEnv(dirB, db.url)),
      'another_set',
      /^this database belongs to another canister set \(embedded canisters in .+, embedded:.+, recorded .+\) than this bridge's \(embedded canisters in .+\): start the bridge with that set's canisters, or point DATABASE_URL at a database of this set's own/,
    );
    assert.ok(err.message.includes(setA) && err.message.includes(dirA), err.message);

    // The first set's own directory starts again, its state intact.
    const again = await open(baseEnv(dirA, db.url));
    try {
      assert.equal(again.logs.events('canister_set.recorded').length, 0, 'recorded once, compared since');
      assert.equal((await again.opened.canisters.clients.governance.list_proposals({ limit: 10 })).length, 1);
    } finally {
      await again.app.close();
    }
    // Decision B101: every refusal is audited in the database it would have split.
    assert.deepEqual(
      (await auditRows(db.url)).map((r) => [r.outcome, r.detail.reason, r.detail.mode]),
      [
        ['denied', 'in_use', 'embedded'],
        ['denied', 'in_use', 'embedded'],
        ['denied', 'another_set', 'embedded'],
      ],
    );
  });

  it('the bridge process: a second one exits 1 with the reason in one sentence; the first killed with SIGKILL leaves no lease behind (PostgreSQL ends its session)', async (t) => {
    const db = await freshPostgres('bridge_split_proc', { migrated: true });
    t.after(() => db.drop());
    const [dirA, dirB] = [tempDir('split-pa-'), tempDir('split-pb-')];
    t.after(() => [dirA, dirB].forEach((d) => rmSync(d, { recursive: true, force: true })));
    const env = (dir: string, port: number) => ({
      ...baseEnv(dir, db.url),
      NODE_ENV: 'development',
      HOST: '127.0.0.1',
      PORT: String(port),
      LOG_LEVEL: 'info',
    });

    /** Resolves once the process answers /health; rejects if it exits first. */
    const answering = (p: ReturnType<typeof startProcess>, port: number) => {
      let exited = false;
      void p.exit.then(() => (exited = true));
      return eventually(
        'the bridge answering /health',
        async () => {
          if (exited) throw new Error(`the bridge exited: ${p.output()}`);
          return (
            (await fetch(`http://127.0.0.1:${port}/health`).then(
              (r) => r.ok,
              () => false,
            )) || undefined
          );
        },
        60_000,
      );
    };
    const port = await freePort();
    const first = startProcess(env(dirA, port));
    t.after(() => first.child.kill('SIGKILL'));
    await answering(first, port);
    const secondPort = await freePort();
    const second = startProcess(env(dirB, secondPort));
    t.after(() => second.child.kill('SIGKILL'));
    const outcome = await Promise.race([
      second.exit,
      answering(second, secondPort).then(
        () => 'started',
        () => 'exited',
      ),
    ]);
    assert.equal(outcome === 'exited' ? await second.exit : outcome, 1, second.output());
    assert.match(
      second.output(),
      new RegExp(
        `bridge: this database is in use by the bridge on .+ \\(PID ${first.child.pid}, DATA_DIR ${dirA}, since .+\\)`,
      ),
    );
    assert.match(second.output(), /"event":"bridge.start_refused"/, 'and a log line');

    first.child.kill('SIGKILL');
    await first.exit;
    // The server ends the killed process's session once it reads the closed socket; the lock goes with it.
    await eventually(
      'the killed bridge session ended',
      async () => (await leaseState(db.url)).held === 0 || undefined,
      30_000,
    );
    const again = await open(baseEnv(dirA, db.url));
    await again.app.close();
  });

  it('a lost lease connection is taken again; taken by another session meanwhile, the bridge stops its canisters, /health answers 503 and the loss is audited', async (t) => {
    const db = await freshPostgres('bridge_split_lost', { migrated: true });
    const dir = tempDir('split-lost-');
    const b = await open(baseEnv(dir, db.url));
    const admin = new pg.Client({ connectionString: db.url });
    const other = new pg.Client({ connectionString: db.url });
    t.after(async () => {
      await b.app.close();
      await admin.end();
      await other.end().catch(() => undefined);
      await db.drop();
      rmSync(dir, { recursive: true, force: true });
    });
    await admin.connect();
    const leasePid = async () =>
      (
        await admin.query<{ pid: number }>(
          `select pid from pg_stat_activity where application_name = 'domdao-bridge canister lease' and datname = current_database()`,
        )
      ).rows.map((r) => r.pid);

    // A server-side end of the session (a restart, a cut connection): taken again, nothing else holds it.
    const [firstPid] = await leasePid();
    assert.ok(firstPid);
    await admin.query('select pg_terminate_backend($1)', [firstPid]);
    await eventually('the lease taken again', () => b.logs.events('canister_set.lease_retaken')[0], 20_000);
    assert.equal((await b.app.inject({ method: 'GET', url: '/health' })).statusCode, 200);
    const [secondPid] = await leasePid();
    assert.ok(secondPid && secondPid !== firstPid);

    // Now another session is queued for the lock when the connection goes: it gets it first.
    await other.connect();
    const otherHolds = other.query('select pg_advisory_lock($1::bigint)', [EMBEDDED_LEASE_KEY.toString()]);
    await eventually(
      'the other session waiting for the lock',
      async () => (await leaseState(db.url)).waiting === 1 || undefined,
    );
    await admin.query('select pg_terminate_backend($1)', [secondPid]);
    await otherHolds;
    const lost = await eventually('the lease lost', () => b.logs.events('canister_set.lease_lost')[0], 20_000);
    assert.match(
      String(lost.msg),
      /lost its hold on the database's embedded canisters to another bridge while its connection was down, and has stopped its canisters/,
    );
    const health = await b.app.inject({ method: 'GET', url: '/health' });
    assert.equal(health.statusCode, 503);
    assert.equal(health.json().error, 'DATABASE_FAILED');
    assert.match(health.json().message, /another bridge holds this database's embedded canisters now/);
    await assert.rejects(
      b.opened.canisters.clients.governance.list_proposals({ limit: 1 }),
      'its canisters are closed',
    );
    await eventually('the loss audited', async () =>
      (await auditRows(db.url)).find((r) => r.detail.reason === 'lease_lost'),
    );
  });

  it('canisters on an IC network are named by their ids and network: the same ones start again, another ledger id is another set (configuration only); an instance with secrets of its own is refused, one with the same starts beside (decision B109)', async (t) => {
    const db = await freshPostgres('bridge_split_ic', { migrated: true });
    t.after(() => db.drop());
    const dir = tempDir('split-ic-');
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const pem = join(dir, 'bridge.pem');
    writeFileSync(pem, generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }).toString());
    // Nothing is called at start: the replica behind IC_HOST need not exist.
    const ic = {
      IC_HOST: 'http://127.0.0.1:9',
      IC_IDENTITY_PEM_FILE: pem,
      IC_GOVERNANCE_CANISTER_ID: 'rrkah-fqaaa-aaaaa-aaaaq-cai',
      IC_MEMBERSHIP_CANISTER_ID: 'ryjl3-tyaaa-aaaaa-aaaba-cai',
      IC_USER_CANISTER_ID: 'r7inp-6aaaa-aaaaa-aaabq-cai',
      IC_CAMPAIGN_CANISTER_ID: 'rkp4c-7iaaa-aaaaa-aaaca-cai',
      IC_TREASURY_CANISTER_ID: 'rno2w-sqaaa-aaaaa-aaacq-cai',
      IC_LEDGER_CANISTER_ID: 'renrk-eyaaa-aaaaa-aaada-cai',
    };
    // Mainnet is one network whatever boundary node; a local replica is named by its URL.
    assert.equal(
      icCanisterSet({ ...ic, IC_HOST: 'https://icp-api.io' }).id,
      icCanisterSet({ ...ic, IC_HOST: 'https://ic0.app' }).id,
    );
    assert.notEqual(
      icCanisterSet({ ...ic, IC_FETCH_ROOT_KEY: 'true' }).id,
      icCanisterSet({ ...ic, IC_FETCH_ROOT_KEY: 'true', IC_HOST: 'http://127.0.0.1:4943' }).id,
    );
    const first = await open({ ...baseEnv(dir, db.url), ...ic });
    assert.equal(first.opened.canisters.mode, 'ic');
    assert.equal(first.logs.events('canister_set.recorded')[0]!.canister_set, icCanisterSet(ic).id);
    // Decision B109: an instance whose generated secrets are its own (another DATA_DIR's keys.json) is refused.
    await refused(
      open({ ...baseEnv(join(dir, 'own-keys'), db.url), ...ic }),
      'other_secrets',
      /^this database's rows are bound to other secrets than this bridge's: MEMBER_IDENTITY_SECRET and BLIND_INDEX_KEY differ from the ones recorded when it was first used .+ \(decision B109\)$/,
    );
    // IC canisters scale out: a second instance of the same set, with the same secrets, starts beside the first (no
    // lease).
    mkdirSync(join(dir, 'other'));
    copyFileSync(join(dir, 'keys.json'), join(dir, 'other', 'keys.json'));
    const beside = await open({ ...baseEnv(join(dir, 'other'), db.url), ...ic });
    await beside.app.close();
    await first.app.close();
    await refused(
      open({ ...baseEnv(dir, db.url), ...ic, IC_LEDGER_CANISTER_ID: 'rwlgt-iiaaa-aaaaa-aaaaa-cai' }),
      'another_set',
      /^this database belongs to another canister set \(IC canisters on IC mainnet, ic:.+\) than this bridge's \(IC canisters on IC mainnet, ic:.+\)/,
    );
  });

  it('a database from before sets were recorded: the first start records the set and gives it the earlier rows, and the follower goes on from them without copying any twice', async (t) => {
    const db = await freshPostgres('bridge_split_legacy', { migrated: true });
    t.after(() => db.drop());
    const dir = tempDir('split-legacy-');
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const governanceRows = async (d: Awaited<ReturnType<typeof open>>) =>
      (
        await sql<{
          canister_set: string;
          source_id: string;
        }>`select canister_set, source_id from bridge_events where source = 'governance' order by seq`.execute(
          d.opened.db,
        )
      ).rows;

    const before = await open(baseEnv(dir, db.url));
    await before.app.ready();
    await before.opened.canisters.clients.governance.create_proposal({
      title: 'Old',
      body: 'Before sets.',
      category: 'General',
    });
    await eventually('the first event copied', async () => (await governanceRows(before)).length > 0 || undefined);
    const copied = (await governanceRows(before)).length;
    await before.app.close();
    // As an earlier release left it: no set recorded, no set on the rows, none beside the canisters' state.
    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    for (const table of [
      'bridge_events',
      'bridge_outbox',
      'wallet_ledger_blocks',
      'wallet_account_blocks',
      'wallet_ledger_cursor',
    ])
      await c.query(`update ${table} set canister_set = ''`);
    await c.query(`update wallet_ledger_cursor set ledger_id = ''`);
    await c.query('delete from bridge_canister_set');
    await c.end();
    rmSync(join(dir, 'canisters', SET_FILE));

    const after = await open(baseEnv(dir, db.url));
    try {
      const [line] = after.logs.events('canister_set.recorded');
      assert.ok(line && (line.adopted as number) >= copied, JSON.stringify(line));
      await after.app.ready();
      await after.opened.canisters.clients.governance.create_proposal({
        title: 'New',
        body: 'After sets.',
        category: 'General',
      });
      await eventually('the new event copied', async () => (await governanceRows(after)).length > copied || undefined);
      const rows = await governanceRows(after);
      assert.ok(
        rows.every((r) => r.canister_set === line.canister_set),
        'every row is the recorded set',
      );
      assert.equal(new Set(rows.map((r) => r.source_id)).size, rows.length, 'no event copied twice');
      const { rows: unbound } = await sql<{
        n: string;
      }>`select count(*)::text as n from bridge_outbox where canister_set = ''`.execute(after.opened.db);
      assert.equal(unbound[0]!.n, '0');
    } finally {
      await after.app.close();
    }
  });
});

describe('decision B102: production with embedded canisters needs BRIDGE_SINGLE_INSTANCE=true', () => {
  const production = {
    NODE_ENV: 'production',
    HPKE_PRIVATE_KEY: 'x',
    BLIND_INDEX_KEY: 'x',
    SESSION_DATA_KEY: 'x',
    MEMBER_IDENTITY_SECRET: 'x',
    SIGNING_SECRET: 'a-signing-secret-of-at-least-32-characters',
    COOKIE_DOMAIN: '.domdao.example',
    DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/postgres',
  };

  it('without IC canisters and without the declaration the process exits 1 naming the variable; with either it is accepted', async () => {
    const p = startProcess({ ...production, DATA_DIR: tempDir('split-prod-') });
    assert.equal(await p.exit, 1, p.output());
    assert.match(
      p.output(),
      /BRIDGE_SINGLE_INSTANCE: required in production with the embedded canisters \(no IC_GOVERNANCE_CANISTER_ID\), which are one process's state: set BRIDGE_SINGLE_INSTANCE=true to run this one bridge, or give it canisters on an IC network \(IC_\*\) to run several/,
    );
    assert.throws(
      () => loadBridgeConfig({ ...production, BRIDGE_SINGLE_INSTANCE: 'false' }),
      (e: unknown) => e instanceof ConfigError && e.problems.some((x) => x.startsWith('BRIDGE_SINGLE_INSTANCE')),
    );
    assert.equal(loadBridgeConfig({ ...production, BRIDGE_SINGLE_INSTANCE: 'true' }).BRIDGE_SINGLE_INSTANCE, true);
    assert.doesNotThrow(() =>
      loadBridgeConfig({ ...production, IC_GOVERNANCE_CANISTER_ID: 'rrkah-fqaaa-aaaaa-aaaaq-cai' }),
    );
    // Development and tests start embedded canisters without it (the lease still holds there).
    assert.equal(loadBridgeConfig({}).BRIDGE_SINGLE_INSTANCE, false);
  });
});

describe('decisions V40, B103: rows of another canister set in the tables are never followed from, run or shown', () => {
  it("decision V40: the followers' cursors are the set's own: another set's governance events with higher ids, and its campaign markers, drop none of this set's", async (t) => {
    const h: Bridge = await bridge(BACKENDS[0]);
    t.after(() => h.close());
    await h.app.ready();
    const { jar } = await h.member(ADMIN_EMAIL);
    const gov = h.opened.canisters.clients.governance;
    const listed = async () =>
      (
        (await h.request({ method: 'GET', url: '/api/governance/admin/events?limit=500', jar })).json() as {
          items: Array<{ id: string; type: string; data: { proposal_id?: string } }>;
        }
      ).items;
    const created = async (title: string) =>
      String(((await gov.create_proposal({ title, body: 'Follow me.', category: 'General' })) as { Ok: bigint }).Ok);
    const first = await created('First');
    await eventually('the first proposal copied', async () =>
      (await listed()).find((e) => e.type === 'ProposalCreated' && e.data.proposal_id === first),
    );
    // Another set's governance events, numbered past this set's (a database two sets once shared).
    await sql`insert into bridge_events (type, data, source, source_id, occurred_at, canister_set)
      select 'ProposalCreated', jsonb_build_object('proposal_id', g::text), 'governance', g::text, now(), ${FOREIGN} from generate_series(1000, 1004) g`.execute(
      h.opened.db,
    );
    const second = await created('Second');
    await eventually('the second proposal copied', async () =>
      (await listed()).find((e) => e.type === 'ProposalCreated' && e.data.proposal_id === second),
    );

    // The funds follower likewise: another set's "campaign created" markers are not this set's.
    await sql`insert into bridge_events (type, data, source, source_id, occurred_at, canister_set)
      select 'CampaignCreated', jsonb_build_object('campaign_id', g::text), 'campaign', 'created:' || g, now(), ${FOREIGN} from generate_series(0, 20) g`.execute(
      h.opened.db,
    );
    await h.app.fundsFollower.catchUp();
    const campaign = await h.request({
      method: 'POST',
      url: '/api/campaigns',
      jar,
      payload: {
        title: 'Barn',
        description: '',
        goal: { dom_e8s: '100000000' },
        deadline: new Date(h.now() + 86_400_000).toISOString(),
      },
    });
    assert.equal(campaign.statusCode, 201, campaign.body);
    await h.app.fundsFollower.catchUp();
    const { id } = campaign.json() as { id: string };
    const ours = await h.opened.db
      .selectFrom('bridge_events')
      .select('type')
      .where('canister_set', '=', h.opened.canisters.set.id)
      .where('source', '=', 'campaign')
      .where('source_id', '=', `created:${id}`)
      .execute();
    assert.deepEqual(ours, [{ type: 'CampaignCreated' }], `campaign ${id}'s CampaignCreated published for this set`);
  });

  it("decision B103: a pending operation written for another set is not run here (a member's DOM stays put) and is reported; the wallet's index shows and extends only its own ledger's blocks", async (t) => {
    const h: Bridge = await bridge(BACKENDS[0], { DEV_FAUCET_DOM: '10' });
    t.after(() => h.close());
    const { jar: adminJar } = await h.member(ADMIN_EMAIL);
    const member = async (email: string) => {
      const m = await h.member(email);
      const { principal } = (await h.request({ method: 'GET', url: '/api/me/profile', jar: m.jar })).json() as {
        principal: string;
      };
      return { ...m, principal };
    };
    const alice = await member('alice-split@example.org');
    const bob = await member('bob-split@example.org');
    assert.equal(
      (await h.request({ method: 'POST', url: '/api/dev/faucet', jar: alice.jar, payload: {} })).statusCode,
      200,
    );
    // The clients of the bridge open now (a restart opens the canisters again).
    const ledger = () => h.opened.canisters.clients.ledger;
    const balance = async () => BigInt(await ledger().icrc1_balance_of({ owner: alice.principal }));
    const funded = await balance();
    assert.equal(funded, 10n * 100_000_000n);

    // Another set's transfer of Alice's DOM, due, as another set's bridge wrote it; and its index of its own ledger.
    const payload = {
      transfer_id: '999999',
      user_id: alice.user_id,
      from: alice.principal,
      to: bob.principal,
      amount_e8s: '500000000',
      fee_e8s: '10000',
      created_at_time: String(BigInt(h.now()) * 1_000_000n),
    };
    await sql`insert into bridge_outbox (operation, op_id, aggregate, payload, next_attempt_at, created_at, updated_at, canister_set)
      values ('wallet.transfer', 'wallet-transfer:999999', 'wallet-transfer:999999', ${JSON.stringify(payload)}::jsonb, ${new Date(h.now() - 86_400_000)}, ${new Date(h.now())}, ${new Date(h.now())}, ${FOREIGN})`.execute(
      h.opened.db,
    );
    await sql`insert into wallet_ledger_blocks (canister_set, block_index, btype, ts, to_account, amount_e8s, fee_e8s) values (${FOREIGN}, 0, '1mint', 0, ${alice.principal}, 12345600000000, 0)`.execute(
      h.opened.db,
    );
    await sql`insert into wallet_account_blocks (canister_set, account, block_index) values (${FOREIGN}, ${alice.principal}, 0)`.execute(
      h.opened.db,
    );
    await sql`insert into wallet_ledger_cursor (canister_set, ledger_id, id, next_block, updated_at) values (${FOREIGN}, 'another-ledger', 'ledger', 5000, now())`.execute(
      h.opened.db,
    );

    // A start reconciles what is pending and reports the foreign row; another pass runs nothing either.
    await h.restart();
    await h.app.outbox.reconcile();
    assert.equal(await balance(), funded, "Alice's DOM did not move");
    const row = await h.opened.db
      .selectFrom('bridge_outbox')
      .select(['state', 'attempts'])
      .where('op_id', '=', 'wallet-transfer:999999')
      .executeTakeFirstOrThrow();
    assert.deepEqual(row, { state: 'pending', attempts: 0 }, 'never claimed');
    const reported = h.logs.events('outbox.foreign_operations').at(-1);
    assert.deepEqual(reported?.foreign, [{ canister_set: FOREIGN, pending: 1 }]);
    const listed = (
      await h.request({ method: 'GET', url: '/api/admin/outbox?state=pending', jar: adminJar })
    ).json() as {
      operations: Array<{ op_id: string; canister_set: string }>;
    };
    assert.deepEqual(
      listed.operations.filter((o) => o.op_id === 'wallet-transfer:999999').map((o) => o.canister_set),
      [FOREIGN],
      'the admin list names its set',
    );

    const history = (await h.request({ method: 'GET', url: '/api/me/transactions', jar: alice.jar })).json() as {
      items: Array<{ kind: string; amount_e8s: string }>;
      indexed_blocks: string;
    };
    assert.deepEqual(
      history.items.map((i) => [i.kind, i.amount_e8s]),
      [['mint', String(funded)]],
      "only this ledger's block: the faucet's mint",
    );
    assert.equal(
      BigInt(history.indexed_blocks),
      (await ledger().icrc3_get_blocks([])).log_length,
      "the index read this ledger's log, not the other cursor",
    );
  });
});
