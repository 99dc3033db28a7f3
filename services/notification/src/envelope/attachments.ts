// Caller attachments (spec 3 Send request `attachments`).
import type { Detail } from '../http/errors.ts';

export const MAX_ATTACHMENTS = 10;
export const MAX_ATTACHMENT_BYTES = 25 * 1024 * 1024;
const MAX_FILENAME_OCTETS = 255;
const MAX_CONTENT_TYPE = 255;

export interface Attachment {
  filename: string;
  /** Strict base64, as received: providers take base64, so it is never decoded in the service. */
  content: string;
  contentType?: string;
}

/**
 * Filenames are refused, not rewritten, when they could escape a directory or a MIME header: path
 * separators, `.`/`..`, control characters (CR/LF included), and bidi or zero-width characters that
 * disguise an extension.
 */
export function filenameProblem(name: unknown): string | undefined {
  if (typeof name !== 'string' || name.length === 0) return 'is required and must be a non-empty string';
  if (Buffer.byteLength(name) > MAX_FILENAME_OCTETS) return `must be at most ${MAX_FILENAME_OCTETS} octets`;
  if (/[\p{Cc}\p{Cf}\u2028\u2029]/u.test(name)) return 'must not contain control or invisible formatting characters';
  if (/[/\\]/.test(name)) return 'must be a bare file name without path separators';
  if (/^\.+$/.test(name.trim()) || name.trim() === '') return 'must be a real file name';
  if (name !== name.trim()) return 'must not start or end with white space';
  // Mail clients decode RFC 2047 encoded words in attachment names, so `=?utf-8?B?Li4v…?=` would
  // reach the recipient as `../`, CR/LF or U+202E after these checks. JSON already carries Unicode,
  // so an encoded word is refused rather than decoded (decision D31).
  if (ENCODED_WORD.test(name))
    return 'must be the plain Unicode name, not an RFC 2047 encoded word (=?charset?B|Q?…?=)';
  return undefined;
}

const ENCODED_WORD = /=\?[^?]*\?[BbQq]\?[^?]*\?=/;

// type/subtype (RFC 6838 restricted names) with at most a charset parameter: a `name=` or
// `filename=` parameter would compete with the attachment's filename in some clients (decision D31).
const CONTENT_TYPE =
  /^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}\/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}(?: *; *charset=(?:[A-Za-z0-9!#$%&'+^_`{}~.-]{1,40}|"[A-Za-z0-9!#$%&'+^_`{}~.-]{1,40}"))?$/i;

export function contentTypeProblem(value: unknown): string | undefined {
  if (
    typeof value !== 'string' ||
    value.length === 0 ||
    value.length > MAX_CONTENT_TYPE ||
    !/^[\x20-\x7e]+$/.test(value)
  ) {
    return `must be 1 to ${MAX_CONTENT_TYPE} printable ASCII characters`;
  }
  if (!CONTENT_TYPE.test(value))
    return 'must be type/subtype, optionally with a charset parameter (no other parameters)';
  return undefined;
}

/** Decoded size of strict (padded, alphabet-only, no white space) base64, or undefined if not strict. */
export function strictBase64Size(content: string): number | undefined {
  if (content.length % 4 !== 0) return undefined;
  const pad = content.endsWith('==') ? 2 : content.endsWith('=') ? 1 : 0;
  const body = content.length - pad;
  // A linear scan; a regex with a quantified group over 33 MB risks backtracking limits.
  for (let i = 0; i < body; i++) {
    const c = content.charCodeAt(i);
    const ok = (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 43 || c === 47;
    if (!ok) return undefined;
  }
  // Canonical form: the bits after the last byte must be zero, as RFC 4648 §3.5 asks of strict decoders.
  if (pad > 0) {
    const last = content.charAt(body - 1);
    const value = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'.indexOf(last);
    if ((pad === 2 && (value & 0x0f) !== 0) || (pad === 1 && (value & 0x03) !== 0)) return undefined;
  }
  return (content.length / 4) * 3 - pad;
}

export function validateAttachments(value: unknown, details: Detail[]): Attachment[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    details.push({ field: 'attachments', message: 'must be an array' });
    return [];
  }
  if (value.length > MAX_ATTACHMENTS) {
    details.push({ field: 'attachments', message: `must have at most ${MAX_ATTACHMENTS} items (got ${value.length})` });
    return [];
  }
  const out: Attachment[] = [];
  value.forEach((item: unknown, i) => {
    const at = `attachments[${i}]`;
    if (typeof item !== 'object' || item === null || Array.isArray(item)) {
      details.push({ field: at, message: 'must be an object with filename and content' });
      return;
    }
    const { filename, content, content_type: contentType } = item as Record<string, unknown>;
    const before = details.length;
    const fp = filenameProblem(filename);
    if (fp) details.push({ field: `${at}.filename`, message: fp });
    if (typeof content !== 'string' || content.length === 0) {
      details.push({ field: `${at}.content`, message: 'is required and must be a non-empty base64 string' });
    } else {
      const size = strictBase64Size(content);
      if (size === undefined)
        details.push({ field: `${at}.content`, message: 'must be valid padded base64 without white space' });
      else if (size > MAX_ATTACHMENT_BYTES) {
        details.push({
          field: `${at}.content`,
          message: `must decode to at most ${MAX_ATTACHMENT_BYTES} bytes (got ${size})`,
        });
      }
    }
    const ctp = contentType === undefined ? undefined : contentTypeProblem(contentType);
    if (ctp) details.push({ field: `${at}.content_type`, message: ctp });
    if (details.length === before) {
      out.push({
        filename: filename as string,
        content: content as string,
        ...(contentType !== undefined && { contentType: contentType as string }),
      });
    }
  });
  return out;
}
