// test-lane: wasm
// The bridge in IC mode, end to end over HTTP (decisions R31, W13–W16): the test replica serves the six
// built canisters over the IC's HTTP interface, the bridge opens them with nothing but ic.env's IC_*
// variables (its agents verify every certificate and query signature, as on mainnet), and the member
// journeys run through it: `npm run journey` itself, then a SetDomPrice proposed, voted, tallied and
// executed, a campaign contribution, a donation, and a wallet transfer with both histories.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { icClientsFromEnv } from '@domdao/canisters/ic';
import type { RunningReplica } from '@domdao/replica';
import { startInstalledReplica } from '@domdao/replica/fixture';
import { freePort } from '@domdao/test-helpers/free-port';
import { ADMIN_EMAIL, bridge, paymentEvent, WEBHOOK_SECRET, type Bridge, type Jar } from './harness.ts';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const E8S = 100_000_000n;
const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/** `npm start`'s first admin, whom `npm run journey` registers (scripts/dev-defaults.ts). */
const DEV_ADMIN_EMAIL = 'admin@domdao.localhost';

describe('the bridge in IC mode against the test replica over HTTP', () => {
  const dir = mkdtempSync(join(tmpdir(), 'domdao-ic-bridge-'));
  let r: RunningReplica;
  let h: Bridge;
  let url = '';

  before(async () => {
    // Decision R54: a copy of the run's replica with the six canisters installed.
    r = await startInstalledReplica(join(dir, 'replica'));
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    h = await bridge(undefined, {
      ...r.env,
      BOOTSTRAP_ADMIN_EMAILS: `${ADMIN_EMAIL},${DEV_ADMIN_EMAIL}`,
      DEV_OUTBOX_FILE: join(dir, 'dev-outbox.jsonl'),
      PUBLIC_URL: url,
      COOKIE_DOMAIN: '',
    });
    // The bridge's clock starts where the canisters' is (the wall clock, decision W15): a verification
    // link's lifetime is the canister's expiry read against the bridge's clock.
    h.advance(Date.now() - h.now());
    await h.app.listen({ port, host: '127.0.0.1' });
  });
  after(async () => {
    await h?.close();
    await r?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Both clocks a day-long vote needs: the bridge's and the canisters' (decision W15). */
  const advance = async (ms: number) => {
    h.advance(ms);
    await r.advance(ms);
  };
  const active = async (email: string) => {
    const admin = (await h.login(ADMIN_EMAIL)).jar;
    const m = await h.member(email);
    const kyc = await h.request({
      method: 'POST',
      url: `/api/admin/users/${m.user_id}/kyc`,
      payload: { approved: true },
      jar: admin,
    });
    assert.equal(kyc.statusCode, 200, kyc.body);
    assert.equal((await h.signedWebhook(paymentEvent(m.user_id))).statusCode, 200);
    const { principal } = (await h.request({ method: 'GET', url: '/api/me/profile', jar: m.jar })).json() as {
      principal: string;
    };
    return { ...m, principal, email };
  };

  it('decision R31: the bridge opens the canisters from ic.env alone; /health/ready reports them over HTTP', async () => {
    assert.equal(h.opened.canisters.mode, 'ic');
    assert.deepEqual(h.opened.canisters.ids, r.ids);
    const ready = await fetch(`${url}/health/ready`);
    const body = (await ready.json()) as { status: string; checks: Record<string, string> };
    assert.equal(ready.status, 200, JSON.stringify(body));
    assert.deepEqual([body.status, body.checks.canisters], ['ready', 'up']);
  });

  it('decision R31: npm run journey passes against the bridge in IC mode', async () => {
    await h.member(ADMIN_EMAIL);
    const journey = await new Promise<{ code: number | null; out: string }>((resolve) => {
      const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/journey.ts'], {
        cwd: ROOT,
        env: {
          PATH: process.env.PATH,
          HOME: process.env.HOME,
          BRIDGE_URL: url,
          DEV_OUTBOX_FILE: join(dir, 'dev-outbox.jsonl'),
          PAYMENT_WEBHOOK_SECRET: WEBHOOK_SECRET,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      child.stdout.on('data', (d) => (out += d));
      child.stderr.on('data', (d) => (out += d));
      child.once('exit', (code) => resolve({ code, out }));
    });
    assert.equal(journey.code, 0, journey.out);
    assert.match(journey.out, /the member's session now shows membership Active/);
  });

  it('decision R31: a SetDomPrice proposed, voted, tallied and executed; a contribution, a donation, a transfer and its history, all over HTTP', async () => {
    const alice = await active('alice-ic@domdao.example');
    const bob = await active('bob-ic@domdao.example');
    const relogin = async (m: { email: string; jar: Jar }) => void (m.jar = (await h.login(m.email)).jar);

    const proposed = await h.request({
      method: 'POST',
      url: '/api/governance/propose',
      jar: alice.jar,
      payload: { title: 'Price', body: 'b', category: 'SetDomPrice', payload: { price_usd: 0.5 } },
    });
    assert.equal(proposed.statusCode, 201, proposed.body);
    const id = (proposed.json() as { proposal_id: string }).proposal_id;
    await advance(HOUR_MS + 1000);
    await relogin(alice);
    await relogin(bob);
    for (const m of [alice, bob]) {
      const v = await h.request({
        method: 'POST',
        url: '/api/governance/vote',
        jar: m.jar,
        payload: { proposal_id: id, vote: 'Yes' },
      });
      assert.equal(v.statusCode, 200, v.body);
    }
    await advance(3 * DAY_MS + 1000);
    let proposal: { status: string; tally: Record<string, string> } | undefined;
    for (let i = 0; i < 10 && proposal?.status !== 'Executed'; i++) {
      await advance(1000);
      proposal = (await h.request({ method: 'GET', url: `/api/governance/proposals/${id}` })).json() as typeof proposal;
    }
    assert.equal(proposal!.status, 'Executed', JSON.stringify(proposal));
    assert.equal(proposal!.tally.yes_votes, '2');
    const price = await h.request({ method: 'GET', url: '/api/governance/price' });
    assert.equal(price.statusCode, 200, price.body);
    assert.equal((price.json() as { price_usd: number }).price_usd, 0.5);
    await relogin(alice);
    await relogin(bob);

    // DOM for both, from ic.env's identity (the replica's funded development identity, decision W16).
    const registrar = await icClientsFromEnv(r.env);
    for (const m of [alice, bob])
      assert.ok(
        'Ok' in (await registrar.clients.ledger.icrc1_transfer({ to: { owner: m.principal }, amount: 100n * E8S })),
      );

    const deadline = new Date(h.now() + 10 * DAY_MS).toISOString();
    const campaign = await h.request({
      method: 'POST',
      url: '/api/campaigns',
      jar: alice.jar,
      payload: { title: 'Garden', description: 'Seeds', goal: { usd: 100 }, deadline },
    });
    assert.equal(campaign.statusCode, 201, campaign.body);
    const cid = (campaign.json() as { id: string }).id;
    const contribution = await h.request({
      method: 'POST',
      url: `/api/campaigns/${cid}/contributions`,
      jar: bob.jar,
      payload: { amount: { usd: 5 } },
    });
    assert.equal(contribution.statusCode, 201, contribution.body);
    assert.deepEqual([contribution.json().amount_e8s, contribution.json().usd_value], [String(10n * E8S), 5]);
    const donation = await h.request({
      method: 'POST',
      url: '/api/donations',
      jar: bob.jar,
      payload: { amount: { dom_e8s: String(2n * E8S) } },
    });
    assert.equal(donation.statusCode, 201, donation.body);

    const transfer = await h.request({
      method: 'POST',
      url: '/api/me/transfers',
      jar: alice.jar,
      payload: { to: bob.principal, amount_e8s: String(3n * E8S) },
      headers: { 'idempotency-key': 'ic-transfer-1' },
    });
    assert.equal(transfer.statusCode, 201, transfer.body);
    assert.equal(transfer.json().state, 'done');
    const history = async (m: { jar: Jar }) => {
      const res = await h.request({ method: 'GET', url: '/api/me/transactions', jar: m.jar });
      assert.equal(res.statusCode, 200, res.body);
      return (res.json() as { items: Array<{ kind: string; block_index: string; change_e8s: string }> }).items;
    };
    const mine = await history(alice);
    assert.deepEqual(mine[0] && [mine[0].kind, mine[0].block_index], ['send', transfer.json().block_index]);
    const theirs = await history(bob);
    assert.ok(
      theirs.some(
        (i) =>
          i.kind === 'receive' && i.block_index === transfer.json().block_index && i.change_e8s === String(3n * E8S),
      ),
      JSON.stringify(theirs),
    );
    assert.ok(
      (await registrar.clients.ledger.icrc1_balance_of({ owner: bob.principal })) <
        100n * E8S - 10n * E8S - 2n * E8S + 3n * E8S,
      'fees paid',
    );
  });
});
