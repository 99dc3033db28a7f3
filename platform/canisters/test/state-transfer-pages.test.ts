// Decision W33, the client's half: the canister may end an export page short of 500 entries (its
// instruction budget on the IC), so `readDeployed` (what `npm run migrate` and exportDeployedState
// read with) follows the cursor alone, and refuses a canister whose cursor does not move on rather
// than ask for the same page forever. Each canister here is the state transfer's core over plain
// stores, with a counter past the budget after a few entries (as on the IC, where a page of accounts
// passes it after about 92).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { encode, type Store, type StoreKey } from '@domdao/canister-kit';
import { plainStore } from '@domdao/canister-kit/testing';
import {
  EXPORT_INSTRUCTION_BUDGET,
  stateTransfer,
  type ExportPage,
  type TransferRecord,
} from '@domdao/canister-kit/state-transfer';
import { CANISTERS } from '../src/api.ts';
import { readDeployed, StateTransferRefusal, type TransferClient } from '../src/state-transfer/index.ts';

const CONTROLLER = 'controller';

/** A client over six cores whose `items` store holds n entries; each page's message reads the counter afresh. */
function client(n: number, page?: (after?: string) => ExportPage) {
  const items = plainStore<bigint, unknown>();
  for (let i = 0; i < n; i++) items.set(BigInt(i), { n: i, who: `member-${i}` });
  let used = 0n;
  const core = stateTransfer(
    { items } as unknown as Record<string, Store<StoreKey, unknown>>,
    plainStore<string, TransferRecord>(),
    {
      isController: (c) => c === CONTROLLER,
      instructions: () => (used += EXPORT_INSTRUCTION_BUDGET / 5n),
    },
  );
  const calls = { pages: 0 };
  const fake = {
    status: async () => core.state_status({ caller: CONTROLLER, now: 0n }),
    exportPage: async (_canister: string, store: string, after?: string) => {
      if (++calls.pages > 10_000) throw new Error('the client kept asking for pages');
      if (page) return page(after);
      used = 0n;
      const r = core.state_export({ caller: CONTROLLER, now: 0n }, { store, ...(after !== undefined && { after }) });
      if ('Err' in r) throw new Error(r.Err);
      return r.Ok;
    },
  } as unknown as TransferClient;
  return { fake, calls };
}

describe('the transfer client follows short export pages (decision W33)', () => {
  it('pages of a few entries: every entry of every canister comes once, in order', async () => {
    const { fake, calls } = client(1_000);
    const state = await readDeployed(fake);
    for (const c of CANISTERS) {
      assert.equal(state[c].stores.items!.length, 1_000, c);
      assert.deepEqual(
        state[c].stores.items!.map(([k]) => k),
        Array.from({ length: 1_000 }, (_, i) => encode(BigInt(i))),
      );
    }
    // Six canisters, 1,000 entries in pages of at most 6 (the budget passed at the sixth reading of the counter).
    assert.ok(calls.pages >= 6 * 167, `${calls.pages} pages`);
  });

  it('a canister whose cursor does not move on is refused in one sentence, after one page', async () => {
    for (const stuck of [
      (after?: string) => ({ entries: [], next: after ?? encode(0n) }),
      (after?: string) => ({ entries: [], next: `${after ?? ''}x` }),
    ]) {
      const { fake, calls } = client(10, stuck);
      await assert.rejects(readDeployed(fake), (e: unknown) => {
        assert.ok(e instanceof StateTransferRefusal, String(e));
        assert.match(e.message, /^the governance canister's export of store items does not move on after /);
        return true;
      });
      assert.equal(calls.pages, 1);
    }
  });

  it('a page that repeats its cursor is refused too (no progress though it holds entries)', async () => {
    let first = true;
    const { fake } = client(10, (after) => {
      if (first) return ((first = false), { entries: [[encode(0n), '{}']], next: encode(0n) });
      return { entries: [[encode(0n), '{}']], next: after! };
    });
    await assert.rejects(readDeployed(fake), StateTransferRefusal);
  });
});
