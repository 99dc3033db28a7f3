// ICRC-1 accounts as store keys. The default subaccount (absent, or 32 zero bytes) is the same account
// as none, so both map to the principal alone; any other subaccount must be 32 bytes.
import { isDefaultSubaccount, type Account } from '@domdao/canister-kit';

const hex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');

/** Why `account` is not a valid ICRC-1 account, if it is not. */
export function accountProblem(account: Account): string | undefined {
  if (account.subaccount !== undefined && account.subaccount.length !== 32)
    return `a subaccount must be 32 bytes, got ${account.subaccount.length}`;
  return undefined;
}

/** `principal` or `principal.hex(subaccount)`; '.' never occurs in a principal's text. */
export function accountKey(account: Account): string {
  return isDefaultSubaccount(account.subaccount) ? account.owner : `${account.owner}.${hex(account.subaccount!)}`;
}

/**
 * The account exactly as a caller wrote it, for deduplication (decision L4: every argument as given):
 * `{owner}` and `{owner, subaccount: [0; 32]}` are one account but two different transactions.
 */
export function givenAccountKey(account: Account): string {
  return account.subaccount === undefined ? account.owner : `${account.owner}:${hex(account.subaccount)}`;
}

export function sameAccount(a: Account, b: Account): boolean {
  return accountKey(a) === accountKey(b);
}

/** The account as the ledger reports it: the default subaccount as none. */
export function normalAccount(account: Account): Account {
  return isDefaultSubaccount(account.subaccount)
    ? { owner: account.owner }
    : { owner: account.owner, subaccount: account.subaccount! };
}

export function bytesKey(b: Uint8Array | undefined): string {
  return b === undefined ? '-' : hex(b);
}
