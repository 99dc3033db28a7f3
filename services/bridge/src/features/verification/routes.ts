// Spec 2 email verification: the link the verification email carries (GET /verify-email?token=), the
// confirmation it leads to, the roles a verified user gets, and the sender of that email (registration's
// outbox operation and the resend of account recovery use it). The user canister checks the token and
// mints the Registered membership (or queues the retry) through the outbox (decision B25).
//
// Decision B51: the link proves the mailbox, and the confirmation proves the password. Opening the link
// changes nothing (mail scanners open links too); the page asks for the password chosen at
// registration, or lets whoever holds the mailbox choose a new one. So a password set by someone who
// does not control the mailbox (a registration made in a victim's name) never signs in to an account
// the mailbox's owner verified, and a bootstrap admin address gets `admin` only with both proofs.
// Decision B86: choosing a new password proves only the mailbox, so the account starts afresh from the
// owner's own answers (start-afresh.ts); the page asks for them date of birth first (decision B87).
// The confirmation itself (the proof, the outbox, the sign-in) is confirm.ts's; these are its pages.
import { Type } from '@sinclair/typebox';
import { firstOrigin } from '../../config.ts';
import type { VerificationContext } from './context.ts';
import { HttpError } from '../../core/http/errors.ts';
import { escapeHtml, page, PAGE_CSP, PAGE_CSP_NO_SCRIPT } from '../../core/http/page.ts';
import type { BridgeApp } from '../../core/http/typed.ts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ageOn } from '../../core/identity/registration-rules.ts';
import { ageGate } from './owner-answers.ts';
import { answersStep, BLOCK_TITLE, blockScreen, dobStep, formAnswers } from './owner-pages.ts';
import { audited, confirmVerification, invalidLink, pendingAccount, type Confirmed } from './confirm.ts';
import { routeSchema } from '../../core/http/route-doc.ts';
import { getVerifyEmailPageDoc, confirmVerificationFormDoc, confirmVerificationDoc } from './route-docs.ts';

export interface VerificationOptions {
  ctx: VerificationContext;
}

/** The link's form page carries no script (decision B51; forms post to the bridge itself); a dead link's page offers a new link through the pages' own script (decision F23). */
const VERIFY_PAGE_CSP = PAGE_CSP_NO_SCRIPT;
const TOKEN = Type.String({ minLength: 1, maxLength: 64 });
/** Registration's bound on a sealed field. */
const Cipher = Type.String({ minLength: 1, maxLength: 16_500 });
const ConfirmBody = Type.Object(
  {
    token: TOKEN,
    password: Type.Optional(Type.String({ minLength: 1, maxLength: 1024 })),
    new_password: Type.Optional(Type.String({ minLength: 1, maxLength: 1024 })),
    // Decision B86: with new_password, the owner's own answers, sealed as registration's are.
    name_encrypted: Type.Optional({
      ...Cipher,
      description: "with new_password: the mailbox owner's name, sealed as at registration (decision B86)",
    }),
    dob_encrypted: Type.Optional({
      ...Cipher,
      description:
        "with new_password: the mailbox owner's date of birth (YYYY-MM-DD), sealed as at registration; under 13 is COPPA_BLOCK (decision B86)",
    }),
    tos_accepted: Type.Optional(
      Type.Literal(true, { description: 'with new_password: the mailbox owner accepts the terms (decision B86)' }),
    ),
    display_name: Type.Optional(
      Type.String({
        maxLength: 128,
        description:
          "with new_password: the name other members see, plain text, held to the profile's rules (decision F47); absent: the random default",
      }),
    ),
  },
  { additionalProperties: false },
);
/** GET /verify-email's query (decision S28): the link's token, and `choose=1` for the owner's first step. */
const VerifyPageQuery = Type.Object(
  {
    token: { ...TOKEN, description: 'the verification token of the email link' },
    choose: Type.Optional(
      Type.Literal('1', {
        description: "show the first step of starting afresh: the owner's date of birth (decision B87)",
      }),
    ),
  },
  { additionalProperties: false },
);
const FORM_FIELD_MAX = 1024;

export default async function verification(app: BridgeApp, { ctx }: VerificationOptions): Promise<void> {
  const continueTo = firstOrigin(ctx.config);
  const signIn = `${ctx.config.PUBLIC_URL}/login`;
  const html = (reply: FastifyReply, status: number, title: string, body: string, script = false) =>
    reply
      .code(status)
      .type('text/html; charset=utf-8')
      .header('content-security-policy', script ? PAGE_CSP : VERIFY_PAGE_CSP)
      .header('x-frame-options', 'DENY')
      // Decision B105: the origin alone (never the link's token), so the form's POST carries the page's real Origin
      // (no-referrer made it `null`).
      .header('referrer-policy', 'strict-origin')
      .header('cache-control', 'no-store')
      .send(page(title, body, { script }));
  const para = (text: string) => `<p>${escapeHtml(text)}</p>`;

  const formFor = (token: string, error?: string) => {
    const t = escapeHtml(token);
    const alert = `<p id="error" class="error" role="alert">${error ? escapeHtml(error) : ''}</p>`;
    return `<p>To finish, enter the password you chose when you registered.</p>
<form method="post" action="/verify-email"><input type="hidden" name="token" value="${t}">
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
${alert}<button type="submit">Verify my email</button></form>
<p><a href="/verify-email?token=${t}&amp;choose=1">I did not register, or I don't know this password: choose a new one</a></p>`;
  };
  // Decision B105: signed in, Continue goes on to the web app; otherwise to the sign-in page.
  const verifiedPage = (reply: FastifyReply, done: Confirmed) =>
    html(
      reply,
      200,
      'Email verified',
      `${para(`Your email address is verified${done.membership_token_pending ? '. Your membership token is being issued; it will appear shortly' : ' and your Registered membership is ready'}.`)}${
        done.signed_in
          ? `${para('You are signed in.')}<p><a class="button" href="${escapeHtml(continueTo)}">Continue</a></p>`
          : `<p><a class="button" href="${escapeHtml(signIn)}">Sign in to continue</a></p>`
      }`,
    );
  const refusalPage = (reply: FastifyReply, e: HttpError) => {
    const title =
      e.code === 'VERIFICATION_LINK_EXPIRED'
        ? 'Link expired'
        : e.code === 'VERIFICATION_LINK_USED'
          ? 'Already verified'
          : e.code === 'VERIFICATION_UNAVAILABLE'
            ? 'Try again shortly'
            : e.code === 'CONFLICT' || e.code === 'ACCOUNT_NOT_CREATED'
              ? 'Not possible'
              : 'Link not valid';
    // Decision F23: every dead link says what to do next; a new link can be asked for right here.
    const onward =
      e.code === 'VERIFICATION_LINK_USED'
        ? `<p><a class="button" href="${escapeHtml(signIn)}">Sign in</a></p><p class="muted">Forgot your password? The sign-in page emails you a link to choose a new one.</p>`
        : e.code === 'VERIFICATION_UNAVAILABLE' || e.code === 'CONFLICT' || e.code === 'ACCOUNT_NOT_CREATED'
          ? `<p><a href="${escapeHtml(signIn)}">Go to sign-in</a></p>`
          : `<form id="resend-form"><label for="resend-email">Your email</label><input id="resend-email" name="email" type="email" autocomplete="email" required>
<button type="submit">Send me a new link</button><p id="resend-status" role="status"></p></form>
<p class="muted">A new link works for 24 hours. Already confirmed? <a href="${escapeHtml(signIn)}">Sign in</a>.</p>`;
    const text =
      e.code === 'VERIFICATION_LINK_EXPIRED'
        ? 'This verification link has expired (links last 24 hours).'
        : e.code === 'VERIFICATION_LINK_USED'
          ? 'This link was already used: your email address is verified.'
          : e.code === 'VERIFICATION_UNAVAILABLE'
            ? `We could not verify your email right now (${e.message}).`
            : e.code === 'CONFLICT' || e.code === 'ACCOUNT_NOT_CREATED'
              ? `${e.message[0]!.toUpperCase()}${e.message.slice(1)}.`
              : 'This verification link is not valid or was already used.';
    return html(
      reply,
      e.status,
      title,
      para(text) + onward,
      e.code === 'VERIFICATION_LINK_EXPIRED' || e.code === 'VERIFICATION_LINK_INVALID',
    );
  };

  // Decision S28: the query typed by its schema; a link it refuses is the invalid-link page (400), as before.
  app.get(
    '/verify-email',
    { schema: { ...routeSchema(getVerifyEmailPageDoc), querystring: VerifyPageQuery }, attachValidation: true },
    async (req, reply) => {
      if (req.validationError) return refusalPage(reply, invalidLink());
      const q = req.query;
      try {
        await pendingAccount(ctx, q.token);
      } catch (e) {
        if (e instanceof HttpError) return refusalPage(reply, e);
        throw e;
      }
      return html(reply, 200, 'Confirm your email', q.choose === '1' ? dobStep(q.token) : formFor(q.token));
    },
  );

  /**
   * Decision B87: the owner's steps. The date alone is checked (nothing stored) and answered with the
   * rest of the form; with new_password every answer is checked again and the account starts afresh.
   */
  async function ownerStep(
    req: FastifyRequest,
    reply: FastifyReply,
    token: string,
    newPassword: string | undefined,
    b: Record<string, unknown>,
  ) {
    const answers = formAnswers(b, FORM_FIELD_MAX);
    const dob = answers.dob?.trim();
    const age = dob === undefined ? undefined : ageOn(dob, new Date(ctx.now()));
    try {
      if (newPassword === undefined) {
        await audited(ctx, req, async () => {
          await pendingAccount(ctx, token);
          ageGate(dob ?? '', ctx.now());
        });
        return html(reply, 200, 'Confirm your email', answersStep(token, dob!, age! < 18));
      }
      return verifiedPage(
        reply,
        await confirmVerification(ctx, token, { new_password: newPassword, answers: { plain: answers } }, req, reply),
      );
    } catch (e) {
      if (!(e instanceof HttpError)) throw e;
      if (e.code === 'COPPA_BLOCK') return html(reply, 403, BLOCK_TITLE, blockScreen(), true);
      if (e.code !== 'VALIDATION_ERROR' && e.code !== 'WEAK_PASSWORD' && e.code !== 'NAME_TAKEN')
        return refusalPage(reply, e);
      if (age === undefined)
        return html(reply, e.status, 'Confirm your email', dobStep(token, 'Enter your date of birth.'));
      const error =
        e.code === 'WEAK_PASSWORD'
          ? `Password: ${e.message}.`
          : e.code === 'NAME_TAKEN' || e.message.startsWith('display_name')
            ? `Name other members see: ${e.message.replace(/^display_name: /, '')}.`
            : !answers.name?.trim()
              ? 'Enter your name.'
              : !answers.tos_accepted
                ? 'Accept the terms of membership to continue.'
                : `${e.message[0]!.toUpperCase()}${e.message.slice(1)}.`;
      return html(
        reply,
        e.status,
        'Confirm your email',
        answersStep(token, dob!, age < 18, {
          name: answers.name ?? '',
          display_name: answers.display_name ?? '',
          error,
        }),
      );
    }
  }

  // The page's form (no script): the answer is a page.
  await app.register(async (scope) => {
    scope.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string', bodyLimit: 4096 },
      (_req, body, done) => {
        done(null, Object.fromEntries(new URLSearchParams(body as string)));
      },
    );
    scope.post('/verify-email', { schema: routeSchema(confirmVerificationFormDoc) }, async (req, reply) => {
      const b = (req.body ?? {}) as Record<string, unknown>;
      const token = typeof b.token === 'string' ? b.token : '';
      if (token.length === 0 || token.length > 64) return refusalPage(reply, invalidLink());
      const chosen = typeof b.new_password === 'string' ? b.new_password : undefined;
      if (chosen !== undefined && (chosen.length === 0 || chosen.length > FORM_FIELD_MAX))
        return refusalPage(reply, invalidLink());
      if (chosen !== undefined || (b.password === undefined && b.dob !== undefined))
        return ownerStep(req, reply, token, chosen, b);
      const secret = b.password;
      if (typeof secret !== 'string' || secret.length === 0 || secret.length > FORM_FIELD_MAX)
        return refusalPage(reply, invalidLink());
      try {
        return verifiedPage(reply, await confirmVerification(ctx, token, { password: secret }, req, reply));
      } catch (e) {
        if (!(e instanceof HttpError)) throw e;
        // A wrong password keeps the form, with the reason; a dead link says what to do next.
        if (e.code === 'INVALID_CREDENTIALS' || e.code === 'TOO_MANY_ATTEMPTS')
          return html(reply, e.status, 'Confirm your email', formFor(token, e.message));
        return refusalPage(reply, e);
      }
    });
  });

  // The same confirmation for front ends that render their own page (JSON in, JSON out).
  app.post(
    '/api/auth/verify-email',
    { schema: { ...routeSchema(confirmVerificationDoc), body: ConfirmBody } },
    async (req, reply) => {
      const { token, password, new_password, name_encrypted, dob_encrypted, tos_accepted, display_name } = req.body;
      if ((password === undefined) === (new_password === undefined))
        throw new HttpError(
          400,
          'VALIDATION_ERROR',
          'send exactly one of password (the one chosen at registration) and new_password',
        );
      if (
        password !== undefined &&
        (name_encrypted !== undefined ||
          dob_encrypted !== undefined ||
          tos_accepted !== undefined ||
          display_name !== undefined)
      )
        throw new HttpError(
          400,
          'VALIDATION_ERROR',
          "name_encrypted, dob_encrypted, tos_accepted and display_name go with new_password only: with the registration's password its own answers stand",
        );
      return confirmVerification(
        ctx,
        token,
        password !== undefined
          ? { password }
          : {
              new_password: new_password!,
              answers: { sealed: { name_encrypted, dob_encrypted, tos_accepted, display_name } },
            },
        req,
        reply,
      );
    },
  );
}
