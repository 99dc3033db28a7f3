// Decision B87: the link page's way for the mailbox's owner to start the account afresh (decision B86),
// without script like the rest of the link page (B51), in spec 2 rule 1's order: the date of birth
// alone first; under 13 the block screen (its script keeps the web app's 24-hour block flag) and
// nothing else is asked; 13 and over the name, the name other members see (decision F47), the terms
// and the new password, the date carried along.
import { escapeHtml } from '../../core/http/page.ts';

const alert = (error: string | undefined) =>
  `<p id="error" class="error" role="alert">${error ? escapeHtml(error) : ''}</p>`;
const backToPassword = (t: string) =>
  `<p><a href="/verify-email?token=${t}">I know the password I registered with</a></p>`;

/** Step 1: the date of birth, first and alone. */
export function dobStep(token: string, error?: string): string {
  const t = escapeHtml(token);
  return `<p>Choosing a new password starts this account afresh: nothing the registration said is kept. Tell us about yourself, starting with your date of birth.</p>
<form method="post" action="/verify-email"><input type="hidden" name="token" value="${t}">
<label for="dob">Date of birth</label><input id="dob" name="dob" type="date" required aria-describedby="dob-help">
<p id="dob-help" class="muted">We ask first: members must be 13 or older.</p>
${alert(error)}<button type="submit">Continue</button></form>
${backToPassword(t)}`;
}

/** Step 2: the rest of the owner's answers and the new password; the date of birth travels hidden and is checked again. */
export function answersStep(
  token: string,
  dob: string,
  minor: boolean,
  o: { name?: string; display_name?: string; error?: string } = {},
): string {
  const t = escapeHtml(token);
  const shown = new Date(`${dob}T00:00:00Z`).toLocaleDateString('en-GB', {
    day: 'numeric',
    month: 'long',
    year: 'numeric',
    timeZone: 'UTC',
  });
  return `<p>Date of birth: <strong>${escapeHtml(shown)}</strong> · <a href="/verify-email?token=${t}&amp;choose=1">change</a></p>
${minor ? '<p class="muted">You are under 18: you can join, read governance and support campaigns; voting needs an Active membership, which starts at 18.</p>' : ''}
<form method="post" action="/verify-email"><input type="hidden" name="token" value="${t}"><input type="hidden" name="dob" value="${escapeHtml(dob)}">
<label for="name">Name</label><input id="name" name="name" autocomplete="name" required maxlength="200" value="${escapeHtml(o.name ?? '')}">
<label for="display_name">Name other members see</label><input id="display_name" name="display_name" autocomplete="nickname" maxlength="32" value="${escapeHtml(o.display_name ?? '')}" aria-describedby="display-name-help">
<p id="display-name-help" class="muted">Shown beside your votes, proposals and contributions. Leave it empty to use your name above.</p>
<label for="new_password">New password (12 characters or more)</label><input id="new_password" name="new_password" type="password" autocomplete="new-password" required minlength="12" maxlength="128">
<label class="check"><input id="tos_accepted" name="tos_accepted" type="checkbox" value="true" required> I accept the terms of membership.</label>
${alert(o.error)}<button type="submit">Create my account and verify</button></form>
${backToPassword(t)}`;
}

/** Under 13 (spec 2 rule 1): the block screen; `age-block` makes the pages' script keep the flag. */
export const BLOCK_TITLE = 'We can’t create an account for you';
export function blockScreen(): string {
  return `<p id="age-block">You must be at least 13 years old to join DOM DAO. Nothing you entered was stored.</p>
<h2>What you can do</h2>
<ul><li>Read what the DAO decides: <a href="/govern">proposals</a>, <a href="/campaigns">campaigns</a> and the <a href="/price">DOM price</a> are open to everyone.</li>
<li>Ask a parent or guardian about DOM DAO; you are welcome to join once you are 13.</li></ul>`;
}

/** The form's answers: what a browser sent, each a string of bounded length, else undefined. */
export function formAnswers(
  b: Record<string, unknown>,
  max: number,
): { dob?: string; name?: string; display_name?: string; tos_accepted?: boolean } {
  const text = (k: string) => {
    const v = b[k];
    return typeof v === 'string' && v.length <= max ? v : undefined;
  };
  const dob = text('dob');
  const name = text('name');
  const display_name = text('display_name');
  return {
    ...(dob !== undefined && { dob }),
    ...(name !== undefined && { name }),
    ...(display_name !== undefined && { display_name }),
    ...(b.tos_accepted === 'true' && { tos_accepted: true }),
  };
}
