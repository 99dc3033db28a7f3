// Decisions L3, L11–L18: a property test (fast-check) over random sequences of contributions (some retried
// under the same op id, some whose ledger reply is lost), cancellations, deadlines passing (releases and
// refunds), treasury payouts (some retried) and donation burns, through the embedded platform. After
// every step the sum of every account's balance is the ledger's total supply and balances + burned +
// fees = minted (from the block log); at the end every campaign is settled and every escrow is empty.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { Account } from '@domdao/canister-kit';
import { DAY, HOUR, harness } from './harness.ts';

const E8S = 100_000_000n;
const FEE = 10_000n;
const MEMBERS = 3;

const op = fc.oneof(
  fc.record({
    kind: fc.constant('create' as const),
    by: fc.nat(MEMBERS - 1),
    goal: fc.bigInt({ min: E8S, max: 300n * E8S }),
    days: fc.integer({ min: 1, max: 3 }),
  }),
  fc.record({
    kind: fc.constant('contribute' as const),
    by: fc.nat(MEMBERS - 1),
    campaign: fc.nat(3),
    amount: fc.bigInt({ min: 1n, max: 200n * E8S }),
    op: fc.option(fc.nat(2), { nil: undefined }),
    lose: fc.boolean(),
  }),
  fc.record({ kind: fc.constant('cancel' as const), campaign: fc.nat(3) }),
  fc.record({ kind: fc.constant('wait' as const), hours: fc.integer({ min: 1, max: 40 }) }),
  fc.record({
    kind: fc.constant('payout' as const),
    proposal: fc.integer({ min: 1, max: 4 }),
    to: fc.nat(MEMBERS - 1),
    amount: fc.bigInt({ min: 1n, max: 600n * E8S }),
    lose: fc.boolean(),
  }),
  fc.record({
    kind: fc.constant('burn' as const),
    by: fc.nat(MEMBERS - 1),
    amount: fc.bigInt({ min: 1n, max: 50n * E8S }),
  }),
);

describe('conservation over random money flows (decisions L3, L11–L18)', () => {
  it('balances sum to the supply after every step; nothing is created, lost or moved twice; every escrow ends empty', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 14 }), async (ops) => {
        let loseNext: string | undefined;
        const h = await harness({
          interceptReply: (_from, _to, method) => {
            if (loseNext === method) {
              loseNext = undefined;
              throw new Error('reply lost');
            }
          },
        });
        try {
          const members: string[] = [];
          for (let i = 0; i < MEMBERS; i++) members.push(await h.register(`m${i}`));
          for (const m of members) await h.fund(m, 500n * E8S);
          const treasury = h.platform.ids.treasury;
          await h.mint(treasury, 1000n * E8S);
          const minted = MEMBERS * Number(500n * E8S) + Number(1000n * E8S);
          const campaigns: string[] = [];
          const escrows: Account[] = [];
          const gov = h.as(h.platform.ids.governance).treasury;
          const check = async () => {
            const accounts: Account[] = [...members.map((owner) => ({ owner })), { owner: treasury }, ...escrows];
            let sum = 0n;
            for (const a of accounts) {
              // No `balance >= 0` check here: the ledger refuses to store a negative balance (it throws first).
              sum += await h.admin.ledger.icrc1_balance_of(a);
            }
            assert.equal(sum, await h.admin.ledger.icrc1_total_supply(), 'every DOM is in a known account');
            const { blocks } = await h.admin.ledger.icrc3_get_blocks([{ start: 0n, length: 2000n }]);
            let mintedLog = 0n;
            let burned = 0n;
            let fees = 0n;
            for (const { block } of blocks) {
              const m = (block as { Map: Array<[string, unknown]> }).Map;
              const type = (m.find(([k]) => k === 'btype')![1] as { Text: string }).Text;
              const amt = (m.find(([k]) => k === 'tx')![1] as { Map: Array<[string, { Nat: bigint }]> }).Map.find(
                ([k]) => k === 'amt',
              )![1].Nat;
              if (type === '1mint') mintedLog += amt;
              else if (type === '1burn') burned += amt;
              else fees += FEE;
            }
            assert.equal(mintedLog, BigInt(minted), 'no DOM minted after the start');
            assert.equal(sum + burned + fees, mintedLog, 'balances + burned + fees = minted');
          };
          for (const o of ops) {
            switch (o.kind) {
              case 'create': {
                const r = await h.as(members[o.by]!).campaign.create_campaign({
                  title: 't',
                  description: '',
                  goal: { DomTokens: o.goal },
                  deadline: h.now() + BigInt(o.days) * DAY,
                });
                const id = h.ok(r);
                campaigns.push(id);
                escrows.push((await h.admin.campaign.get_campaign(id))!.escrow);
                break;
              }
              case 'contribute': {
                const id = campaigns[o.campaign];
                if (!id) break;
                if (o.lose) loseNext = 'icrc2_transfer_from';
                await h
                  .as(members[o.by]!)
                  .campaign.contribute(id, { Dom: o.amount }, o.op === undefined ? undefined : `op-${o.op}`)
                  .catch(() => undefined);
                loseNext = undefined;
                break;
              }
              case 'cancel': {
                const id = campaigns[o.campaign];
                if (id) await h.admin.campaign.cancel_campaign(id);
                break;
              }
              case 'wait':
                // The scheduler wakes at least every minute; hourly steps are enough for its retries.
                for (let i = 0; i < o.hours; i++) {
                  h.advance(HOUR);
                  await h.tick();
                }
                break;
              case 'payout':
                if (o.lose) loseNext = 'icrc1_transfer';
                await gov
                  .execute_payout(BigInt(o.proposal), { recipient: members[o.to]!, amount: { DomE8s: o.amount } })
                  .catch(() => undefined);
                loseNext = undefined;
                break;
              case 'burn':
                await h
                  .as(members[o.by]!)
                  .campaign.burn_donation({ Dom: o.amount }, undefined)
                  .catch(() => undefined);
                break;
            }
            await check();
          }
          // Past every deadline: the scheduler finishes pending movements and settles everything.
          for (let i = 0; i < 4 * 24; i++) {
            h.advance(HOUR);
            await h.tick();
          }
          for (const [i, id] of campaigns.entries()) {
            const c = (await h.admin.campaign.get_campaign(id))!;
            assert.equal(c.settled, true, `campaign ${id} settled`);
            assert.equal(await h.admin.ledger.icrc1_balance_of(escrows[i]!), 0n, `escrow of ${id} empty`);
            const list = await h.admin.campaign.list_contributions(id, undefined, 100);
            assert.equal(
              list.reduce((a, x) => a + x.amount_e8s, 0n),
              c.progress.raised_dom,
              'raised = the recorded contributions',
            );
            if (c.status === 'Succeeded') assert.equal(c.released!.amount_e8s, c.progress.raised_dom - FEE);
            else
              assert.ok(
                list.every((x) => x.refund!.amount_e8s === x.amount_e8s - FEE),
                'every contribution refunded once',
              );
          }
          // Retried payouts: one ledger transfer per proposal.
          for (const p of await gov.list_payouts(undefined, 100)) {
            const { blocks } = await h.admin.ledger.icrc3_get_blocks([{ start: 0n, length: 2000n }]);
            const memo = new TextEncoder().encode(`dom-payout:${p.proposal_id}`);
            const n = blocks.filter(
              ({ block }) =>
                JSON.stringify(
                  (block as { Map: Array<[string, { Map?: Array<[string, unknown]> }]> }).Map.find(
                    ([k]) => k === 'tx',
                  )![1].Map!.find(([k]) => k === 'memo')?.[1],
                  (_k, v: unknown) => (v instanceof Uint8Array ? Array.from(v) : typeof v === 'bigint' ? String(v) : v),
                ) === JSON.stringify({ Blob: Array.from(memo) }),
            ).length;
            assert.equal(n, 1, `payout ${p.proposal_id} moved once`);
          }
          assert.deepEqual(await h.admin.campaign.list_pending_movements(), []);
          await check();
        } finally {
          h.platform.close();
        }
      }),
      { numRuns: 25 },
    );
  });
});
