// A ledger core on an in-memory embedded host with a controllable clock, for the ledger's own tests.
import { IDL } from '@icp-sdk/core/candid';
import { EmbeddedHost } from '@domdao/canister-kit/embedded';
import type { Account } from '@domdao/canister-kit';
import { ledgerCore, type LedgerCore } from '../core/ledger.ts';
import { LEDGER_STORE_NAMES, type LedgerStores } from '../core/types.ts';

export const MINTER = 'rrkah-fqaaa-aaaaa-aaaaq-cai';
export const FEE = 10_000n;
export const E8S = 100_000_000n;
export const NOW0 = BigInt(Date.parse('2026-06-01T00:00:00Z')) * 1_000_000n;

export type Client = {
  [K in keyof LedgerCore]: LedgerCore[K] extends (ctx: never, ...a: infer A) => infer R
    ? (...a: A) => Promise<Awaited<R>>
    : never;
};

/** The ledger's own principal in these tests (the canister of its archive callback, decision L43). */
export const LEDGER = 'renrk-eyaaa-aaaaa-aaada-cai';

export async function ledger(
  initial: Array<[Account, bigint]> = [],
  options: { archive?: { local_blocks: bigint } } = {},
) {
  const host = EmbeddedHost.open({});
  const stores = Object.fromEntries(
    Object.entries(LEDGER_STORE_NAMES).map(([k, name]) => [k, host.store('ledger', name)]),
  ) as unknown as LedgerStores;
  const core = ledgerCore(stores, { candid: IDL }, { self: () => LEDGER });
  const clock = { now: NOW0 };
  await host.update('ledger', () =>
    core.init(
      {
        minting_account: { owner: MINTER },
        transfer_fee: FEE,
        token_name: 'DOM',
        token_symbol: 'DOM',
        initial_balances: initial,
        ...options,
      },
      { caller: MINTER, now: clock.now },
    ),
  );
  const as = (caller: string): Client =>
    new Proxy({} as Client, {
      get:
        (_t, name: string) =>
        async (...args: unknown[]) => {
          const fn = (core as unknown as Record<string, (ctx: unknown, ...a: unknown[]) => unknown>)[name]!;
          const ctx = { caller, now: clock.now };
          return name.startsWith('icrc1_transfer') || name === 'icrc2_approve' || name === 'icrc2_transfer_from'
            ? host.update('ledger', () => fn(ctx, ...args))
            : host.query('ledger', () => fn(ctx, ...args));
        },
    });
  return { host, stores, core, clock, as };
}

export function sub(n: number): Uint8Array {
  const s = new Uint8Array(32);
  s[31] = n;
  return s;
}

import { Principal } from '@icp-sdk/core/principal';
/** A self-authenticating-shaped principal text for test party `n`. */
export function party(n: number): string {
  const bytes = new Uint8Array(29);
  bytes[0] = n & 0xff;
  bytes[1] = n >> 8;
  bytes[28] = 0x02;
  return Principal.fromUint8Array(bytes).toText();
}
