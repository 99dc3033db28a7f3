// Every caller value reaches HTML through these; templates never concatenate raw data into markup.
const HTML: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** For text nodes: only & < > need escaping there, which keeps entity-heavy text small. */
export function escapeText(value: string): string {
  return value.replace(/[&<>]/g, (c) => HTML[c]!);
}

/** For attribute values (always double-quoted in our markup). */
export function escapeAttr(value: string): string {
  return value.replace(/[&<>"']/g, (c) => HTML[c]!);
}

/** Subjects come from caller data: one line, no control characters, bounded (RFC 5322 recommends 78 per line; providers fold). */
export function subjectLine(value: string, max = 200): string {
  const flat = value.replace(/[\p{Cc}\p{Zl}\p{Zp}]+/gu, ' ').replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
