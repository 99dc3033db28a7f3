// The DOM ledger core (decisions L1–L8): ICRC-1 transfers, ICRC-2 approvals and transfers from, and an
// ICRC-3 style block log, over ordered stores like every other core. On an IC network the DOM ledger
// is DFINITY's ICRC-1 ledger canister (dfx.json); this core implements the same public interface for
// the embedded platform, with the standard's errors, deduplication window and fee rules (decisions
// L1–L8). Fees are burned (no fee collector). Mints are transfers from the minting account, burns
// transfers to it. Blocks carry ICRC-3's hash chain and the tip is certified (decision L26). The log is
// block-log.ts's, the deduplication window dedup.ts's.
import {
  CanisterReject,
  compositeKey,
  Err,
  Ok,
  requireNats,
  type CallContext,
  type Result,
} from '@domdao/canister-kit';
import { accountKey, accountProblem, bytesKey, givenAccountKey, normalAccount, sameAccount } from './account.ts';
import { blockLog, type BlocksPlan, type GetBlocksArgs, type GetBlocksResult } from './block-log.ts';
import { SUPPORTED_BLOCK_TYPES } from './blocks.ts';
import { dedupWindow } from './dedup.ts';
import { icrc3TipQueries, type ArchiveInfo, type LedgerHost } from './icrc3.ts';
import { standardsQueries } from './standards.ts';
import { ledgerConsent, type LedgerDeps } from './consent.ts';
import {
  ERROR_CODES,
  type Account,
  type Allowance,
  type AllowanceArgs,
  type ApproveArgs,
  type ApproveError,
  type Block,
  type LedgerConfig,
  type LedgerInit,
  type LedgerStores,
  type MetadataValue,
  type TransferArgs,
  type TransferError,
  type TransferFromArgs,
  type TransferFromError,
} from './types.ts';

export const NS_PER_SECOND = 1_000_000_000n;
/** DFINITY's ICRC-1 ledger defaults: a 24-hour deduplication window, 60 seconds of permitted drift. */
export const TX_WINDOW = 24n * 3600n * NS_PER_SECOND;
export const PERMITTED_DRIFT = 60n * NS_PER_SECOND;
export const MAX_MEMO_LENGTH = 32;

const generic = (error_code: bigint, message: string) => ({ GenericError: { error_code, message } });

/**
 * `host`: the ledger's own principal, the data certificate for queries (the Azle entry's; none embedded,
 * decision L26) and what the host does with each appended block (decision L42).
 */
export function ledgerCore(stores: LedgerStores, deps: LedgerDeps, host: LedgerHost) {
  const config = (): LedgerConfig => {
    const c = stores.config.get('config');
    if (!c) throw new Error('ledger canister not initialised');
    return c;
  };
  const counter = (name: string) => stores.counters.get(name) ?? 0n;
  const add = (name: string, n: bigint) => stores.counters.set(name, counter(name) + n);
  const balanceOf = (a: Account) => stores.balances.get(accountKey(a)) ?? 0n;
  const setBalance = (a: Account, v: bigint) => {
    if (v < 0n) throw new Error('negative balance (a ledger bug)');
    if (v === 0n) stores.balances.delete(accountKey(a));
    else stores.balances.set(accountKey(a), v);
  };
  const allowanceKey = (owner: Account, spender: Account) => compositeKey(accountKey(owner), accountKey(spender));
  /** The allowance in force at `now`: an expired one is zero. */
  const allowanceAt = (owner: Account, spender: Account, now: bigint): Allowance => {
    const a = stores.allowances.get(allowanceKey(owner, spender));
    return a && (a.expires_at === undefined || a.expires_at > now) ? a : { allowance: 0n };
  };
  const { append, archivedBelow, plan, answer } = blockLog(stores, host, config);
  const isMinting = (a: Account) => sameAccount(a, config().minting_account);

  const { timeAndDuplicate, remember, prune } = dedupWindow(stores, config);
  function argumentProblem(accounts: Array<Account | undefined>, memo: Uint8Array | undefined): string | undefined {
    for (const a of accounts) {
      const p = a && accountProblem(a);
      if (p) return p;
    }
    if (memo !== undefined && memo.length > config().max_memo_length)
      return `the memo is ${memo.length} bytes, above the limit of ${config().max_memo_length}`;
    return undefined;
  }

  /**
   * The movement shared by icrc1_transfer and icrc2_transfer_from once the caller's right to move
   * from `from` is settled: mint, burn or transfer, with the standard's fee and balance checks.
   */
  function move(
    now: bigint,
    a: { from: Account; to: Account; amount: bigint; fee?: bigint; memo?: Uint8Array; created_at_time?: bigint },
    dedupKey: string,
    spender?: { account: Account; allowance: bigint },
  ): Result<bigint, TransferFromError> {
    const c = config();
    const mint = isMinting(a.from);
    const burn = isMinting(a.to);
    if (mint && burn) return Err(generic(ERROR_CODES.NOT_ALLOWED, 'the minting account cannot transfer to itself'));
    if (mint && spender)
      return Err(generic(ERROR_CODES.NOT_ALLOWED, 'the minting account cannot be the source of transfer_from'));
    const expected = mint || burn ? 0n : c.transfer_fee;
    const timing = timeAndDuplicate(a.created_at_time, dedupKey, now);
    if (timing) return Err(timing);
    if (a.fee !== undefined && a.fee !== expected) return Err({ BadFee: { expected_fee: expected } });
    if (burn && a.amount < c.transfer_fee) return Err({ BadBurn: { min_burn_amount: c.transfer_fee } });
    const debit = a.amount + expected;
    if (spender && spender.allowance < debit) return Err({ InsufficientAllowance: { allowance: spender.allowance } });
    if (!mint) {
      const have = balanceOf(a.from);
      if (have < debit) return Err({ InsufficientFunds: { balance: have } });
      setBalance(a.from, have - debit);
    }
    if (!burn) setBalance(a.to, balanceOf(a.to) + a.amount);
    if (mint) add('minted', a.amount);
    if (burn) add('burned', a.amount);
    if (expected > 0n) add('fees_burned', expected);
    if (spender) {
      const key = allowanceKey(a.from, spender.account);
      const left = spender.allowance - debit;
      const current = stores.allowances.get(key)!;
      if (left === 0n) stores.allowances.delete(key);
      else stores.allowances.set(key, { ...current, allowance: left });
    }
    const tx: Block['tx'] = {
      amt: a.amount,
      ...(!mint && { from: normalAccount(a.from) }),
      ...(!burn && { to: normalAccount(a.to) }),
      ...(spender && { spender: normalAccount(spender.account) }),
      ...(a.memo !== undefined && { memo: a.memo }),
      ...(a.created_at_time !== undefined && { ts: a.created_at_time }),
      ...(a.fee !== undefined && { fee: a.fee }),
    };
    const btype = mint ? '1mint' : burn ? '1burn' : spender ? '2xfer' : '1xfer';
    const index = append({ btype, ts: now, ...(a.fee === undefined && expected > 0n && { fee: expected }), tx });
    remember(a.created_at_time, dedupKey, index);
    prune(now);
    return Ok(index);
  }

  return {
    init(init: LedgerInit, ctx: CallContext): void {
      if (stores.config.has('config')) throw new Error('already initialised');
      requireNats({ transfer_fee: init.transfer_fee });
      for (const [, amount] of init.initial_balances) requireNats({ 'initial_balances amount': amount });
      const problem = accountProblem(init.minting_account);
      if (problem) throw new Error(`minting_account: ${problem}`);
      if (init.archive) requireNats({ 'archive.local_blocks': init.archive.local_blocks });
      stores.config.set('config', {
        ...(init.archive && { archive_local_blocks: init.archive.local_blocks }),
        minting_account: normalAccount(init.minting_account),
        transfer_fee: init.transfer_fee,
        token_name: init.token_name,
        token_symbol: init.token_symbol,
        decimals: init.decimals ?? 8,
        max_memo_length: MAX_MEMO_LENGTH,
        tx_window: TX_WINDOW,
        permitted_drift: PERMITTED_DRIFT,
      });
      for (const [to, amount] of init.initial_balances) {
        const r = move(ctx.now, { from: init.minting_account, to, amount }, '');
        if ('Err' in r) throw new Error(`initial balance for ${accountKey(to)}: ${JSON.stringify(Object.keys(r.Err))}`);
      }
    },

    icrc1_name: (_ctx: CallContext): string => config().token_name,
    icrc1_symbol: (_ctx: CallContext): string => config().token_symbol,
    icrc1_decimals: (_ctx: CallContext): number => config().decimals,
    icrc1_fee: (_ctx: CallContext): bigint => config().transfer_fee,
    icrc1_metadata(_ctx: CallContext): Array<[string, MetadataValue]> {
      const c = config();
      return [
        ['icrc1:name', { Text: c.token_name }],
        ['icrc1:symbol', { Text: c.token_symbol }],
        ['icrc1:decimals', { Nat: BigInt(c.decimals) }],
        ['icrc1:fee', { Nat: c.transfer_fee }],
        ['icrc1:max_memo_length', { Nat: BigInt(c.max_memo_length) }],
      ];
    },
    /** Minted less burned less fees (fees are burned). */
    icrc1_total_supply: (_ctx: CallContext): bigint => counter('minted') - counter('burned') - counter('fees_burned'),
    icrc1_minting_account: (_ctx: CallContext): Account | undefined => config().minting_account,
    icrc1_balance_of(_ctx: CallContext, account: Account): bigint {
      const p = accountProblem(account);
      if (p) throw new CanisterReject(`InvalidAccount: ${p}`);
      return balanceOf(account);
    },
    ...standardsQueries,

    icrc1_transfer(ctx: CallContext, a: TransferArgs): Result<bigint, TransferError> {
      requireNats({ amount: a.amount, fee: a.fee, created_at_time: a.created_at_time }, ['created_at_time']);
      const from: Account = {
        owner: ctx.caller,
        ...(a.from_subaccount !== undefined && { subaccount: a.from_subaccount }),
      };
      const problem = argumentProblem([from, a.to], a.memo);
      if (problem) return Err(generic(ERROR_CODES.INVALID_ARGUMENT, problem));
      const key = [
        '1',
        givenAccountKey(from),
        givenAccountKey(a.to),
        a.amount,
        a.fee ?? '-',
        bytesKey(a.memo),
        a.created_at_time ?? '-',
      ].join('|');
      return move(ctx.now, { ...a, from }, key) as Result<bigint, TransferError>;
    },

    icrc2_approve(ctx: CallContext, a: ApproveArgs): Result<bigint, ApproveError> {
      requireNats(
        {
          amount: a.amount,
          expected_allowance: a.expected_allowance,
          expires_at: a.expires_at,
          fee: a.fee,
          created_at_time: a.created_at_time,
        },
        ['expires_at', 'created_at_time'],
      );
      const c = config();
      const from: Account = {
        owner: ctx.caller,
        ...(a.from_subaccount !== undefined && { subaccount: a.from_subaccount }),
      };
      const problem = argumentProblem([from, a.spender], a.memo);
      if (problem) return Err(generic(ERROR_CODES.INVALID_ARGUMENT, problem));
      if (isMinting(from)) return Err(generic(ERROR_CODES.NOT_ALLOWED, 'the minting account cannot approve'));
      if (sameAccount(from, a.spender))
        return Err(generic(ERROR_CODES.NOT_ALLOWED, 'an account cannot approve itself'));
      const key = [
        '2a',
        givenAccountKey(from),
        givenAccountKey(a.spender),
        a.amount,
        a.expected_allowance ?? '-',
        a.expires_at ?? '-',
        a.fee ?? '-',
        bytesKey(a.memo),
        a.created_at_time ?? '-',
      ].join('|');
      const timing = timeAndDuplicate(a.created_at_time, key, ctx.now);
      if (timing) return Err(timing);
      if (a.fee !== undefined && a.fee !== c.transfer_fee) return Err({ BadFee: { expected_fee: c.transfer_fee } });
      if (a.expires_at !== undefined && a.expires_at <= ctx.now) return Err({ Expired: { ledger_time: ctx.now } });
      const current = allowanceAt(from, a.spender, ctx.now).allowance;
      if (a.expected_allowance !== undefined && a.expected_allowance !== current)
        return Err({ AllowanceChanged: { current_allowance: current } });
      const have = balanceOf(from);
      if (have < c.transfer_fee) return Err({ InsufficientFunds: { balance: have } });
      setBalance(from, have - c.transfer_fee);
      add('fees_burned', c.transfer_fee);
      const akey = allowanceKey(from, a.spender);
      if (a.amount === 0n) stores.allowances.delete(akey);
      else
        stores.allowances.set(akey, {
          allowance: a.amount,
          ...(a.expires_at !== undefined && { expires_at: a.expires_at }),
        });
      const index = append({
        btype: '2approve',
        ts: ctx.now,
        ...(a.fee === undefined && { fee: c.transfer_fee }),
        tx: {
          amt: a.amount,
          from: normalAccount(from),
          spender: normalAccount(a.spender),
          ...(a.expected_allowance !== undefined && { expected_allowance: a.expected_allowance }),
          ...(a.expires_at !== undefined && { expires_at: a.expires_at }),
          ...(a.memo !== undefined && { memo: a.memo }),
          ...(a.created_at_time !== undefined && { ts: a.created_at_time }),
          ...(a.fee !== undefined && { fee: a.fee }),
        },
      });
      remember(a.created_at_time, key, index);
      prune(ctx.now);
      return Ok(index);
    },

    icrc2_allowance(ctx: CallContext, a: AllowanceArgs): Allowance {
      return allowanceAt(a.account, a.spender, ctx.now);
    },

    /** ICRC-2: the caller (with spender_subaccount) spends from `from` within its allowance; amount + fee come off both. */
    icrc2_transfer_from(ctx: CallContext, a: TransferFromArgs): Result<bigint, TransferFromError> {
      requireNats({ amount: a.amount, fee: a.fee, created_at_time: a.created_at_time }, ['created_at_time']);
      const spender: Account = {
        owner: ctx.caller,
        ...(a.spender_subaccount !== undefined && { subaccount: a.spender_subaccount }),
      };
      const problem = argumentProblem([spender, a.from, a.to], a.memo);
      if (problem) return Err(generic(ERROR_CODES.INVALID_ARGUMENT, problem));
      const key = [
        '2x',
        givenAccountKey(spender),
        givenAccountKey(a.from),
        givenAccountKey(a.to),
        a.amount,
        a.fee ?? '-',
        bytesKey(a.memo),
        a.created_at_time ?? '-',
      ].join('|');
      // An account spending its own tokens needs no allowance (as DFINITY's ledger does).
      const self = sameAccount(spender, a.from);
      return move(
        ctx.now,
        a,
        key,
        self ? undefined : { account: spender, allowance: allowanceAt(a.from, spender, ctx.now).allowance },
      );
    },

    /** ICRC-3's icrc3_get_blocks: at most MAX_BLOCKS_PER_REQUEST blocks a call; in archive mode the older ones by callback (decisions L42, L43). */
    icrc3_get_blocks: (_ctx: CallContext, ranges: GetBlocksArgs[]): GetBlocksResult => answer(plan(ranges, 'ledger')),
    /** The archive's icrc3_get_blocks (decision L43): the archived blocks of the ranges, nothing else. */
    get_archived_blocks: (_ctx: CallContext, ranges: GetBlocksArgs[]): GetBlocksResult =>
      answer(plan(ranges, 'archive')),
    /** What the Azle entry encodes itself (decision L42): the same plans, without the Values. */
    blocksPlan: (ranges: GetBlocksArgs[], facet: 'ledger' | 'archive'): BlocksPlan => plan(ranges, facet),
    /** One archive in archive mode: this ledger, holding blocks 0 to the boundary (decision L43). */
    icrc3_get_archives(_ctx: CallContext, args: { from?: string }): ArchiveInfo[] {
      const boundary = archivedBelow(counter('blocks'));
      const self = host.self();
      return boundary === 0n || args.from === self ? [] : [{ canister_id: self, start: 0n, end: boundary - 1n }];
    },
    icrc3_supported_block_types: (_ctx: CallContext) => SUPPORTED_BLOCK_TYPES,
    ...icrc3TipQueries(stores, host),

    ...ledgerConsent(config, deps.candid),
  };
}

export type LedgerCore = ReturnType<typeof ledgerCore>;
