// test-lane: wasm (decision R17: one file on the built wasm at a time)
// Decision W33 on the built user canister and the metered test replica (W4, which stops a query past
// the IC's 5 B instructions as the IC does): 450 accounts shaped as the canister writes them are
// imported (W22) into a fresh canister, then read back with the transfer client's own loop. Before
// W33 the first page held all 450 (about 30 M instructions an account of 761 characters, most of it
// the reply's Candid encoding) and the replica stopped it at 13.8 B, over the query limit; now each
// page stops near EXPORT_INSTRUCTION_BUDGET (the instructions used and the reply's encoding, by its
// bytes), within the limit, and the cursor brings every entry back exactly once.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { encode } from '@domdao/canister-kit';
import {
  crc32Entry,
  EXPORT_INSTRUCTION_BUDGET,
  MAX_EXPORT_ENTRIES,
  type EntryText,
} from '@domdao/canister-kit/state-transfer';
import { canisterInitArgs, wasmOf } from '@domdao/replica';
import { INSTRUCTION_LIMITS, WasmReplica } from '@domdao/replica/host';
import { EMBEDDED_CANISTER_IDS } from '../src/index.ts';
import { principalFromSeed } from '../src/principals.ts';
import { readStore, transferClient } from '../src/state-transfer/index.ts';

const ACCOUNTS = 450;
const CONTROLLER = principalFromSeed('controller');
const ids = EMBEDDED_CANISTER_IDS;

/** An account as register writes it: ciphertexts (base64 of AES-GCM) and an Argon2id hash of their usual lengths. */
function account(i: number, principal: string) {
  const text = (n: number) => Buffer.alloc(n, `${i}:${principal}`).toString('base64');
  return {
    principal,
    email_encrypted: text(60),
    name_encrypted: text(48),
    dob_encrypted: text(40),
    password_hash: `$argon2id$v=19$m=19456,t=2,p=1$${text(16)}$${text(32)}`,
    is_age_verified_18_plus: true,
    email_verified: i % 2 === 0,
    kyc_verified: false,
    membership_token_id: BigInt(i + 1),
    tos_accepted_at: 1_700_000_000_000_000_000n + BigInt(i),
    created_at: 1_700_000_000_000_000_000n + BigInt(i),
    updated_at: 1_700_000_000_000_000_000n + BigInt(i),
  };
}

describe('an export page on the built wasm stays within the IC query limit (decision W33)', () => {
  it('450 accounts come back in pages that each stop at the budget, under 5 B, none lost or doubled', async () => {
    const replica = new WasmReplica();
    const init = canisterInitArgs(ids, { admins: [CONTROLLER], registrars: [CONTROLLER] }).user();
    replica.metering = false;
    await replica.install(ids.user, wasmOf('user'), init, CONTROLLER);
    const client = transferClient(replica.transport(CONTROLLER), ids);

    // Set-up, unmetered: the fresh canister's own config kept, the accounts added (keys in order).
    const status = await client.status('user');
    assert.equal(status.status, 'fresh');
    const config = await readStore(client, 'user', 'config');
    const accounts: EntryText[] = Array.from({ length: ACCOUNTS }, (_, i) => principalFromSeed(`member-${i}`))
      .sort()
      .map((p, i) => [encode(p), encode(account(i, p))]);
    const stores: Record<string, EntryText[]> = { config, accounts };
    const of = (name: string) => stores[name] ?? [];
    await client.import('user', {
      Begin: {
        version: status.version,
        stores: status.stores.map(({ name }) => ({
          name,
          count: BigInt(of(name).length),
          crc32: of(name).reduce(crc32Entry, 0),
        })),
      },
    });
    for (const name of ['config', 'accounts'])
      await client.import('user', { Chunk: { store: name, entries: of(name) } });
    assert.equal((await client.import('user', { Seal: null })).status, 'sealed');

    replica.metering = true;
    const from = replica.counts.length;
    const exported = await readStore(client, 'user', 'accounts');
    const pages = replica.counts.slice(from).filter((c) => c.method === 'state_export');

    assert.deepEqual(exported, accounts, 'every account once, in key order, as imported');
    assert.ok(pages.length >= 3, `${pages.length} pages`);
    assert.ok(
      pages.every((p) => !p.trapped && p.instructions < INSTRUCTION_LIMITS.query),
      `pages: ${pages.map((p) => p.instructions).join(', ')}`,
    );
    // Each page but the last stopped at the budget (not at MAX_EXPORT_ENTRIES: the store holds fewer),
    // near it: the cost model (the counter, and the reply's encoding by the byte) is about right.
    assert.ok(ACCOUNTS < MAX_EXPORT_ENTRIES);
    assert.ok(
      pages
        .slice(0, -1)
        .every(
          (p) =>
            p.instructions > (EXPORT_INSTRUCTION_BUDGET * 8n) / 10n &&
            p.instructions < (EXPORT_INSTRUCTION_BUDGET * 12n) / 10n,
        ),
      `pages: ${pages.map((p) => p.instructions).join(', ')}`,
    );
    // One page of all 450, as before W33, would have cost about the pages' sum: over the query limit.
    const total = pages.reduce((n, p) => n + p.instructions, 0n);
    assert.ok(total > INSTRUCTION_LIMITS.query, `${total} instructions in all`);
    console.log(
      `W33 on the wasm: ${ACCOUNTS} accounts in ${pages.length} pages of ${pages.map((p) => p.instructions).join(', ')} instructions; ${total} in all, ≈ ${total / BigInt(ACCOUNTS)} an account`,
    );
  });
});
