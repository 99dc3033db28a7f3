// UTF-8 for canister state (decision W17). Azle 0.33 runs TextDecoder and TextEncoder as a JavaScript
// polyfill (@sinonjs/text-encoding) interpreted by QuickJS: about 40,000 instructions per byte, most of
// what a read of stored state cost on the wasm (a 238-byte ledger configuration: 9.6 M of icrc1_symbol's
// 15.1 M). The decoder here hands the bytes to QuickJS's own string functions: one native call per
// 8 KiB chunk makes a Latin-1 string, and `escape` with `decodeURIComponent` reads it as UTF-8, about
// 900 instructions per byte. Pure JavaScript, so it runs the same in Node.
const CHUNK = 8192;
let fallback: TextDecoder | undefined;

/** The UTF-8 text of `bytes`; a byte sequence that is not UTF-8 is read as TextDecoder reads it (U+FFFD). */
export function decodeUtf8(bytes: Uint8Array): string {
  let latin1 = '';
  for (let i = 0; i < bytes.length; i += CHUNK)
    latin1 += String.fromCharCode.apply(null, bytes.subarray(i, i + CHUNK) as unknown as number[]);
  try {
    return decodeURIComponent(escape(latin1));
  } catch {
    // Not UTF-8 (never so for what the codec wrote): the standard's replacement rules, at its price.
    return (fallback ??= new TextDecoder()).decode(bytes);
  }
}
