// ICRC-21 consent messages of the DOM ledger (decisions L36–L39): what icrc1_transfer, icrc2_approve and
// icrc2_transfer_from would do, read from the call's own Candid argument, so a wallet shows a person
// what they sign. Amounts carry the token's decimals and symbol, accounts ICRC-1's textual form.
// Nothing here reads balances or allowances: ICRC-21 warns the call may come much later, so the
// message holds for any state (decision L38); it names only what the call itself fixes.
import {
  accountText,
  decodeArgs,
  memoText,
  renderConsent,
  unavailable,
  unsupported,
  type CallContext,
  type ConsentLine,
  type ConsentRequest,
  type ConsentResponse,
  type Shown,
} from '@domdao/canister-kit';
import type { Idl } from '@domdao/canister-kit/candid';
import { ledgerMethods } from '../candid.ts';
import { accountProblem, sameAccount } from './account.ts';
import type { Account, ApproveArgs, LedgerConfig, TransferArgs, TransferFromArgs } from './types.ts';

/** What the ledger core needs from its host (ledger/wiring.ts). */
export interface LedgerDeps {
  /** The host's Candid library, to decode the argument a consent message describes. */
  candid: Idl;
}

const ANONYMOUS = '2vxsx-fae';
const DEDUP_NOTE =
  'The ledger accepts this request only within its 24-hour deduplication window after this time, and only once.';

export function ledgerConsent(config: () => LedgerConfig, candid: Idl) {
  let table: ReturnType<typeof ledgerMethods> | undefined;
  const methods = () => (table ??= ledgerMethods(candid));

  function describe(
    ctx: CallContext,
    method: string,
    arg: unknown,
    c: LedgerConfig,
  ): { intent: string; summary: string; lines: ConsentLine[] } | string {
    const token = (amount: bigint): Shown => ({ token: amount, decimals: c.decimals, symbol: c.token_symbol });
    const account = (a: Account): Shown => ({ code: accountText(a), max: 200 });
    const own = (subaccount: Uint8Array | undefined): Account => ({
      owner: ctx.caller,
      ...(subaccount !== undefined && { subaccount }),
    });
    const anonymous = ctx.caller === ANONYMOUS;
    const tail = (a: { memo?: Uint8Array; created_at_time?: bigint }): ConsentLine[] => [
      ...(a.memo !== undefined ? [{ label: 'Memo', value: { code: memoText(a.memo), max: 80 } }] : []),
      ...(a.created_at_time !== undefined
        ? [{ label: 'Created at', value: { time: a.created_at_time }, note: DEDUP_NOTE }]
        : []),
    ];
    const check = (
      accounts: Array<Account | undefined>,
      a: { memo?: Uint8Array; fee?: bigint },
      expectedFee: bigint,
    ): string | undefined => {
      for (const acc of accounts) {
        const p = acc && accountProblem(acc);
        if (p) return p;
      }
      if (a.memo !== undefined && a.memo.length > c.max_memo_length)
        return `the memo is ${a.memo.length} bytes, above the limit of ${c.max_memo_length}`;
      if (a.fee !== undefined && a.fee !== expectedFee)
        return `the fee must be ${expectedFee} (the ledger answers BadFee)`;
      return undefined;
    };

    if (method === 'icrc1_transfer') {
      const a = arg as TransferArgs;
      const from = anonymous ? undefined : own(a.from_subaccount);
      const burn = sameAccount(a.to, c.minting_account);
      const mint = from !== undefined && sameAccount(from, c.minting_account);
      const fee = burn || mint ? 0n : c.transfer_fee;
      const problem = check([from ?? own(a.from_subaccount), a.to], a, fee);
      if (problem) return problem;
      const source: ConsentLine[] = from
        ? [{ label: 'From', value: account(from) }]
        : a.from_subaccount !== undefined
          ? [
              {
                label: 'From subaccount',
                value: { code: Array.from(a.from_subaccount, (b) => b.toString(16).padStart(2, '0')).join('') },
              },
            ]
          : [];
      if (burn)
        return {
          intent: `Burn ${c.token_name}`,
          summary: `You are burning ${c.token_symbol}: sent to the minting account, the tokens are destroyed and leave the supply. Burning charges no fee.`,
          lines: [...source, { label: 'Amount', value: token(a.amount) }, ...tail(a)],
        };
      return {
        intent: mint ? `Mint ${c.token_name}` : `Send ${c.token_name}`,
        summary: mint
          ? 'You are creating new tokens from the minting account.'
          : 'You are approving a transfer of funds from your account.',
        lines: [
          ...source,
          { label: 'Amount', value: token(a.amount) },
          { label: 'To', value: account(a.to) },
          {
            label: 'Fee',
            value: token(fee),
            note:
              fee > 0n
                ? 'Charged for processing the transfer, paid by the sending account on top of the amount.'
                : undefined,
          },
          ...tail(a),
        ],
      };
    }

    if (method === 'icrc2_approve') {
      const a = arg as ApproveArgs;
      const from = own(a.from_subaccount);
      const problem = check([from, a.spender], a, c.transfer_fee);
      if (problem) return problem;
      if (!anonymous && sameAccount(from, c.minting_account)) return 'the minting account cannot approve';
      if (!anonymous && sameAccount(from, a.spender)) return 'an account cannot approve itself';
      if (a.expires_at !== undefined && a.expires_at <= ctx.now)
        return 'the approval has already expired (the ledger answers Expired)';
      return {
        intent: a.amount === 0n ? 'Revoke spending approval' : 'Approve spending',
        summary:
          a.amount === 0n
            ? 'You are removing the allowance of another account to withdraw funds from your account.'
            : 'You are authorizing another account to withdraw funds from your account, up to the allowance below, without asking you again.',
        lines: [
          ...(anonymous ? [] : [{ label: 'From', value: account(from) }]),
          { label: 'Spender', value: account(a.spender) },
          {
            label: 'Requested allowance',
            value: token(a.amount),
            note: 'The most the spender may withdraw (each withdrawal also takes the fee from it).',
          },
          a.expected_allowance !== undefined
            ? {
                label: 'Only if the existing allowance is',
                value: token(a.expected_allowance),
                note: 'Otherwise the ledger refuses the approval.',
              }
            : { label: 'Existing allowance', value: { text: 'Replaced by the requested allowance, whatever it is.' } },
          a.expires_at !== undefined
            ? { label: 'Approval expires', value: { time: a.expires_at } }
            : { label: 'Approval expires', value: { text: 'Never: this approval has no expiration.' } },
          {
            label: 'Approval fee',
            value: token(c.transfer_fee),
            note: 'Charged for processing the approval, paid by your account.',
          },
          ...tail(a),
        ],
      };
    }

    const a = arg as TransferFromArgs;
    const spender = anonymous ? undefined : own(a.spender_subaccount);
    const burn = sameAccount(a.to, c.minting_account);
    const fee = burn ? 0n : c.transfer_fee;
    const problem = check([spender ?? own(a.spender_subaccount), a.from, a.to], a, fee);
    if (problem) return problem;
    if (sameAccount(a.from, c.minting_account)) return 'the minting account cannot be the source of transfer_from';
    return {
      intent: burn ? `Burn ${c.token_name} from a withdrawal account` : `Spend ${c.token_name}`,
      summary: burn
        ? 'You are burning tokens from an account that approved you as its spender: they are destroyed and leave the supply.'
        : 'You are transferring funds from an account that approved you as its spender.',
      lines: [
        ...(spender ? [{ label: 'Spender', value: account(spender) }] : []),
        { label: 'From', value: account(a.from) },
        { label: 'Amount', value: token(a.amount) },
        ...(burn ? [] : [{ label: 'To', value: account(a.to) }]),
        {
          label: 'Fee',
          value: token(fee),
          note:
            fee > 0n
              ? 'Charged for processing the transfer, paid by the From account and taken from your allowance too.'
              : undefined,
        },
        ...tail(a),
      ],
    };
  }

  return {
    /** ICRC-21 (decision L36): the consent message for a call of icrc1_transfer, icrc2_approve or icrc2_transfer_from. */
    icrc21_canister_call_consent_message(ctx: CallContext, request: ConsentRequest): ConsentResponse {
      const { method } = request;
      if (method !== 'icrc1_transfer' && method !== 'icrc2_approve' && method !== 'icrc2_transfer_from') {
        return Object.hasOwn(methods(), method)
          ? unavailable(`${method} needs no consent: it moves no tokens`)
          : unsupported(`the ledger has no method ${JSON.stringify(method.slice(0, 100))}`);
      }
      const decoded = decodeArgs(candid, methods()[method].args, request.arg);
      if ('problem' in decoded) return unsupported(decoded.problem);
      const draft = describe(ctx, method, decoded.args[0], config());
      return typeof draft === 'string'
        ? unsupported(`${method} would be refused: ${draft}`)
        : renderConsent(draft, request.user_preferences);
    },
  };
}
