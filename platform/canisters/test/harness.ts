// Test harness: the embedded platform with a controllable clock, and members made the real way
// (user canister account → verify_email → Registered → KYC + payment → Active).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedPlatform, type EmbeddedPlatformOptions } from '../src/embedded/index.ts';
import { principalFromSeed } from '../src/principals.ts';
import type { CanisterClients } from '../src/api.ts';

export const ADMIN = principalFromSeed('admin');
export const BRIDGE = principalFromSeed('bridge');
export const NS_PER_SECOND = 1_000_000_000n;
export const HOUR = 3600n * NS_PER_SECOND;
export const DAY = 24n * HOUR;
export const at = (iso: string) => BigInt(Date.parse(iso)) * 1_000_000n;
export const PASSWORD_HASH = '$argon2id$v=19$m=19456,t=2,p=1$c29tZXNhbHQ$aGFzaGhhc2hoYXNo';

const dirs: string[] = [];
/** A directory removed when the process exits (not in an after hook: this module's hooks would be the first importing file's, decision R20). */
export function tempDir(): string {
  if (dirs.length === 0) process.once('exit', () => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
  const d = mkdtempSync(join(tmpdir(), 'domdao-canisters-'));
  dirs.push(d);
  return d;
}

export interface Harness {
  platform: EmbeddedPlatform;
  now(): bigint;
  setNow(iso: string | bigint): void;
  advance(ns: bigint): void;
  as(principal: string): CanisterClients;
  admin: CanisterClients;
  bridge: CanisterClients;
  tick(): Promise<void>;
  /** A member with a Registered membership (email verified). */
  register(label: string, opts?: { adult?: boolean }): Promise<string>;
  /** A member with an Active membership. */
  activate(label: string): Promise<string>;
  activateMany(prefix: string, n: number): Promise<string[]>;
  reopen(): Promise<Harness>;
  /** DOM minted to `owner`'s account by the minting account (governance, decision L6); the block index. */
  mint(owner: string, e8s: bigint, subaccount?: Uint8Array): Promise<bigint>;
  /** Mints `e8s` to `owner` and approves the campaign canister to pull all of it (a member ready to contribute). */
  fund(owner: string, e8s: bigint): Promise<void>;
  /** `owner`'s DOM balance on the ledger. */
  balance(owner: string, subaccount?: Uint8Array): Promise<bigint>;
  ok<T>(r: { Ok: T } | { Err: unknown }): T;
}

export async function harness(options: EmbeddedPlatformOptions & { start?: string } = {}): Promise<Harness> {
  let now = at(options.start ?? '2026-03-10T12:00:00Z');
  const clock = () => now;
  const open = (o: EmbeddedPlatformOptions) =>
    EmbeddedPlatform.open({ clock, scheduler: false, admins: [ADMIN], registrars: [BRIDGE], ...o });
  const build = (platform: EmbeddedPlatform): Harness => {
    const h: Harness = {
      platform,
      now: () => now,
      setNow: (t) => (now = typeof t === 'bigint' ? t : at(t)),
      advance: (ns) => (now += ns),
      as: (p) => platform.as(p),
      admin: platform.as(ADMIN),
      bridge: platform.as(BRIDGE),
      tick: () => platform.tick(),
      ok<T>(r: { Ok: T } | { Err: unknown }): T {
        if ('Err' in r)
          throw new Error(
            `expected Ok, got ${JSON.stringify(r, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))}`,
          );
        return r.Ok;
      },
      async register(label, opts = {}) {
        const principal = principalFromSeed(label);
        const created = h.ok(
          await h.bridge.user.create_account({
            principal,
            email_encrypted: `ct-email-${label}`,
            name_encrypted: `ct-name-${label}`,
            dob_encrypted: `ct-dob-${label}`,
            password_hash: PASSWORD_HASH,
            tos_accepted_at: now - 1_000n,
            is_age_verified_18_plus: opts.adult ?? true,
          }),
        );
        h.ok(await h.bridge.user.verify_email(created.verification_token));
        return principal;
      },
      async activate(label) {
        const principal = await h.register(label);
        h.ok(await h.bridge.user.record_kyc(principal, true));
        h.ok(
          await h.bridge.user.upgrade_membership_to_active({
            principal,
            kyc_proof: new Uint8Array([1]),
            payment_proof: new Uint8Array([2]),
          }),
        );
        return principal;
      },
      async activateMany(prefix, n) {
        const out: string[] = [];
        for (let i = 0; i < n; i++) out.push(await h.activate(`${prefix}-${i}`));
        return out;
      },
      async mint(owner, e8s, subaccount) {
        return h.ok(
          await platform
            .as(platform.ids.governance)
            .ledger.icrc1_transfer({ to: { owner, ...(subaccount && { subaccount }) }, amount: e8s }),
        );
      },
      async fund(owner, e8s) {
        await h.mint(owner, e8s);
        const spender = { owner: platform.ids.campaign };
        const { allowance } = await platform.as(owner).ledger.icrc2_allowance({ account: { owner }, spender });
        h.ok(await platform.as(owner).ledger.icrc2_approve({ spender, amount: allowance + e8s }));
      },
      balance: (owner, subaccount) =>
        platform.as(owner).ledger.icrc1_balance_of({ owner, ...(subaccount && { subaccount }) }),
      async reopen() {
        platform.close();
        return build(await open(options));
      },
    };
    return h;
  };
  return build(await open(options));
}

/** Ratifies `price` through a SetDomPrice proposal voted by `voter`; returns the proposal id. */
export async function ratifyPrice(h: Harness, voter: string, price: number): Promise<bigint> {
  const id = h.ok(
    await h.bridge.governance.create_proposal({
      title: 'price',
      body: 'b',
      category: 'SetDomPrice',
      payload: { SetDomPrice: { price_usd: price } },
    }),
  );
  h.advance(HOUR);
  h.ok(await h.as(voter).governance.cast_vote(id, 'Yes'));
  h.advance(3n * DAY);
  await h.tick();
  return id;
}
