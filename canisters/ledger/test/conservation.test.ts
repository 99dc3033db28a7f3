// Decision L3: a property test over random sequences of mints, transfers, approvals, transfers
// from and burns (with stated and unstated fees, expiring allowances, repeated transactions and time
// moving on): after every step, balances plus burned plus burned fees equal minted, no balance or
// allowance is negative, and the ledger's total supply is the sum of the balances (decision L3).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { Account } from '@domdao/canister-kit';
import { FEE, ledger, MINTER, party, sub } from './harness.ts';

const PARTIES = [party(1), party(2), party(3)];
const account = fc
  .record({ who: fc.integer({ min: 0, max: 2 }), sub: fc.constantFrom(undefined, 1, 2) })
  .map(({ who, sub: s }): Account => ({ owner: PARTIES[who]!, ...(s !== undefined && { subaccount: sub(s) }) }));
const amount = fc.oneof(fc.bigInt({ min: 0n, max: 3n * FEE }), fc.bigInt({ min: 0n, max: 10n ** 10n }));
const fee = fc.constantFrom(undefined, FEE, 0n, 1n);
const when = fc.constantFrom(undefined, 0n, -1n, 1n);

const op = fc.oneof(
  fc.record({ kind: fc.constant('mint' as const), to: account, amount, fee }),
  fc.record({ kind: fc.constant('transfer' as const), from: account, to: account, amount, fee, when }),
  fc.record({ kind: fc.constant('burn' as const), from: account, amount, fee }),
  fc.record({
    kind: fc.constant('approve' as const),
    from: account,
    spender: account,
    amount,
    fee,
    expires: fc.constantFrom(undefined, 1n, 60n),
    expected: fc.constantFrom(undefined, 0n),
  }),
  fc.record({
    kind: fc.constant('transfer_from' as const),
    spender: account,
    from: account,
    to: fc.oneof(account, fc.constant<Account>({ owner: MINTER })),
    amount,
    fee,
    when,
  }),
  fc.record({ kind: fc.constant('wait' as const), seconds: fc.integer({ min: 1, max: 90_000 }) }),
);

describe('conservation of DOM (decision L3)', () => {
  it('after every random step: balances + burned + fees burned = minted, nothing negative, supply = sum of balances', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 40 }), async (ops) => {
        const l = await ledger();
        const t0 = l.clock.now;
        // The test's own book, from the answers alone: what was minted, burned, and charged as fees.
        const book = { minted: 0n, burned: 0n, fees: 0n };
        const ok = (r: { Ok: bigint } | { Err: unknown }, effect: () => void) => {
          if ('Ok' in r) effect();
        };
        const at = (w: bigint | undefined) => (w === undefined ? undefined : t0 + w * 1_000_000_000n);
        for (const o of ops) {
          switch (o.kind) {
            case 'mint':
              ok(
                await l
                  .as(MINTER)
                  .icrc1_transfer({ to: o.to, amount: o.amount, ...(o.fee !== undefined && { fee: o.fee }) }),
                () => (book.minted += o.amount),
              );
              break;
            case 'transfer':
              ok(
                await l.as(o.from.owner).icrc1_transfer({
                  ...(o.from.subaccount && { from_subaccount: o.from.subaccount }),
                  to: o.to,
                  amount: o.amount,
                  ...(o.fee !== undefined && { fee: o.fee }),
                  ...(o.when !== undefined && { created_at_time: at(o.when)! }),
                }),
                () => (book.fees += FEE),
              );
              break;
            case 'burn':
              ok(
                await l.as(o.from.owner).icrc1_transfer({
                  ...(o.from.subaccount && { from_subaccount: o.from.subaccount }),
                  to: { owner: MINTER },
                  amount: o.amount,
                  ...(o.fee !== undefined && { fee: o.fee }),
                }),
                () => (book.burned += o.amount),
              );
              break;
            case 'approve':
              ok(
                await l.as(o.from.owner).icrc2_approve({
                  ...(o.from.subaccount && { from_subaccount: o.from.subaccount }),
                  spender: o.spender,
                  amount: o.amount,
                  ...(o.fee !== undefined && { fee: o.fee }),
                  ...(o.expires !== undefined && { expires_at: l.clock.now + o.expires * 1_000_000_000n }),
                  ...(o.expected !== undefined && { expected_allowance: o.expected }),
                }),
                () => (book.fees += FEE),
              );
              break;
            case 'transfer_from':
              ok(
                await l.as(o.spender.owner).icrc2_transfer_from({
                  ...(o.spender.subaccount && { spender_subaccount: o.spender.subaccount }),
                  from: o.from,
                  to: o.to,
                  amount: o.amount,
                  ...(o.fee !== undefined && { fee: o.fee }),
                  ...(o.when !== undefined && { created_at_time: at(o.when)! }),
                }),
                () => {
                  if (o.to.owner === MINTER) book.burned += o.amount;
                  else book.fees += FEE;
                },
              );
              break;
            case 'wait':
              l.clock.now += BigInt(o.seconds) * 1_000_000_000n;
              break;
          }
          const balances = [...l.stores.balances.entries()].map(([, v]) => v);
          const sum = balances.reduce((a, b) => a + b, 0n);
          const c = (n: string) => l.stores.counters.get(n) ?? 0n;
          assert.ok(
            balances.every((b) => b > 0n),
            'no negative (or stored zero) balance',
          );
          assert.ok(
            [...l.stores.allowances.entries()].every(([, a]) => a.allowance > 0n),
            'no negative allowance',
          );
          assert.equal(
            sum + book.burned + book.fees,
            book.minted,
            'balances + burned + fees burned = minted (by the answers)',
          );
          assert.deepEqual(
            [c('minted'), c('burned'), c('fees_burned')],
            [book.minted, book.burned, book.fees],
            'the ledger counts what its answers said',
          );
          assert.equal(await l.as(MINTER).icrc1_total_supply(), sum);
          assert.equal((await l.as(MINTER).icrc3_get_blocks([{ start: 0n, length: 0n }])).log_length, c('blocks'));
        }
      }),
      { numRuns: 150 },
    );
  });
});
