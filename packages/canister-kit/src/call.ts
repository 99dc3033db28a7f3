/** What the host hands every canister method: who is calling and the current IC time (ns). */
export interface CallContext {
  /** Caller principal, text form. */
  caller: string;
  /** Nanoseconds since the Unix epoch. */
  now: bigint;
}

/** ICRC-1/ICRC-7 account. */
export interface Account {
  owner: string;
  subaccount?: Uint8Array;
}

/** The default subaccount (absent, or 32 zero bytes) identifies the same account as none. */
export function isDefaultSubaccount(subaccount: Uint8Array | undefined): boolean {
  return subaccount === undefined || (subaccount.length === 32 && subaccount.every((b) => b === 0));
}
