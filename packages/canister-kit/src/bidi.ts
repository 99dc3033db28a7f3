// The bidirectional formatting characters of Unicode's bidi algorithm (UAX #9): embeddings and
// overrides U+202A–U+202E, isolates U+2066–U+2069 and the marks U+200E, U+200F, U+061C. One of them in
// member-written text can reorder what is shown ("\u202Egnp.exe" reads "exe.png"), so every place that
// shows such text drops them (decision F41), as consent messages do (decision L36). This module imports
// nothing, so the web app's bundle, the bridge and the canister cores can all take it.

/** The characters as a regular-expression class body, for composing larger classes. */
export const BIDI_CONTROL_CLASS = '\\u061c\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069';

const BIDI_CONTROLS = new RegExp(`[${BIDI_CONTROL_CLASS}]`, 'gu');

/** `text` without bidirectional formatting characters; everything else as it is. */
export function withoutBidiControls(text: string): string {
  return text.replace(BIDI_CONTROLS, '');
}

/** `value` with every string in it (however deeply nested in arrays and plain objects) without bidi controls. */
export function withoutBidiControlsDeep<T>(value: T): T {
  if (typeof value === 'string') return withoutBidiControls(value) as T;
  if (Array.isArray(value)) return value.map((v: unknown) => withoutBidiControlsDeep(v)) as T;
  if (value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withoutBidiControlsDeep(v)])) as T;
  }
  return value;
}
