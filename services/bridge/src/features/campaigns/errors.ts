// Decision L21: each campaign/treasury canister error variant as an HTTP status, the variant's name as
// the error code (as the governance gateway does, V9). An unknown variant is 502, never a silent 500.
import { CANISTER_REFUSALS, type CanisterRefusal } from '../../core/http/error-codes.ts';
import { HttpError } from '../../core/http/errors.ts';

/** The canister's variants the bridge answers with; each one's status is the registry's (decision B125). */
const MONEY_VARIANTS = [
  'InvalidArgument',
  'NotAuthorized',
  'NotAMember',
  'CampaignNotFound',
  'CampaignClosed',
  'PriceUnavailable',
  'PriceStale',
  'InsufficientFunds',
  'InsufficientAllowance',
  'LedgerError',
] as const satisfies readonly CanisterRefusal[];

export const MONEY_ERROR_STATUS: Record<string, number> = Object.fromEntries(
  MONEY_VARIANTS.map((v) => [v, CANISTER_REFUSALS[v].status[0]]),
);

const MESSAGES: Record<string, string> = {
  InvalidArgument: 'invalid request',
  NotAuthorized: 'you are not allowed to do this',
  NotAMember: 'a membership is required',
  CampaignNotFound: 'no such campaign',
  CampaignClosed: 'the campaign is closed',
  PriceUnavailable: 'no usable DOM/USD price: use a DOM amount',
  PriceStale: 'the ratified price is stale',
  InsufficientFunds: 'not enough DOM in your account (amount plus the ledger fee)',
  InsufficientAllowance: 'the approval does not cover the amount plus the ledger fee',
  LedgerError: 'the DOM ledger refused or could not be reached; try again',
};

const text = (v: unknown): string => JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? x.toString() : x));

export function moneyHttpError(err: Record<string, unknown>): HttpError {
  const variant = Object.keys(err)[0] ?? 'Unknown';
  const detail = err[variant];
  // Decision B55: the ledger refusing a burn below its minimum is the amount's fault, not the ledger's.
  if (variant === 'LedgerError' && typeof detail === 'string' && detail.startsWith('BadBurn'))
    return new HttpError(400, 'InvalidArgument', `the amount is below the ledger's minimum burn: ${detail}`);
  const status = MONEY_ERROR_STATUS[variant] ?? 502;
  const extra =
    typeof detail === 'string'
      ? detail
        ? `: ${detail}`
        : ''
      : detail === null || detail === undefined
        ? ''
        : ` ${text(detail)}`;
  return HttpError.passThrough(status, variant, `${MESSAGES[variant] ?? `the canister answered ${variant}`}${extra}`);
}
