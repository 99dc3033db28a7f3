// The wallet's JSON (decisions B75, B76): e8s amounts and block indexes as decimal strings, times
// ISO-8601, accounts in ICRC-1's textual form. A history item is a block seen from the member's
// account: what kind of movement it was for them, what it changed in their balance, and who was on
// the other side, by display name where that is a member (never an email, decision F22).
import type { StoredBlock } from './ledger-index.ts';

/** The canisters a member's DOM meets, named in the history instead of by principal. */
export interface KnownCanisters {
  campaign: string;
  treasury: string;
  /** The minting account's owner: a transfer from it is a mint, to it a burn (decision L6). */
  governance: string;
}

export type HistoryKind = 'mint' | 'burn' | 'donation' | 'send' | 'receive' | 'approve' | 'contribution' | 'spend';

const ESCROW = new TextEncoder().encode('CAMPAIGN');
const iso = (ns: string) => new Date(Number(BigInt(ns) / 1_000_000n)).toISOString();

/** The owner's principal of an account in textual form: `owner`, or `owner-checksum.subaccount` (ICRC-1). */
export function accountOwner(account: string): string {
  const dot = account.indexOf('.');
  return dot < 0 ? account : account.slice(0, account.lastIndexOf('-', dot));
}

/** The campaign whose escrow subaccount this is ("CAMPAIGN", zeros, the id as the last 8 bytes big-endian; decision L14). */
function escrowCampaign(account: string): string | undefined {
  const dot = account.indexOf('.');
  if (dot < 0) return undefined;
  const hex = account.slice(dot + 1).padStart(64, '0');
  const bytes = Uint8Array.from(hex.match(/../g)!.map((h) => parseInt(h, 16)));
  if (!ESCROW.every((b, i) => bytes[i] === b)) return undefined;
  let id = 0n;
  for (const b of bytes.subarray(24, 32)) id = (id << 8n) | BigInt(b);
  return String(id);
}

function labelOf(account: string, known: KnownCanisters): string | null {
  const owner = accountOwner(account);
  if (owner === known.treasury) return 'DAO treasury';
  if (owner === known.campaign) {
    const id = escrowCampaign(account);
    return id ? `Campaign #${id}` : 'Campaigns';
  }
  if (owner === known.governance) return 'Governance (minting account)';
  return null;
}

/** A memo as text when it is printable UTF-8, else as 0x-hex. */
function memoText(memo: Uint8Array | null): string | null {
  if (!memo || memo.length === 0) return null;
  try {
    const t = new TextDecoder('utf-8', { fatal: true }).decode(memo);
    if (/^[\x20-\x7e]+$/.test(t)) return t;
  } catch {
    // not UTF-8: hex below
  }
  return `0x${Buffer.from(memo).toString('hex')}`;
}

/** The principals whose names a page of history needs. */
export function counterpartyOwners(account: string, blocks: StoredBlock[]): string[] {
  return blocks.flatMap((b) => {
    const other =
      b.from_account === account ? (b.btype === '2approve' ? b.spender_account : b.to_account) : b.from_account;
    return other ? [accountOwner(other)] : [];
  });
}

export function historyItem(
  account: string,
  b: StoredBlock,
  known: KnownCanisters,
  names: ReadonlyMap<string, string>,
) {
  const amount = BigInt(b.amount_e8s);
  const fee = BigInt(b.fee_e8s);
  const out = b.from_account === account;
  const into = b.to_account === account;
  const spender = b.spender_account ? accountOwner(b.spender_account) : undefined;
  let kind: HistoryKind;
  let other: string | null;
  let change: bigint;
  switch (b.btype) {
    case '1mint':
      [kind, other, change] = ['mint', null, amount];
      break;
    case '1burn':
      [kind, other, change] = [spender === known.campaign ? 'donation' : 'burn', null, -(amount + fee)];
      break;
    case '2approve':
      [kind, other, change] = ['approve', b.spender_account, -fee];
      break;
    default:
      if (out && into) [kind, other, change] = ['send', b.to_account, -fee];
      else if (out) {
        const byOther = b.btype === '2xfer' && spender !== undefined && spender !== accountOwner(account);
        kind = byOther ? (spender === known.campaign ? 'contribution' : 'spend') : 'send';
        [other, change] = [b.to_account, -(amount + fee)];
      } else [kind, other, change] = ['receive', b.from_account, amount];
  }
  const owner = other ? accountOwner(other) : null;
  return {
    block_index: b.block_index,
    kind,
    amount_e8s: b.amount_e8s,
    fee_e8s: b.fee_e8s,
    change_e8s: change.toString(),
    at: iso(b.ts),
    counterparty:
      other && owner
        ? {
            account: other,
            owner,
            display_name: names.get(owner) ?? null,
            label: names.has(owner) ? null : labelOf(other, known),
          }
        : null,
    memo: memoText(b.memo),
  };
}

export interface TransferRow {
  id: string;
  state: 'pending' | 'done' | 'failed';
  to_principal: string;
  amount_e8s: string;
  fee_e8s: string;
  block_index: string | null;
  created_at: Date;
}

export function transferView(t: TransferRow, names: ReadonlyMap<string, string>) {
  return {
    id: String(t.id),
    state: t.state,
    to: t.to_principal,
    to_name: names.get(t.to_principal) ?? null,
    amount_e8s: String(t.amount_e8s),
    fee_e8s: String(t.fee_e8s),
    block_index: t.block_index === null ? null : String(t.block_index),
    created_at: t.created_at.toISOString(),
  };
}
