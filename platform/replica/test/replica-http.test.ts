// test-lane: wasm
// `npm run replica` (decisions W13–W16): the test replica over the IC's HTTP interface, started as a
// developer starts it, and reached by an unmodified @icp-sdk/core agent and by the project's own IC
// clients: certificates and query signatures verified by the agent, traps and rejects as the IC reports
// them, requests refused for their signature, sender or expiry, replays not run twice, the state kept
// across a clean stop and across a crash, and a non-loopback host refused.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  Cbor,
  HttpAgent,
  IC_REQUEST_DOMAIN_SEPARATOR,
  pollForResponse,
  RejectError,
  requestIdOf,
  TrustError,
} from '@icp-sdk/core/agent';
import { IDL } from '@icp-sdk/core/candid';
import { DelegationChain, DelegationIdentity, Ed25519KeyIdentity } from '@icp-sdk/core/identity';
import { Secp256k1KeyIdentity } from '@icp-sdk/core/identity/secp256k1';
import { Principal } from '@icp-sdk/core/principal';
import { loadConfig } from '@domdao/config';
import {
  agentTransport,
  CanisterCallError,
  icClientsForIdentity,
  icClientsFromEnv,
  IcEnv,
  identityFromPem,
} from '@domdao/canisters/ic';
import { freePort } from '@domdao/test-helpers/free-port';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const MAIN = join(ROOT, 'platform', 'replica', 'src', 'main.ts');

interface Started {
  child: ChildProcess;
  out: () => string;
  err: () => string;
  exit: Promise<number | null>;
}

/** `npm run replica`'s command, with its output kept; resolves at its `ready` line, or when it exits. */
function replica(env: NodeJS.ProcessEnv): Promise<Started> {
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  const exit = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ready line in 120 s:\n${out}\n${err}`)), 120_000);
    const started = { child, out: () => out, err: () => err, exit };
    child.stdout!.on('data', (d) => {
      out += d;
      if (/^ready in /m.test(out)) {
        clearTimeout(timer);
        resolve(started);
      }
    });
    child.stderr!.on('data', (d) => (err += d));
    void exit.then(() => {
      clearTimeout(timer);
      resolve(started);
    });
  });
}

function readEnv(file: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const m = /^([A-Z_]+)=(.*)$/.exec(line);
    if (m) env[m[1]!] = m[2]!;
  }
  return env;
}

const nat = (b: Uint8Array) => IDL.decode([IDL.Nat], b)[0] as bigint;
const account = (owner: string) =>
  IDL.encode(
    [IDL.Record({ owner: IDL.Principal, subaccount: IDL.Opt(IDL.Vec(IDL.Nat8)) })],
    [{ owner: Principal.fromText(owner), subaccount: [] }],
  );

describe('npm run replica: the IC HTTP interface in front of the built canisters', () => {
  const dir = mkdtempSync(join(tmpdir(), 'domdao-replica-'));
  let port = 0;
  let url = '';
  let running: Started | undefined;
  let env: Record<string, string> = {};

  before(async () => {
    port = await freePort();
    running = await replica({ REPLICA_DIR: dir, REPLICA_PORT: String(port) });
    url = `http://127.0.0.1:${port}`;
    env = readEnv(join(dir, 'ic.env'));
  });
  after(async () => {
    if (running && running.child.exitCode === null) {
      running.child.kill('SIGKILL');
      await running.exit;
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it('decision W16: it says it is a development tool, prints ready, and writes ic.env with every IC_* variable the bridge reads', () => {
    assert.match(running!.out(), /a development and test tool, NOT an IC network/);
    assert.match(running!.out(), new RegExp(`^ready in \\d+\\.\\d s at http://127\\.0\\.0\\.1:${port}$`, 'm'));
    assert.deepEqual(Object.keys(env).sort(), Object.keys(IcEnv.properties).sort());
    const config = loadConfig(IcEnv, env);
    assert.equal(config.IC_HOST, url);
    assert.equal(config.IC_FETCH_ROOT_KEY, true);
    assert.equal(config.IC_IDENTITY_PEM_FILE, join(dir, 'identity.pem'));
  });

  it("decision W16: the project's IC clients, signing with ic.env's identity, are the registrar and a trusted proposer; its DOM is there", async () => {
    const ic = await icClientsFromEnv(env);
    assert.equal(await ic.clients.ledger.icrc1_balance_of({ owner: ic.principal }), 1_000_000n * 100_000_000n);
    const made = await ic.clients.governance.create_proposal({ title: 'Over HTTP', body: 'b', category: 'General' });
    assert.ok('Ok' in made, 'Err' in made ? Object.keys(made.Err).join() : '');
    // Only the registrar may reissue a verification token: ic.env's identity is it, another is not.
    const who = Ed25519KeyIdentity.generate().getPrincipal().toText();
    assert.deepEqual(await ic.clients.user.reissue_verification_token(who), { Err: { AccountNotFound: null } });
    const stranger = await icClientsForIdentity(env, Ed25519KeyIdentity.generate());
    assert.deepEqual(await stranger.user.reissue_verification_token(who), { Err: { NotAuthorized: null } });
  });

  it('decision W13: an unmodified agent (fetchRootKey, Ed25519) reads queries whose node signatures it verifies, and updates whose certificates it verifies', async () => {
    const identity = Ed25519KeyIdentity.generate();
    const agent = await HttpAgent.create({ host: url, identity, shouldFetchRootKey: true });
    const ledger = env.IC_LEDGER_CANISTER_ID!;
    const q = await agent.query(ledger, {
      methodName: 'icrc1_balance_of',
      arg: account(identity.getPrincipal().toText()),
    });
    assert.equal(q.status, 'replied');
    assert.equal(nat((q as { reply: { arg: Uint8Array } }).reply.arg), 0n);
    assert.equal((q as { signatures?: unknown[] }).signatures?.length, 1);
    // The v4 call answers with a certificate the agent checks against the root key it fetched.
    const u = await agent.update(ledger, {
      methodName: 'icrc1_balance_of',
      arg: account(identity.getPrincipal().toText()),
    });
    assert.equal(nat(u.reply), 0n);
    assert.ok(u.certificate, 'a verified certificate');
    // The v2 call: 202, then the request status polled through read_state.
    const { requestId, response } = await agent.call(ledger, {
      methodName: 'icrc1_name',
      arg: IDL.encode([], []),
      callSync: false,
    });
    assert.equal(response.status, 202);
    const polled = await pollForResponse(agent, { canisterId: Principal.fromText(ledger) }, requestId);
    assert.equal(IDL.decode([IDL.Text], polled.reply)[0], 'DOM');
    // With a root key that is not the replica's, every certificate is refused, and so is every query.
    const stranger = await HttpAgent.create({
      host: url,
      identity,
      rootKey: (await HttpAgent.create({ host: 'http://127.0.0.1:1' })).rootKey!,
    });
    await assert.rejects(
      stranger.update(ledger, { methodName: 'icrc1_name', arg: IDL.encode([], []) }),
      (e: unknown) => e instanceof TrustError,
    );
    await assert.rejects(
      stranger.query(ledger, { methodName: 'icrc1_name', arg: IDL.encode([], []) }),
      (e: unknown) => e instanceof TrustError,
    );
    // secp256k1 keys and delegation chains are checked too; a delegation's targets bind it.
    const k1 = await HttpAgent.create({
      host: url,
      identity: Secp256k1KeyIdentity.generate(),
      shouldFetchRootKey: true,
    });
    assert.equal(
      nat(
        (await k1.update(ledger, { methodName: 'icrc1_balance_of', arg: account(identity.getPrincipal().toText()) }))
          .reply,
      ),
      0n,
    );
    const session = Ed25519KeyIdentity.generate();
    const delegated = (targets?: Principal[]) =>
      DelegationChain.create(
        identity,
        session.getPublicKey(),
        new Date(Date.now() + 60_000),
        targets ? { targets } : {},
      ).then((chain) =>
        HttpAgent.create({
          host: url,
          identity: DelegationIdentity.fromDelegation(session, chain),
          shouldFetchRootKey: true,
        }),
      );
    const viaDelegation = await delegated();
    assert.equal((await viaDelegation.getPrincipal()).toText(), identity.getPrincipal().toText());
    assert.equal(
      nat(
        (
          await viaDelegation.update(ledger, {
            methodName: 'icrc1_balance_of',
            arg: account(identity.getPrincipal().toText()),
          })
        ).reply,
      ),
      0n,
    );
    const elsewhere = await delegated([Principal.fromText(env.IC_GOVERNANCE_CANISTER_ID!)]);
    await assert.rejects(
      elsewhere.update(ledger, { methodName: 'icrc1_name', arg: IDL.encode([], []) }),
      /400|delegation does not allow/,
    );
    // A query answer whose node signature was changed on the way is refused by the agent.
    const tampering = await HttpAgent.create({
      host: url,
      identity,
      shouldFetchRootKey: true,
      fetch: async (input, init) => {
        const res = await fetch(input, init);
        if (!res.url.endsWith('/query')) return res;
        const body = Cbor.decode<{ signatures: Array<{ signature: Uint8Array }> }>(
          new Uint8Array(await res.arrayBuffer()),
        );
        body.signatures[0]!.signature[0]! ^= 1;
        return new Response(Buffer.from(Cbor.encode(body)), { status: res.status, headers: res.headers });
      },
    });
    await assert.rejects(
      tampering.query(ledger, { methodName: 'icrc1_name', arg: IDL.encode([], []) }),
      (e: unknown) => e instanceof TrustError,
    );
  });

  it('decision W13: a trap, a missing method and a missing canister are rejected with the codes the IC gives, and the agent raises them as it does for a local replica', async () => {
    const identity = Ed25519KeyIdentity.generate();
    const agent = await HttpAgent.create({ host: url, identity, shouldFetchRootKey: true });
    const ledger = env.IC_LEDGER_CANISTER_ID!;
    const garbage = new Uint8Array([1, 2, 3]);
    // Azle decodes its argument and calls ic0.trap when it cannot.
    const q = await agent.query(ledger, { methodName: 'icrc1_balance_of', arg: garbage });
    assert.equal(q.status, 'rejected');
    assert.deepEqual(
      [Number((q as { reject_code: number }).reject_code), (q as { error_code: string }).error_code],
      [5, 'IC0503'],
    );
    assert.match(
      (q as { reject_message: string }).reject_message,
      new RegExp(`^Error from Canister ${ledger}: Canister called \`ic0.trap\` with message: '`),
    );
    await assert.rejects(
      agent.update(ledger, { methodName: 'icrc1_transfer', arg: garbage }),
      (e: unknown) =>
        e instanceof RejectError &&
        (e.code as unknown as { rejectCode: number }).rejectCode === 5 &&
        (e.code as unknown as { rejectErrorCode: string }).rejectErrorCode === 'IC0503',
    );
    const missing = await agent.query(ledger, { methodName: 'no_such_method', arg: IDL.encode([], []) });
    assert.deepEqual(
      [Number((missing as { reject_code: number }).reject_code), (missing as { error_code: string }).error_code],
      [5, 'IC0536'],
    );
    const nowhere = 'qoctq-giaaa-aaaaa-aaaea-cai';
    const none = await agent.query(nowhere, { methodName: 'icrc1_name', arg: IDL.encode([], []) });
    assert.deepEqual(
      [Number((none as { reject_code: number }).reject_code), (none as { error_code: string }).error_code],
      [3, 'IC0301'],
    );
    // The project's transport keeps the code and the IC's text: a CanisterCallError the bridge can read.
    const transport = agentTransport(agent);
    for (const call of [
      () => transport.query(ledger, 'icrc1_balance_of', garbage),
      () => transport.update(ledger, 'icrc1_transfer', garbage),
    ])
      await assert.rejects(
        call(),
        (e: unknown) =>
          e instanceof CanisterCallError &&
          e.rejectCode === 5 &&
          e.errorCode === 'IC0503' &&
          /Canister called `ic0.trap`/.test(e.message),
      );
  });

  it('decision W13: a bad signature, a sender that is not the key, an expired or too distant ingress_expiry and a mismatched canister are refused with 400; a replayed call runs once', async () => {
    const identity = Ed25519KeyIdentity.generate();
    const ledger = env.IC_LEDGER_CANISTER_ID!;
    const now = BigInt(Date.now()) * 1_000_000n;
    const content = (over: Record<string, unknown> = {}) => ({
      request_type: 'query',
      canister_id: Principal.fromText(ledger).toUint8Array(),
      method_name: 'icrc1_name',
      arg: new Uint8Array(IDL.encode([], [])),
      sender: identity.getPrincipal().toUint8Array(),
      ingress_expiry: now + 120_000_000_000n,
      ...over,
    });
    const send = async (c: Record<string, unknown>, o: { flip?: boolean; at?: string; anonymous?: boolean } = {}) => {
      const id = requestIdOf(c);
      const sig = new Uint8Array(await identity.sign(new Uint8Array([...IC_REQUEST_DOMAIN_SEPARATOR, ...id])));
      if (o.flip) sig[0]! ^= 1;
      const envelope = o.anonymous
        ? { content: c }
        : { content: c, sender_pubkey: identity.getPublicKey().toDer(), sender_sig: sig };
      const res = await fetch(`${url}/api/v3/canister/${o.at ?? ledger}/query`, {
        method: 'POST',
        headers: { 'content-type': 'application/cbor' },
        body: Buffer.from(Cbor.encode(envelope)),
      });
      return { status: res.status, text: res.status === 200 ? '' : await res.text() };
    };
    assert.equal((await send(content())).status, 200);
    const bad = await send(content(), { flip: true });
    assert.deepEqual([bad.status, /Invalid signature/.test(bad.text)], [400, true], bad.text);
    const other = await send(content({ sender: Ed25519KeyIdentity.generate().getPrincipal().toUint8Array() }));
    assert.deepEqual(
      [other.status, /is not the self-authenticating principal/.test(other.text)],
      [400, true],
      other.text,
    );
    for (const expiry of [now - 60_000_000_000n, now + 7n * 60_000_000_000n]) {
      const r = await send(content({ ingress_expiry: expiry }));
      assert.deepEqual([r.status, /^Invalid request expiry: /.test(r.text)], [400, true], r.text);
    }
    const elsewhere = await send(content(), { at: env.IC_GOVERNANCE_CANISTER_ID! });
    assert.deepEqual(
      [elsewhere.status, /does not match effective canister id/.test(elsewhere.text)],
      [400, true],
      elsewhere.text,
    );
    // Anonymous: unsigned, allowed where the IC allows it.
    assert.equal(
      (await send(content({ sender: Principal.anonymous().toUint8Array() }), { anonymous: true })).status,
      200,
    );
    assert.equal((await send(content(), { anonymous: true })).status, 400);
    const big = await fetch(`${url}/api/v3/canister/${ledger}/query`, {
      method: 'POST',
      headers: { 'content-type': 'application/cbor' },
      body: Buffer.alloc(4 * 1024 * 1024 + 1),
    });
    assert.equal(big.status, 413);

    // The same signed call twice (one nonce): received twice, run once.
    const ic = await icClientsFromEnv(env);
    const before = await ic.clients.ledger.icrc1_balance_of({ owner: identity.getPrincipal().toText() });
    const giver = await HttpAgent.create({
      host: url,
      identity: identityFromPem(readFileSync(env.IC_IDENTITY_PEM_FILE!, 'utf8')),
      shouldFetchRootKey: true,
    });
    const transfer = IDL.encode(
      [
        IDL.Record({
          to: IDL.Record({ owner: IDL.Principal, subaccount: IDL.Opt(IDL.Vec(IDL.Nat8)) }),
          amount: IDL.Nat,
          fee: IDL.Opt(IDL.Nat),
          memo: IDL.Opt(IDL.Vec(IDL.Nat8)),
          from_subaccount: IDL.Opt(IDL.Vec(IDL.Nat8)),
          created_at_time: IDL.Opt(IDL.Nat64),
        }),
      ],
      [
        {
          to: { owner: identity.getPrincipal(), subaccount: [] },
          amount: 7n,
          fee: [],
          memo: [],
          from_subaccount: [],
          created_at_time: [],
        },
      ],
    );
    const nonce = new Uint8Array(16).fill(7);
    const first = await giver.call(ledger, {
      methodName: 'icrc1_transfer',
      arg: transfer,
      nonce: nonce as never,
      callSync: false,
    });
    const again = await giver.call(ledger, {
      methodName: 'icrc1_transfer',
      arg: transfer,
      nonce: nonce as never,
      callSync: false,
    });
    assert.deepEqual(again.requestId, first.requestId);
    await pollForResponse(giver, { canisterId: Principal.fromText(ledger) }, first.requestId);
    assert.equal(await ic.clients.ledger.icrc1_balance_of({ owner: identity.getPrincipal().toText() }), before + 7n);
    // Its status is the sender's to read: another identity is refused.
    const peeker = await HttpAgent.create({ host: url, identity, shouldFetchRootKey: true });
    await assert.rejects(pollForResponse(peeker, { canisterId: Principal.fromText(ledger) }, first.requestId), /403/);
  });

  it('decision W14: a clean stop writes a snapshot and a restart finds the state; a kill after an answered call loses nothing of it', async () => {
    const ic = await icClientsFromEnv(env);
    const who = Ed25519KeyIdentity.generate().getPrincipal().toText();
    const send = async (amount: bigint) =>
      assert.ok('Ok' in (await ic.clients.ledger.icrc1_transfer({ to: { owner: who }, amount })));
    const balance = async () => (await icClientsFromEnv(env)).clients.ledger.icrc1_balance_of({ owner: who });
    await send(11n);
    running!.child.kill('SIGTERM');
    assert.equal(await running!.exit, 0, running!.err());
    assert.match(running!.out(), /replica: SIGTERM received: writing a snapshot and stopping\nreplica: stopped/);
    running = await replica({ REPLICA_DIR: dir, REPLICA_PORT: String(port) });
    assert.match(running.out(), new RegExp(`restored the canisters from ${dir}`), running.err());
    assert.deepEqual(readEnv(join(dir, 'ic.env')), env, 'the same variables');
    assert.equal(await balance(), 11n);
    await send(13n);
    running.child.kill('SIGKILL');
    await running.exit;
    running = await replica({ REPLICA_DIR: dir, REPLICA_PORT: String(port) });
    assert.match(running.out(), /^ready in /m, running.err());
    assert.equal(await balance(), 24n, 'the journal kept the answered transfer');
  });

  it('decision W16: a REPLICA_HOST that is not loopback is refused in one sentence and a non-zero exit, before anything is made', async () => {
    const elsewhere = mkdtempSync(join(tmpdir(), 'domdao-replica-host-'));
    try {
      for (const host of ['0.0.0.0', '192.168.1.10', '::']) {
        const r = await replica({ REPLICA_DIR: join(elsewhere, 'dir'), REPLICA_PORT: '0', REPLICA_HOST: host });
        assert.equal(await r.exit, 1);
        assert.equal(
          r.err(),
          `replica: REPLICA_HOST=${host} is not a loopback address: the test replica is a development tool and listens on 127.0.0.1 or ::1 only\n`,
        );
      }
      assert.equal(existsSync(join(elsewhere, 'dir')), false);
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });
});
