// What a delegate statement may be (decision B108): a short text a member writes about themselves as a
// delegate, read by members choosing one. NFC, line breaks as \n, at most two in a row, bidi controls
// dropped (decision F41: they carry nothing a reader needs), tabs as spaces, no other control
// character, no stack of more combining marks than a display name may carry on one character (decision
// B90: a stack spills over the lines around it), at most STATEMENT_MAX_CHARS characters once trimmed.
import { withoutBidiControls } from '@domdao/canister-kit/bidi';
import { DISPLAY_NAME_MAX_MARKS } from '../../core/identity/display-name-rules.ts';

/** Characters (Unicode code points, after NFC) a statement holds at most. */
export const STATEMENT_MAX_CHARS = 500;

// C0 and C1 controls and DEL, except the line feed a paragraph needs.
const CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/u;
const STACK = new RegExp(`\\p{M}{${DISPLAY_NAME_MAX_MARKS + 1},}`, 'u');

/** The statement as stored, or why it is refused (a VALIDATION_ERROR message). Empty means "none". */
export function normaliseStatement(raw: string): { text: string } | { problem: string } {
  const text = withoutBidiControls(raw.normalize('NFC').replace(/\r\n?|\u2028|\u2029/g, '\n'))
    .replace(/\t/g, ' ')
    .replace(/ +\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  const control = CONTROL.exec(text);
  if (control)
    return {
      problem: `statement: control characters are not allowed (U+${control[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')})`,
    };
  const length = [...text].length;
  if (length > STATEMENT_MAX_CHARS)
    return { problem: `statement: at most ${STATEMENT_MAX_CHARS} characters (this one has ${length})` };
  if (STACK.test(text.normalize('NFD')))
    return { problem: `statement: at most ${DISPLAY_NAME_MAX_MARKS} combining marks on one character` };
  return { text };
}
