// The standards the DOM ledger claims, the same list from icrc1_supported_standards and ICRC-10's
// icrc10_supported_standards (decision L27), as DFINITY's ledger answers both.
import { ICRC10_STANDARD, type CallContext } from '@domdao/canister-kit';

export interface SupportedStandard {
  name: string;
  url: string;
}

export const SUPPORTED_STANDARDS: SupportedStandard[] = [
  { name: 'ICRC-1', url: 'https://github.com/dfinity/ICRC-1/tree/main/standards/ICRC-1' },
  { name: 'ICRC-2', url: 'https://github.com/dfinity/ICRC-1/tree/main/standards/ICRC-2' },
  { name: 'ICRC-3', url: 'https://github.com/dfinity/ICRC-1/tree/main/standards/ICRC-3' },
  // The standard's own self-reference, exactly (decision L50).
  ICRC10_STANDARD,
  // Consent messages for icrc1_transfer, icrc2_approve and icrc2_transfer_from (decision L36).
  { name: 'ICRC-21', url: 'https://github.com/dfinity/ICRC/blob/main/ICRCs/ICRC-21/ICRC-21.md' },
];

export const standardsQueries = {
  icrc1_supported_standards: (_ctx: CallContext): SupportedStandard[] => SUPPORTED_STANDARDS,
  icrc10_supported_standards: (_ctx: CallContext): SupportedStandard[] => SUPPORTED_STANDARDS,
};
