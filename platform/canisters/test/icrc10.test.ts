// Decision L50: every canister that answers ICRC-10's icrc10_supported_standards lists the standard's
// self-reference exactly as ICRC-10's MUST gives it, record { name = "ICRC-10"; url =
// "https://github.com/dfinity/ICRCs/ICRC-10" }, through the canisters' public methods on the embedded platform.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { CanisterClients } from '../src/api.ts';
import { harness, type Harness } from './harness.ts';

/** The text ICRC-10 ("Methods": "The result MUST include a self-reference for …") gives, character for character. */
const SELF_REFERENCE = { name: 'ICRC-10', url: 'https://github.com/dfinity/ICRCs/ICRC-10' };

type Lister = { icrc10_supported_standards(): Promise<Array<{ name: string; url: string }>> };

describe('ICRC-10 self-reference (decision L50)', () => {
  let h: Harness;
  before(async () => {
    h = await harness();
  });
  after(() => h.platform.close());

  it('decision L50: the ledger, the membership collection and the vote-pass receipts each list ICRC-10 once, with the url of the standard’s MUST text', async () => {
    const clients = h.admin as unknown as Record<keyof CanisterClients, Partial<Lister>>;
    const listing = Object.entries(clients).filter(([, c]) => typeof c.icrc10_supported_standards === 'function');
    assert.deepEqual(
      listing.map(([name]) => name).sort(),
      ['governance', 'ledger', 'membership'],
      'the canisters that claim ICRC-10',
    );
    for (const [name, client] of listing) {
      const standards = await client.icrc10_supported_standards!();
      assert.deepEqual(
        standards.filter((s) => s.name === 'ICRC-10'),
        [SELF_REFERENCE],
        name,
      );
    }
    // ICRC-1's own list is ICRC-10's on the ledger (decision L27), so it carries the same record.
    assert.deepEqual(
      (await h.admin.ledger.icrc1_supported_standards()).filter((s) => s.name === 'ICRC-10'),
      [SELF_REFERENCE],
    );
  });
});
