// UTF-8 encoding on the wasm (decision W17): Azle's TextEncoder is a polyfill interpreted by QuickJS
// (about 36,000 instructions per byte), so a text is encoded by Azle's candidEncode instead, which parses
// a Candid text literal in Rust and writes its UTF-8 bytes after a fixed header (about 400 instructions
// per byte). A literal escapes only `"` and `\`; the parser takes every other character as it is. A
// string Rust cannot hold (a lone surrogate, which JSON text never has) goes to TextEncoder.
import { candidEncode } from 'azle';

const utf8 = new TextEncoder();
/** "DIDL", no types, one argument of type text (0x71), then the byte length (LEB128) and the bytes. */
const HEADER = 7;

export function encodeUtf8(text: string): Uint8Array {
  let encoded: Uint8Array;
  try {
    encoded = candidEncode(`("${text.split('\\').join('\\\\').split('"').join('\\"')}")`);
  } catch {
    return utf8.encode(text);
  }
  let at = HEADER;
  while (encoded[at] & 0x80) at++;
  return encoded.subarray(at + 1);
}
