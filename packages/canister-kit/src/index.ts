export { compareKeys, type Store, type StoreKey } from './store.ts';
export { decode, encode } from './codec.ts';
export { Err, isOk, Ok, type Result } from './result.ts';
export { isDefaultSubaccount, type Account, type CallContext } from './call.ts';
export { compositeKey, u64Key, withPrefix } from './keys.ts';
export { CanisterReject, clampLimit, requireNats } from './reject.ts';
export { ANSWER_COST, ANSWER_STORED_BYTES, REPLY_TEXT_BUDGET, utf8Length, withinReplyBudget } from './reply-budget.ts';
export {
  ICRC10_STANDARD,
  ICRC7_MAX_MEMO_SIZE,
  ICRC7_MAX_QUERY_BATCH,
  ICRC7_MAX_TAKE,
  soulboundIcrc7,
  type Icrc7TransferError,
  type Icrc7Value,
  type SoulboundCollection,
} from './soulbound.ts';
export type { CanisterCall, CanisterTimer, CanisterWiring, HostServices } from './wiring.ts';
export {
  accountText,
  codeSpan,
  duration,
  inert,
  memoText,
  principalBytes,
  timestamp,
  tokenAmount,
  utf8,
} from './consent/format.ts';
export {
  consentLanguage,
  decodeArgs,
  renderConsent,
  unavailable,
  unsupported,
  type ConsentDraft,
  type ConsentError,
  type ConsentLine,
  type ConsentMessage,
  type ConsentMetadata,
  type ConsentRequest,
  type ConsentResponse,
  type ConsentValue,
  type Shown,
} from './consent/message.ts';
