// Spec 1 Events rule 2: vote-pass receipts, ICRC-7 tokens minted to each voter and burned when the
// proposal is finalised. Receipts are soul-bound like membership tokens (decision G15) and their
// metadata names the proposal, never the vote (votes are visible to admins only).
import { compositeKey, soulboundIcrc7, u64Key, withPrefix, type Store } from '@domdao/canister-kit';
import type { Receipt } from './types.ts';

export { ICRC7_MAX_QUERY_BATCH as MAX_QUERY_BATCH, ICRC7_MAX_TAKE as MAX_TAKE } from '@domdao/canister-kit';
export const DEFAULT_TAKE = 20;

interface ReceiptStores {
  receipts: Store<bigint, Receipt>;
  receiptsByOwner: Store<string, bigint>;
}

export function receiptsApi(stores: ReceiptStores) {
  const ownerKey = (owner: string, id: bigint) => compositeKey(owner, u64Key(id));
  const description = 'Receipts of votes cast in DOM DAO governance; burned when the proposal is finalised.';

  return {
    mint(token_id: bigint, owner: string, proposal_id: bigint, now: bigint): bigint {
      stores.receipts.set(token_id, { token_id, owner, proposal_id, minted_at: now });
      stores.receiptsByOwner.set(ownerKey(owner, token_id), token_id);
      return token_id;
    },
    burn(token_id: bigint): void {
      const r = stores.receipts.get(token_id);
      if (!r) return;
      stores.receipts.delete(token_id);
      stores.receiptsByOwner.delete(ownerKey(r.owner, token_id));
    },
    queries: soulboundIcrc7({
      name: 'DOM DAO vote pass',
      symbol: 'DOMVOTE',
      description,
      defaultTake: DEFAULT_TAKE,
      soulBound: 'vote-pass receipts are soul-bound and cannot be transferred',
      totalSupply: () => BigInt(stores.receipts.size),
      owner: (id) => stores.receipts.get(id)?.owner,
      *tokensOf(owner, prev) {
        const from = prev === undefined ? `${owner}|` : ownerKey(owner, prev);
        for (const [, id] of withPrefix((f) => stores.receiptsByOwner.entries({ from: f }), `${owner}|`, from))
          yield id;
      },
      *tokens(prev) {
        for (const [id] of stores.receipts.entries(prev === undefined ? {} : { from: prev })) yield id;
      },
      metadata(id) {
        const r = stores.receipts.get(id);
        return (
          r && [
            ['proposal_id', { Nat: r.proposal_id }],
            ['minted_at', { Nat: r.minted_at }],
          ]
        );
      },
    }),
  };
}
