// ICRC-21 consent messages, shared by the ledger and governance (decisions L36–L38): a canister describes
// a call as an intent, a sentence and labelled values; this renders that for the device the signer
// names (GenericDisplay: Markdown; FieldsDisplay: typed fields) in English, the one language written.
import type { Idl, IdlType } from '../candid/methods.ts';
import { fromCandid, type PrincipalCodec } from '../candid/values.ts';
import { codeSpan, duration, inert, timestamp, tokenAmount } from './format.ts';

export interface ConsentMetadata {
  /** BCP-47 language tag. */
  language: string;
  utc_offset_minutes?: number;
}

export interface ConsentRequest {
  method: string;
  arg: Uint8Array;
  user_preferences: { metadata: ConsentMetadata; device_spec?: 'GenericDisplay' | 'FieldsDisplay' };
}

export type ConsentValue =
  | { TokenAmount: { decimals: number; amount: bigint; symbol: string } }
  | { TimestampSeconds: { amount: bigint } }
  | { DurationSeconds: { amount: bigint } }
  | { Text: { content: string } };

export type ConsentMessage =
  | { GenericDisplayMessage: string }
  | { FieldsDisplayMessage: { intent: string; fields: Array<[string, ConsentValue]> } };

export type ConsentError =
  | { UnsupportedCanisterCall: { description: string } }
  | { ConsentMessageUnavailable: { description: string } }
  | { InsufficientPayment: { description: string } }
  | { GenericError: { error_code: bigint; description: string } };

export type ConsentResponse =
  { Ok: { consent_message: ConsentMessage; metadata: ConsentMetadata } } | { Err: ConsentError };

/** A value as the canister means it; rendering picks the form per device. */
export type Shown =
  | { token: bigint; decimals: number; symbol: string }
  /** IC time, ns. */
  | { time: bigint }
  /** ns. */
  | { duration: bigint }
  /** The canister's own words. */
  | { text: string }
  /** A value from the arguments (an account, a memo, a title): shown verbatim but inert, in a code span. */
  | { code: string; max?: number };

export interface ConsentLine {
  label: string;
  value: Shown;
  /** An explanation under the value (GenericDisplay only: FieldsDisplay keeps to labelled values, as ICRC-21's examples advise). */
  note?: string;
}

export interface ConsentDraft {
  /** Action and subject, short ("Send DOM"): the Markdown title and FieldsDisplay's intent. */
  intent: string;
  /** One or two sentences under the title (GenericDisplay). */
  summary: string;
  lines: ConsentLine[];
}

const U64_MAX = (1n << 64n) - 1n;
const NS_PER_SECOND = 1_000_000_000n;

/** The language answered (decision L37): an English tag as asked, any other falls back to "en". */
export function consentLanguage(requested: string): string {
  return /^en(-[a-z0-9]{1,8})*$/i.test(requested) ? requested : 'en';
}

export const unsupported = (description: string): ConsentResponse => ({
  Err: { UnsupportedCanisterCall: { description } },
});
export const unavailable = (description: string): ConsentResponse => ({
  Err: { ConsentMessageUnavailable: { description } },
});

function markdownValue(v: Shown, offset: number): string {
  if ('token' in v) return codeSpan(`${tokenAmount(v.token, v.decimals)} ${v.symbol}`);
  if ('time' in v) return timestamp(v.time, offset);
  if ('duration' in v) return duration(v.duration);
  if ('text' in v) return v.text;
  return codeSpan(inert(v.code, v.max));
}

function fieldValue(v: Shown): ConsentValue {
  if ('token' in v)
    return v.token <= U64_MAX
      ? { TokenAmount: { decimals: v.decimals, amount: v.token, symbol: v.symbol } }
      : { Text: { content: `${tokenAmount(v.token, v.decimals)} ${v.symbol}` } };
  if ('time' in v) return { TimestampSeconds: { amount: v.time / NS_PER_SECOND } };
  if ('duration' in v)
    return v.duration / NS_PER_SECOND <= U64_MAX
      ? { DurationSeconds: { amount: v.duration / NS_PER_SECOND } }
      : { Text: { content: duration(v.duration) } };
  if ('text' in v) return { Text: { content: v.text } };
  return { Text: { content: inert(v.code, v.max) } };
}

/**
 * The consent message for `draft` as the signer asked for it: FieldsDisplay when named, else
 * GenericDisplay (ICRC-21's fallback when device_spec is absent). The metadata says the language used
 * and, when the message shows a time, the UTC offset it was shown in (0 when the request gave none).
 */
export function renderConsent(draft: ConsentDraft, prefs: ConsentRequest['user_preferences']): ConsentResponse {
  const offset = prefs.metadata.utc_offset_minutes ?? 0;
  const timed = draft.lines.some((l) => 'time' in l.value);
  const metadata: ConsentMetadata = {
    language: consentLanguage(prefs.metadata.language),
    ...(timed && { utc_offset_minutes: offset }),
  };
  if (prefs.device_spec === 'FieldsDisplay') {
    return {
      Ok: {
        consent_message: {
          FieldsDisplayMessage: {
            intent: draft.intent,
            fields: draft.lines.map((l) => [l.label, fieldValue(l.value)]),
          },
        },
        metadata,
      },
    };
  }
  const body = draft.lines.map(
    (l) => `**${l.label}:** ${markdownValue(l.value, offset)}${l.note ? `  \n${l.note}` : ''}`,
  );
  return {
    Ok: {
      consent_message: { GenericDisplayMessage: [`# ${draft.intent}`, draft.summary, ...body].join('\n\n') },
      metadata,
    },
  };
}

/** Principals decoded by either copy of the candid library (Azle's or @icp-sdk/core's) have toText. */
const principals: PrincipalCodec = {
  toText: (p) => (p as { toText(): string }).toText(),
  fromText: () => {
    throw new TypeError('consent messages only decode');
  },
};

/** The call's arguments decoded as the canister decodes them, in the core's shape; or why they cannot be. */
export function decodeArgs(candid: Idl, types: IdlType[], arg: Uint8Array): { args: unknown[] } | { problem: string } {
  try {
    // A copy: decode reads the whole underlying buffer.
    const values = candid.decode(types, Uint8Array.from(arg));
    return { args: types.map((t, i) => fromCandid(t, values[i], principals)) };
  } catch (e) {
    return { problem: `the argument is not Candid for this method: ${e instanceof Error ? e.message : String(e)}` };
  }
}
