// Typed clients (decisions K6, K7): the IC agent side down to the Candid encoding of every method. Arguments
// and replies encoded with the clients' method tables are decoded, re-encoded and decoded again by an
// independent Candid implementation (didc, the Rust reference compiled to wasm) against the committed
// .did files; then the IC clients run a real journey over a transport that carries the bytes into the
// embedded platform, every byte checked against the .did on the way.
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { createRequire } from 'node:module';
import { IDL } from '@icp-sdk/core/candid';
import { Principal } from '@icp-sdk/core/principal';
import type { Agent } from '@icp-sdk/core/agent';
import { ConfigError } from '@domdao/config';
import {
  fromCandid,
  stateTransferMethods,
  toCandid,
  type MethodSpec,
  type MethodTable,
} from '@domdao/canister-kit/candid';
import { CANISTERS, type CanisterName } from '../src/api.ts';
import { METHOD_TABLES } from '../src/tables.ts';
import {
  agentTransport,
  CanisterCallError,
  candidClients,
  icClientsFromEnv,
  identityFromPem,
  principalCodec,
  type CandidTransport,
} from '../src/ic/index.ts';
import { ADMIN, BRIDGE, DAY, HOUR, harness, PASSWORD_HASH, tempDir } from './harness.ts';
import { principalFromSeed } from '../src/principals.ts';

const require = createRequire(import.meta.url);
const didc = require('@dfinity/didc') as typeof import('@dfinity/didc');
const ROOT = new URL('../../../', import.meta.url).pathname;
const DID: Record<CanisterName, string> = Object.fromEntries(
  CANISTERS.map((c) => [c, readFileSync(join(ROOT, 'canisters', c, `${c}.did`), 'utf8')]),
) as Record<CanisterName, string>;
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
// A copy: IDL.decode reads the whole underlying ArrayBuffer, and Buffer.from(hex) may sit in a shared pool.
const fromHex = (h: string) => new Uint8Array(Buffer.from(h, 'hex'));

/** Sample values of a Candid type (as the candid library represents them); `seed` rotates variant cases and opt presence. */
class Sampler extends IDL.Visitor<number, unknown> {
  override visitBool(_t: IDL.BoolClass, seed: number) {
    return seed % 2 === 0;
  }
  override visitNull() {
    return null;
  }
  override visitText(_t: IDL.TextClass, seed: number) {
    return ['', 'plain', 'quote \' " and \\ unicode ✓ 𝔻'][seed % 3];
  }
  override visitNat(_t: IDL.NatClass, seed: number) {
    return [0n, 1n, 2n ** 70n][seed % 3];
  }
  override visitInt(_t: IDL.IntClass, seed: number) {
    return [0n, -1n, 2n ** 70n][seed % 3];
  }
  override visitFloat(_t: IDL.FloatClass, seed: number) {
    return [0, 0.25, -1e300][seed % 3];
  }
  override visitFixedNat(t: IDL.FixedNatClass, seed: number) {
    const max = (1n << BigInt(t._bits)) - 1n;
    const v = [0n, 1n, max][seed % 3]!;
    return t._bits <= 32 ? Number(v) : v;
  }
  override visitFixedInt(t: IDL.FixedIntClass, seed: number) {
    return t._bits <= 32 ? -seed : BigInt(-seed);
  }
  override visitPrincipal(_t: IDL.PrincipalClass, seed: number) {
    return Principal.fromText(principalFromSeed(`p${seed}`));
  }
  override visitVec<T>(_t: IDL.VecClass<T>, ty: IDL.Type<T>, seed: number): unknown {
    if (ty instanceof IDL.FixedNatClass && ty._bits === 8) return new Uint8Array([seed, 255, 0]);
    return seed % 3 === 0 ? [] : [ty.accept(this, seed + 1), ty.accept(this, seed + 2)];
  }
  override visitOpt<T>(_t: IDL.OptClass<T>, ty: IDL.Type<T>, seed: number): unknown {
    return seed % 2 === 0 ? [] : [ty.accept(this, seed)];
  }
  override visitRecord(_t: IDL.RecordClass, fields: Array<[string, IDL.Type]>, seed: number): unknown {
    return Object.fromEntries(fields.map(([k, ty], i): [string, unknown] => [k, ty.accept(this, seed + i)]));
  }
  override visitTuple<T extends unknown[]>(_t: IDL.TupleClass<T>, components: IDL.Type[], seed: number): unknown {
    return components.map((ty, i): unknown => ty.accept(this, seed + i));
  }
  override visitVariant(_t: IDL.VariantClass, fields: Array<[string, IDL.Type]>, seed: number): unknown {
    const [k, ty] = fields[seed % fields.length]!;
    return { [k]: ty.accept(this, seed) };
  }
  override visitRec<T>(_t: IDL.RecClass<T>, ty: IDL.ConstructType<T>, seed: number): unknown {
    return ty.accept(this, seed);
  }
  // ICRC-3's archive callback: a method reference.
  override visitFunc(_t: IDL.FuncClass, seed: number): unknown {
    return [Principal.fromText(principalFromSeed(`f${seed}`)), 'get_blocks'];
  }
}
const sampler = new Sampler();

/** didc decodes our bytes against the committed .did, re-encodes its reading, and we decode that: it must be what we sent. */
function checkAgainstDid(
  canister: CanisterName,
  method: string,
  spec: MethodSpec,
  bytes: Uint8Array,
  kind: 'args' | 'ret',
) {
  const did = DID[canister];
  const types = kind === 'args' ? spec.args : [spec.ret];
  const text = didc.decode({
    idl: did,
    serviceMethod: method,
    useServiceMethodReturnType: kind === 'ret',
    input: hex(bytes),
  });
  assert.ok(text.startsWith('('), `${canister}.${method} ${kind}: didc read ${text}`);
  // Round trip: didc encodes its reading with the .did's own types, and we must decode what we sent.
  const again =
    kind === 'args'
      ? didc.encode({ idl: did, withType: { kind: 'methodParams', name: method }, input: text, targetFormat: 'hex' })
      : didc.encode({
          idl: replyService(did, method),
          withType: { kind: 'methodParams', name: 'reply' },
          input: text,
          targetFormat: 'hex',
        });
  assert.deepEqual(
    IDL.decode(types, fromHex(again)),
    IDL.decode(types, bytes),
    `${canister}.${method}: the .did reads our ${kind === 'args' ? 'arguments' : 'reply'} as we meant them`,
  );
}

/** The .did's type definitions and a service whose one method `reply` takes `method`'s reply as its arguments. */
function replyService(did: string, method: string): string {
  const at = did.search(new RegExp(`^\\s*${method}\\s*:`, 'm'));
  assert.ok(at >= 0, `${method} is in the .did`);
  const open = did.indexOf('-> (', at) + 3;
  let depth = 0;
  let end = open;
  for (; end < did.length; end++) {
    if (did[end] === '(') depth++;
    if (did[end] === ')' && --depth === 0) break;
  }
  return `${did.slice(0, did.search(/^service\s*:/m))}\nservice : { reply : ${did.slice(open, end + 1)} -> () }`;
}

describe('Candid encoding of every method against the committed .did files (didc)', () => {
  for (const canister of CANISTERS) {
    it(`${canister}: the method tables and ${canister}.did name the same methods; every argument list and reply encodes as the .did says (the state transfer's too, W22)`, () => {
      const table: MethodTable = { ...METHOD_TABLES[canister], ...stateTransferMethods(IDL) };
      assert.deepEqual([...didc.getServiceMethods(DID[canister])].sort(), Object.keys(table).sort());
      for (const [method, spec] of Object.entries(table)) {
        for (let seed = 0; seed < 6; seed++) {
          const args = spec.args.map((t, i) => t.accept(sampler, seed + i));
          checkAgainstDid(canister, method, spec, new Uint8Array(IDL.encode(spec.args, args)), 'args');
          const ret = spec.ret.accept(sampler, seed);
          checkAgainstDid(canister, method, spec, new Uint8Array(IDL.encode([spec.ret], [ret])), 'ret');
        }
      }
    });
  }

  it('a reply of the wrong type is refused by the .did (the check can fail)', () => {
    const spec = METHOD_TABLES.governance.get_settings!;
    assert.throws(() =>
      checkAgainstDid(
        'governance',
        'get_settings',
        spec,
        new Uint8Array(IDL.encode([IDL.Text], ['not settings'])),
        'ret',
      ),
    );
    assert.throws(() =>
      checkAgainstDid(
        'governance',
        'cast_vote',
        METHOD_TABLES.governance.cast_vote!,
        new Uint8Array(IDL.encode([IDL.Nat64, IDL.Text], [1n, 'Yes'])),
        'args',
      ),
    );
    // An opt of another type decodes as null (Candid's opt rule): only the round trip sees the loss.
    const optText = { kind: 'query' as const, args: [], ret: IDL.Opt(IDL.Text) };
    assert.throws(
      () =>
        checkAgainstDid(
          'governance',
          'get_dom_price',
          optText,
          new Uint8Array(IDL.encode([IDL.Opt(IDL.Text)], [['x']])),
          'ret',
        ),
      /as we meant them/,
    );
  });

  it('core values convert to Candid and back unchanged: opt ⇄ absent, principal ⇄ text, enum variant ⇄ string', () => {
    const spec = METHOD_TABLES.governance.create_proposal!;
    const core = { title: 't', body: 'b', category: 'SetDomPrice', payload: { SetDomPrice: { price_usd: 0.5 } } };
    const candid = toCandid(spec.args[0]!, core, principalCodec) as Record<string, unknown>;
    assert.deepEqual(candid.category, { SetDomPrice: null });
    assert.deepEqual(candid.proposer, []);
    const back = fromCandid(spec.args[0]!, IDL.decode(spec.args, IDL.encode(spec.args, [candid]))[0], principalCodec);
    assert.deepEqual(back, core);
  });
});

const ICRC7_DID = readFileSync(new URL('./fixtures/ICRC-7.did', import.meta.url), 'utf8');
/** `name → 'query' | 'update'` of a service's methods, read from .did text. */
function annotations(did: string): Map<string, string> {
  const text = did.replace(/\/\/.*$/gm, '').replace(/\s+/g, ' ');
  // The service's '{' is the first one outside the init arguments' parentheses.
  let open = text.search(/service ?:/);
  for (let parens = 0; text[open] !== '{' || parens > 0; open++)
    parens += text[open] === '(' ? 1 : text[open] === ')' ? -1 : 0;
  const body = text.slice(open + 1, text.lastIndexOf('}'));
  const out = new Map<string, string>();
  let depth = 0;
  let start = 0;
  for (let i = 0; i < body.length; i++) {
    const ch = body[i];
    if (ch === '{' || ch === '(') depth++;
    else if (ch === '}' || ch === ')') depth--;
    else if (ch === ';' && depth === 0) {
      const entry = body.slice(start, i).trim();
      start = i + 1;
      const name = /^(\w+)\s*:/.exec(entry)?.[1];
      if (name) out.set(name, /\)\s*query$/.test(entry) ? 'query' : 'update');
    }
  }
  return out;
}

/**
 * A standard client's view: what the canister sends, read with the official interface (`standardDid`),
 * is what the canister's .did says it sent; and what a client encodes with the official types, the
 * canister reads unchanged. Together (every variant case and opt presence sampled) that is the subtype
 * relation Candid applies at the boundary: a value lost by opt's "decode as null" rule shows as a
 * difference. Used for ICRC-7 (governance, membership) and ICRC-1/2/3/10 (the ledger).
 */
function checkStandard(
  standardDid: string,
  canister: CanisterName,
  method: string,
  spec: MethodSpec,
  seed: number,
  did = DID[canister],
): void {
  const args = new Uint8Array(
    IDL.encode(
      spec.args,
      spec.args.map((t, i) => t.accept(sampler, seed + i)),
    ),
  );
  const official = didc.decode({
    idl: standardDid,
    serviceMethod: method,
    useServiceMethodReturnType: false,
    input: hex(args),
  });
  assert.equal(
    didc.decode({ idl: did, serviceMethod: method, useServiceMethodReturnType: false, input: hex(args) }),
    official,
    `${canister}.${method}: the official interface reads these arguments as the canister does`,
  );
  const fromClient = didc.encode({
    idl: standardDid,
    withType: { kind: 'methodParams', name: method },
    input: official,
    targetFormat: 'hex',
  });
  assert.equal(
    didc.decode({ idl: did, serviceMethod: method, useServiceMethodReturnType: false, input: fromClient }),
    official,
    `${canister}.${method}: arguments typed by a standard client arrive unchanged`,
  );
  const ret = hex(new Uint8Array(IDL.encode([spec.ret], [spec.ret.accept(sampler, seed)])));
  assert.equal(
    didc.decode({ idl: standardDid, serviceMethod: method, useServiceMethodReturnType: true, input: ret }),
    didc.decode({ idl: did, serviceMethod: method, useServiceMethodReturnType: true, input: ret }),
    `${canister}.${method}: a standard client reads the reply as the canister sent it`,
  );
}
const checkIcrc7 = (canister: CanisterName, method: string, spec: MethodSpec, seed: number, did = DID[canister]) =>
  checkStandard(ICRC7_DID, canister, method, spec, seed, did);

describe('decision G19: ICRC-7 as the official ICRC-7.did declares it (didc)', () => {
  const standard = annotations(ICRC7_DID);
  it('the fixture is the official interface: 21 methods', () => {
    assert.equal(standard.size, 21);
    assert.deepEqual([...didc.getServiceMethods(ICRC7_DID)].sort(), [...standard.keys()].sort());
  });
  for (const canister of ['governance', 'membership'] as const) {
    it(`${canister}: every ICRC-7 method exists with the standard's annotation, and its arguments and replies are the standard's`, () => {
      const mine = annotations(DID[canister]);
      for (const [method, kind] of standard) {
        assert.equal(mine.get(method), kind, `${canister}.${method} is a ${kind} method`);
        assert.equal(METHOD_TABLES[canister][method]?.kind, kind);
        for (let seed = 0; seed < 10; seed++) checkIcrc7(canister, method, METHOD_TABLES[canister][method], seed);
      }
    });
  }
  it("the check fails for spec 1's `opt nat32` take and for a missing method (they are not the standard)", () => {
    const spec1 = DID.governance.replace(/(icrc7_tokens_of: \([^\n]*opt nat, )opt nat\)/, '$1opt nat32)');
    assert.notEqual(spec1, DID.governance);
    const narrowTake = {
      kind: 'query' as const,
      args: [
        IDL.Record({ owner: IDL.Principal, subaccount: IDL.Opt(IDL.Vec(IDL.Nat8)) }),
        IDL.Opt(IDL.Nat),
        IDL.Opt(IDL.Nat32),
      ],
      ret: IDL.Vec(IDL.Nat),
    };
    assert.throws(() => {
      for (let seed = 0; seed < 4; seed++) checkIcrc7('governance', 'icrc7_tokens_of', narrowTake, seed, spec1);
    }, /read[s]? these arguments as the canister does|arrive unchanged/);
    assert.equal(annotations(DID.governance.replace(/^\s*icrc7_logo:.*$/m, '')).get('icrc7_logo'), undefined);
  });
});

const fixture = (name: string) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');
const LEDGER_STANDARDS = { 'ICRC-1.did': 10, 'ICRC-2.did': 4, 'ICRC-3.did': 4, 'ICRC-10.did': 1 } as const;

describe('decisions L1–L5, L26, L27: the DOM ledger is a subtype of the official ICRC-1, ICRC-2, ICRC-3 and ICRC-10 interfaces (didc)', () => {
  for (const [file, count] of Object.entries(LEDGER_STANDARDS)) {
    it(`${file}: all ${count} methods exist on the ledger with the standard's annotation; arguments and replies are the standard's`, () => {
      const standardDid = fixture(file);
      const standard = annotations(standardDid);
      assert.equal(standard.size, count);
      assert.deepEqual([...didc.getServiceMethods(standardDid)].sort(), [...standard.keys()].sort());
      const mine = annotations(DID.ledger);
      for (const [method, kind] of standard) {
        assert.equal(mine.get(method), kind, `ledger.${method} is a ${kind} method`);
        assert.equal(METHOD_TABLES.ledger[method]?.kind, kind);
        for (let seed = 0; seed < 12; seed++)
          checkStandard(standardDid, 'ledger', method, METHOD_TABLES.ledger[method], seed);
      }
    });
  }
  it('the check fails for a ledger whose TransferError lacks a case, or whose allowance is a bare nat (the pre-standard draft)', () => {
    const noTemp = DID.ledger.replace('TemporarilyUnavailable; BadBurn', 'BadBurn');
    assert.notEqual(noTemp, DID.ledger);
    // A standard ledger may answer TemporarilyUnavailable: a client typed by the narrow .did cannot read it.
    const reply = hex(
      new Uint8Array(
        IDL.encode([METHOD_TABLES.ledger.icrc1_transfer!.ret], [{ Err: { TemporarilyUnavailable: null } }]),
      ),
    );
    assert.throws(() =>
      didc.decode({ idl: noTemp, serviceMethod: 'icrc1_transfer', useServiceMethodReturnType: true, input: reply }),
    );
    const draft = DID.ledger.replace('-> (record {allowance:nat; expires_at:opt nat64}) query', '-> (nat) query');
    assert.notEqual(draft, DID.ledger);
    assert.throws(() => {
      for (let seed = 0; seed < 3; seed++)
        checkStandard(
          fixture('ICRC-2.did'),
          'ledger',
          'icrc2_allowance',
          METHOD_TABLES.ledger.icrc2_allowance!,
          seed,
          draft,
        );
    });
  });
});

/** ICRC-21's methods on each canister that claims it; the ledger's icrc10_supported_standards arrives with ICRC-10 and must list ICRC-21 (decision L36). */
const ICRC21_METHODS: Record<'governance' | 'ledger', string[]> = {
  governance: ['icrc21_canister_call_consent_message', 'icrc10_supported_standards'],
  ledger: ['icrc21_canister_call_consent_message'],
};

describe('decisions L36, G24: ICRC-21 consent messages as the official ICRC-21.did declares them (didc)', () => {
  const standardDid = fixture('ICRC-21.did');
  const standard = annotations(standardDid);
  it('the fixture is the official interface: 2 methods, the consent message an update call', () => {
    assert.deepEqual([...standard.entries()].sort(), [
      ['icrc10_supported_standards', 'query'],
      ['icrc21_canister_call_consent_message', 'update'],
    ]);
    assert.deepEqual([...didc.getServiceMethods(standardDid)].sort(), [...standard.keys()].sort());
  });
  for (const [canister, methods] of Object.entries(ICRC21_METHODS) as Array<['governance' | 'ledger', string[]]>) {
    it(`${canister}: ${methods.join(' and ')} ${methods.length > 1 ? 'exist' : 'exists'} with the standard's annotation; requests and answers are the standard's`, () => {
      const mine = annotations(DID[canister]);
      for (const method of methods) {
        assert.equal(
          mine.get(method),
          standard.get(method),
          `${canister}.${method} is a ${standard.get(method)} method`,
        );
        assert.equal(METHOD_TABLES[canister][method]?.kind, standard.get(method));
        for (let seed = 0; seed < 12; seed++)
          checkStandard(standardDid, canister, method, METHOD_TABLES[canister][method]!, seed);
      }
    });
  }
  it('the check fails for the draft whose fields were text pairs, and for an error variant without InsufficientPayment', () => {
    const spec = METHOD_TABLES.ledger.icrc21_canister_call_consent_message!;
    const textFields = DID.ledger.replace(
      /fields:vec record \{text; variant \{[^}]*\}[^}]*\}[^}]*\}[^}]*\}[^}]*\}\}/,
      'fields:vec record {text; text}',
    );
    assert.notEqual(textFields, DID.ledger);
    const fields = hex(
      new Uint8Array(
        IDL.encode(
          [spec.ret],
          [
            {
              Ok: {
                consent_message: {
                  FieldsDisplayMessage: {
                    intent: 'Send DOM',
                    fields: [['Amount', { TokenAmount: { decimals: 8, amount: 1n, symbol: 'DOM' } }]],
                  },
                },
                metadata: { language: 'en', utc_offset_minutes: [] },
              },
            },
          ],
        ),
      ),
    );
    const read = (idl: string) =>
      didc.decode({
        idl,
        serviceMethod: 'icrc21_canister_call_consent_message',
        useServiceMethodReturnType: true,
        input: fields,
      });
    assert.equal(read(DID.ledger), read(standardDid), 'a signer reads the typed fields as sent');
    assert.throws(() => read(textFields));
    const noPayment = DID.ledger.replace('InsufficientPayment:record {description:text}; ', '');
    assert.notEqual(noPayment, DID.ledger);
    const reply = hex(
      new Uint8Array(IDL.encode([spec.ret], [{ Err: { InsufficientPayment: { description: 'pay' } } }])),
    );
    assert.throws(() =>
      didc.decode({
        idl: noPayment,
        serviceMethod: 'icrc21_canister_call_consent_message',
        useServiceMethodReturnType: true,
        input: reply,
      }),
    );
  });
});

/** Carries each call's bytes into the embedded platform as `caller`, checking them against the .did both ways. */
function loopback(
  platform: Awaited<ReturnType<typeof harness>>['platform'],
  caller: string,
  seen: Set<string>,
): CandidTransport {
  const byId = new Map(CANISTERS.map((c) => [platform.ids[c], c]));
  const call = async (canisterId: string, method: string, arg: Uint8Array) => {
    const canister = byId.get(canisterId);
    if (!canister) throw new CanisterCallError(canisterId, method, 'no such canister', 3);
    const spec = METHOD_TABLES[canister][method]!;
    checkAgainstDid(canister, method, spec, arg, 'args');
    const args = IDL.decode(spec.args, arg).map((v, i) => fromCandid(spec.args[i]!, v, principalCodec));
    const client = platform.as(caller)[canister] as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>;
    let result: unknown;
    try {
      result = await client[method]!(...args);
    } catch (e) {
      throw new CanisterCallError(canisterId, method, e instanceof Error ? e.message : String(e), 5);
    }
    const reply = new Uint8Array(IDL.encode([spec.ret], [toCandid(spec.ret, result, principalCodec)]));
    checkAgainstDid(canister, method, spec, reply, 'ret');
    seen.add(`${canister}.${method}`);
    return reply;
  };
  return { query: call, update: call };
}

describe('IC clients (Candid over a transport) against the embedded canisters', () => {
  it('the registration, voting, price, campaign and payout journey works byte for byte', async () => {
    const h = await harness();
    const seen = new Set<string>();
    const as = (p: string) => candidClients(h.platform.ids, loopback(h.platform, p, seen));
    const bridge = as(BRIDGE);
    const admin = as(ADMIN);
    const alice = principalFromSeed('alice');
    const request = {
      principal: alice,
      email_encrypted: 'e',
      name_encrypted: 'n',
      dob_encrypted: 'd',
      password_hash: PASSWORD_HASH,
      tos_accepted_at: h.now() - 1n,
      is_age_verified_18_plus: true,
    };
    // Operation ids (decision U5) cross as the trailing opt text: a repeat answers the first answer.
    const created = h.ok(await bridge.user.create_account(request, 'op:create'));
    assert.deepEqual(h.ok(await bridge.user.create_account(request, 'op:create')), created);
    // An unverified account can be removed (U6) and created again under a new op id.
    h.ok(await bridge.user.remove_unverified_account(alice, 'op:remove'));
    assert.equal(await bridge.user.get_account(alice), undefined);
    const recreated = h.ok(await bridge.user.create_account(request, 'op:create-again'));
    h.ok(await bridge.user.set_password_hash(alice, PASSWORD_HASH, 'op:password'));
    assert.deepEqual(h.ok(await bridge.user.verify_email(recreated.verification_token, 'op:verify')), {
      principal: alice,
      membership_token_id: 1n,
    });
    assert.deepEqual(h.ok(await bridge.user.verify_email(recreated.verification_token, 'op:verify')), {
      principal: alice,
      membership_token_id: 1n,
    });
    h.ok(await bridge.user.record_kyc(alice, true, 'op:kyc'));
    h.ok(
      await bridge.user.upgrade_membership_to_active(
        { principal: alice, kyc_proof: new Uint8Array([1]), payment_proof: new Uint8Array([2, 3]) },
        'op:upgrade',
      ),
    );
    assert.equal((await bridge.membership.get_membership_status(alice))!.status, 'Active');
    const a = as(alice);
    const id = h.ok(
      await bridge.governance.create_proposal({
        title: 'Price',
        body: 'b',
        category: 'SetDomPrice',
        payload: { SetDomPrice: { price_usd: 0.5, source_url: 'https://x.example.org' } },
      }),
    );
    h.advance(HOUR);
    assert.deepEqual(await a.governance.cast_vote(id, 'Yes'), { Ok: null });
    assert.equal(await a.governance.get_my_vote(id), 'Yes');
    assert.deepEqual(await a.governance.icrc7_tokens_of({ owner: alice }, undefined, undefined), [1n]);
    await assert.rejects(
      a.governance.list_votes(id),
      (e: unknown) => e instanceof CanisterCallError && /NotAuthorized/.test(e.message),
    );
    assert.equal((await admin.governance.list_votes(id)).length, 1);
    h.advance(3n * DAY);
    await h.tick();
    assert.equal((await a.governance.get_dom_price())!.price_usd, 0.5);
    assert.equal((await a.governance.list_proposals({ status: 'Executed' }))[0]!.id, id);
    const campaign = h.ok(
      await a.campaign.create_campaign({
        title: 'C',
        description: '',
        goal: { UsdValue: 10 },
        deadline: h.now() + DAY,
      }),
    );
    h.ok(await as(h.platform.ids.governance).ledger.icrc1_transfer({ to: { owner: alice }, amount: 100_000_000_000n }));
    h.ok(await a.ledger.icrc2_approve({ spender: { owner: h.platform.ids.campaign }, amount: 20_000_000_000n }));
    assert.equal(h.ok(await a.campaign.contribute(campaign, { Usd: 5 })).amount_e8s, 1_000_000_000n);
    assert.equal((await a.campaign.get_campaign(campaign))!.progress.pct_complete, 50);
    h.ok(
      await as(h.platform.ids.governance).ledger.icrc1_transfer({
        to: { owner: h.platform.ids.treasury },
        amount: 1_000_000_000n,
      }),
    );
    assert.equal(await admin.treasury.get_balance(), 1_000_000_000n);
    assert.equal(seen.size, 21, 'every call above went through the transport');
  });
});

describe('agent transport and identity', () => {
  it('maps replied and rejected queries and updates of an agent', async () => {
    const calls: unknown[] = [];
    const agent = {
      async query(id: string, o: { methodName: string; arg: Uint8Array }) {
        calls.push(['query', id, o.methodName, [...o.arg]]);
        return o.methodName === 'ok'
          ? { status: 'replied', reply: { arg: new Uint8Array([9]) } }
          : { status: 'rejected', reject_code: 5, reject_message: 'trapped: NotAuthorized', error_code: 'IC0503' };
      },
      async update(id: string, o: { methodName: string; arg: Uint8Array; effectiveCanisterId: string }) {
        calls.push(['update', id, o.methodName, o.effectiveCanisterId]);
        if (o.methodName === 'ok') return { reply: new Uint8Array([7]) };
        throw new Error('canister stopped');
      },
    } as unknown as Agent;
    const t = agentTransport(agent);
    assert.deepEqual(await t.query('aaaaa-aa', 'ok', new Uint8Array([1])), new Uint8Array([9]));
    await assert.rejects(
      t.query('aaaaa-aa', 'no', new Uint8Array()),
      (e: unknown) => e instanceof CanisterCallError && e.rejectCode === 5 && /NotAuthorized/.test(e.message),
    );
    assert.deepEqual(await t.update('aaaaa-aa', 'ok', new Uint8Array()), new Uint8Array([7]));
    await assert.rejects(t.update('aaaaa-aa', 'no', new Uint8Array()), /canister stopped/);
    assert.deepEqual(calls[0], ['query', 'aaaaa-aa', 'ok', [1]]);
    assert.deepEqual(calls[2], ['update', 'aaaaa-aa', 'ok', 'aaaaa-aa']);
  });

  it('loads Ed25519 and secp256k1 PEM identities as dfx writes them; refuses other keys', () => {
    const ed = generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
    const ec = generateKeyPairSync('ec', { namedCurve: 'secp256k1' })
      .privateKey.export({ format: 'pem', type: 'sec1' })
      .toString();
    for (const pem of [ed, ec]) {
      const p = identityFromPem(pem).getPrincipal();
      assert.equal(p.toUint8Array().at(-1), 0x02, 'self-authenticating principal');
      assert.equal(identityFromPem(pem).getPrincipal().toText(), p.toText(), 'stable');
    }
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 })
      .privateKey.export({ format: 'pem', type: 'pkcs8' })
      .toString();
    assert.throws(() => identityFromPem(rsa), /unsupported key type rsa/);
    assert.throws(() => identityFromPem('not a key'), /no private key/);
  });

  it('IC configuration is validated at start-up: every missing variable listed, bad canister ids named', async () => {
    await assert.rejects(icClientsFromEnv({}), (e: unknown) => e instanceof ConfigError && e.problems.length === 7);
    const pemFile = join(tempDir(), 'id.pem');
    writeFileSync(
      pemFile,
      generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
    );
    const env = {
      IC_IDENTITY_PEM_FILE: pemFile,
      IC_GOVERNANCE_CANISTER_ID: 'rrkah-fqaaa-aaaaa-aaaaq-cai',
      IC_MEMBERSHIP_CANISTER_ID: 'not-a-principal',
      IC_USER_CANISTER_ID: 'rrkah-fqaaa-aaaaa-aaaaq-cai',
      IC_CAMPAIGN_CANISTER_ID: 'rrkah-fqaaa-aaaaa-aaaaq-cai',
      IC_TREASURY_CANISTER_ID: 'rrkah-fqaaa-aaaaa-aaaaq-cai',
      IC_LEDGER_CANISTER_ID: 'renrk-eyaaa-aaaaa-aaada-cai',
    };
    await assert.rejects(icClientsFromEnv(env), /not canister ids: membership=not-a-principal/);
    await assert.rejects(icClientsFromEnv({ ...env, IC_LEDGER_CANISTER_ID: undefined }), /IC_LEDGER_CANISTER_ID/);
    const ok = await icClientsFromEnv({
      ...env,
      IC_MEMBERSHIP_CANISTER_ID: 'ryjl3-tyaaa-aaaaa-aaaba-cai',
      IC_HOST: 'http://127.0.0.1:9',
    });
    assert.equal(typeof ok.clients.governance.get_proposal, 'function');
    assert.equal(typeof ok.clients.ledger.icrc2_transfer_from, 'function');
    assert.equal(ok.principal, identityFromPem(readFileSync(pemFile, 'utf8')).getPrincipal().toText());
  });
});
