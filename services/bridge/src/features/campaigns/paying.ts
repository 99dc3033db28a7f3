// Paying as the member (decisions L21, L25): contributions and donations are pulled by the campaign
// canister from the member's allowance, so the bridge approves only when the canister says the
// allowance is short, after checking the balance covers it, one operation per member at a time.
// The canister's op id is the client's Idempotency-Key, so a retry is answered by the first result.
import { randomUUID } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { CanisterClients } from '@domdao/canisters';
import { usdToDomE8s } from '@domdao/canister-kit/rules';
import type { Session } from '../../core/auth/sessions.ts';
import { HttpError } from '../../core/http/errors.ts';
import { serialByKey } from '../../core/serial.ts';
import { moneyHttpError } from './errors.ts';

export type Member = Pick<CanisterClients, 'campaign' | 'ledger'>;

/** Decision L21: a USD contribution's approval leaves 1 % for a price ratified between the bridge's read and the canister's. */
export const USD_HEADROOM_PCT = 1n;
/** The approval a contribution makes expires after this (unused allowance does not linger). */
export const APPROVAL_TTL_MS = 15 * 60_000;
const IDEMPOTENCY = /^[A-Za-z0-9._:-]{1,100}$/;

export type AmountIn = { dom_e8s: string } | { usd: number };
export const canisterAmount = (a: AmountIn) => ('dom_e8s' in a ? { Dom: BigInt(a.dom_e8s) } : { Usd: a.usd });

export interface PayingOptions {
  clients: Pick<CanisterClients, 'ledger' | 'governance'>;
  /** The campaign canister's principal: the spender members approve. */
  campaignCanister: string;
  now(): number;
}

/** The op id, the approval and the payment a contribution or donation goes through. */
export function memberPayments(opts: PayingOptions) {
  const { clients } = opts;
  const nowNs = () => BigInt(opts.now()) * 1_000_000n;
  /** The canister's op id: the client's Idempotency-Key (a retry is answered by the first result), else a fresh one. */
  const opId = (req: FastifyRequest, session: Session): string => {
    const key = req.headers['idempotency-key'];
    if (key === undefined) return `http-${randomUUID()}`;
    if (typeof key !== 'string' || !IDEMPOTENCY.test(key))
      throw new HttpError(400, 'VALIDATION_ERROR', 'Idempotency-Key: 1 to 100 of A-Z a-z 0-9 . _ : -');
    return `http-${session.user_id.slice(0, 8)}-${key}`;
  };
  /**
   * Approves the campaign canister for `pull` more (what the canister will take from the allowance),
   * compare-and-set on the allowance (L21); first the balance must cover `pull` and the approval's own
   * fee, else nothing is approved and no fee is paid (decision L25).
   */
  const approve = async (member: Member, principal: string, pull: bigint): Promise<void> => {
    const fee = await clients.ledger.icrc1_fee();
    const account = { owner: principal };
    const spender = { owner: opts.campaignCanister };
    for (let attempt = 0; attempt < 3; attempt++) {
      const balance = await clients.ledger.icrc1_balance_of(account);
      if (balance < pull + fee) throw moneyHttpError({ InsufficientFunds: { balance, required: pull + fee } });
      const { allowance } = await member.ledger.icrc2_allowance({ account, spender });
      const r = await member.ledger.icrc2_approve({
        spender,
        amount: allowance + pull,
        expected_allowance: allowance,
        expires_at: nowNs() + BigInt(APPROVAL_TTL_MS) * 1_000_000n,
      });
      if ('Ok' in r) return;
      if ('AllowanceChanged' in r.Err) continue;
      throw moneyHttpError(
        'InsufficientFunds' in r.Err
          ? { InsufficientFunds: r.Err.InsufficientFunds }
          : { LedgerError: Object.keys(r.Err)[0] ?? 'approve refused' },
      );
    }
    throw new HttpError(
      409,
      'CONCURRENT_APPROVAL',
      'another payment of yours is changing the same approval; try again',
    );
  };
  // A member's operations one at a time on this instance (decision L25).
  const perMember = serialByKey();
  /**
   * Decision L25: a contribution or donation costs a fee only if it is made. The canister is asked
   * first, with the allowance as it is: its own refusals (closed campaign, membership, price, amount)
   * and the ledger's InsufficientFunds move nothing, and a repeated Idempotency-Key is answered as
   * before without an approval. Only when the allowance alone is short does the bridge approve (after
   * checking the balance covers it) and ask again. One operation per member at a time, so parallel
   * requests cannot all pass the balance check and each pay an approval for funds that cover only
   * some of them.
   */
  const pay = <T>(
    member: Member,
    principal: string,
    pull: () => Promise<bigint>,
    call: () => Promise<{ Ok: T } | { Err: Record<string, unknown> }>,
  ): Promise<T> =>
    perMember(principal, async () => {
      let r = await call();
      if ('Err' in r && 'InsufficientAllowance' in r.Err) {
        await approve(member, principal, await pull());
        r = await call();
      }
      if ('Err' in r) throw moneyHttpError(r.Err);
      return r.Ok;
    });
  /** What to approve for an amount: DOM as given; USD at the ratified price with USD_HEADROOM_PCT. */
  const approvalFor = async (a: AmountIn): Promise<bigint> => {
    if ('dom_e8s' in a) return BigInt(a.dom_e8s);
    const tick = await clients.governance.get_dom_price();
    if (!tick) throw moneyHttpError({ PriceUnavailable: null });
    const e8s = usdToDomE8s(a.usd, tick);
    return e8s + (e8s * USD_HEADROOM_PCT) / 100n + 1n;
  };
  return { opId, pay, approvalFor };
}
