/**
 * The log-in's answers and two-factor pages (docs/accounts.md "Log-in" and "Two-factor
 * log-in"): the code step after the password (`Code`, `Verify`), the section of
 * `/account/security` that sets two-factor up (`Set up two-factor`, `Turn on`, the
 * recovery codes shown once) and turns it off, and REQUIRE_2FA, which sends a person
 * who must use it and has not set it up to `/account/security` before any other page.
 */
import type { FastifyReply, FastifyRequest } from "fastify";
import { prefixOf } from "../../http/client-networks.js";
import type { TypedApp } from "../../http/typed-app.js";
import { accountJson, twoFactorOn } from "../../operator/accounts.js";
import type { LogIn } from "../../operator/log-in.js";
import { logInWithCode } from "../../operator/log-in.js";
import {
  beginSetUp,
  MAX_CODE_LENGTH,
  mustUseTwoFactor,
  pendingSetUp,
  type SetUp,
  turnOffTwoFactor,
  turnOnTwoFactor,
} from "../../operator/two-factor.js";
import { type Html, html, trustedHtml } from "../../page-kit/html.js";
import { card, field, form, hidden } from "../../page-kit/layout.js";
import type { Account } from "../../store/index.js";
import { accountPage, passwordField, personPage } from "./account-views.js";
import {
  type AccountPagesDeps,
  type Body,
  type PageSession,
  type Session,
  send,
  text,
} from "./page-session.js";

const SECURITY = "/account/security";
const TOO_LONG = `A code has 6 digits, a recovery code 16 letters and digits; this is longer than ${MAX_CODE_LENGTH} characters. Nothing was changed.`;

const codeInput = (error?: string) =>
  field({
    name: "code",
    label: "Code",
    error,
    autocomplete: "one-time-code",
    required: true,
    maxlength: MAX_CODE_LENGTH,
    verbatim: true,
  });

/** The code step of a log-in: the pending log-in's token rides in the form. */
function codeStepPage(csrf: string, token: string, via: "totp" | "mail", error?: string): Html {
  const lead =
    via === "mail"
      ? "Many wrong passwords were tried for this account lately: we mailed you a code. Enter it to log in."
      : "Enter the 6-digit code of your authenticator app, or one of your recovery codes.";
  return personPage(
    "Two-factor log-in",
    lead,
    form({
      action: "/login/code",
      csrf,
      fields: html`${hidden("login", token)}\n${codeInput(error)}`,
      button: "Verify",
    }),
  );
}

function retryText(seconds: number): string {
  return seconds >= 120 ? `${Math.ceil(seconds / 60)} minutes` : `${seconds} seconds`;
}

/** What a person whose account is suspended is told once the password was right. */
function suspendedText(supportEmail: string | null): string {
  return `This account is suspended. ${supportEmail ? `Write to ${supportEmail}` : "Contact the operator of this server"} to have it resumed.`;
}

const WRONG_PASSWORD = "The email or password is wrong.";
/** The right password, when the mailed code it needs would pass the mailbox's codes of the hour. */
const MAIL_LIMIT =
  "Many wrong passwords were tried for this account lately, so a log-in needs a mailed code, and this mailbox was sent as many codes as an hour allows: try again in";

/**
 * The answer to a log-in's password (POST /login): the session, the code step, or the
 * log-in page again (`page(error)`) with the refusal, its status and its Retry-After.
 */
export function answerLogIn(
  deps: AccountPagesDeps,
  pages: PageSession,
  request: FastifyRequest,
  reply: FastifyReply,
  outcome: LogIn,
  page: (error: string) => Html,
) {
  const csrf = text((request.body ?? {}) as Body, "csrf");
  switch (outcome.kind) {
    case "done":
      return pages.startSessionReply(request, reply, outcome.account);
    case "code":
      if (outcome.mail)
        pages.mailInBackground(
          request,
          outcome.mail.to,
          "Your mailrisk log-in code",
          `Your log-in code: ${outcome.mail.code}\nIt is valid for 10 minutes. If you did not just log in, change your password.\n`,
        );
      return send(reply, codeStepPage(csrf, outcome.token, outcome.via));
    case "wrong":
      return send(reply, page(WRONG_PASSWORD), 401);
    case "suspended":
      return send(reply, page(suspendedText(deps.config.supportEmail)), 403);
    case "mail_limit":
      void reply.header("retry-after", String(outcome.retryAfterSeconds));
      return send(reply, page(`${MAIL_LIMIT} ${retryText(outcome.retryAfterSeconds)}.`), 429);
    default:
      void reply.header("retry-after", String(outcome.retryAfterSeconds));
      return send(
        reply,
        page(`Too many tries from your network; try again in ${retryText(outcome.retryAfterSeconds)}.`),
        429,
      );
  }
}

/** The two-factor section of /account/security. */
export async function twoFactorSection(deps: AccountPagesDeps, found: Session): Promise<Html> {
  const on = await twoFactorOn(deps.store, found.account);
  const required = mustUseTwoFactor(deps.config.require2fa, found.account);
  const body = on
    ? html`<p>Two-factor is <strong>on</strong>: log-in asks for a code of your authenticator app after the password.</p>
<form method="get" action="${SECURITY}/two-factor/off"><button type="submit">Turn off two-factor</button></form>`
    : html`${required && html`<p class="field-error" role="status">This server requires two-factor log-in for your account: set it up to go on.</p>\n`}<p>Two-factor is off. With it on, log-in asks for a code of an authenticator app after the password.</p>
${form({ action: `${SECURITY}/two-factor`, csrf: found.csrf, fields: undefined, button: "Set up two-factor" })}`;
  return card("two-factor-heading", "Two-factor authentication", body);
}

/** Turning two-factor off: the password and a current code, on a page of its own. */
function offSection(csrf: string, error?: string): Html {
  const fields = html`${passwordField(undefined, "password", "current-password")}\n${codeInput(error)}`;
  return card(
    "two-factor-heading",
    "Two-factor authentication",
    html`<p>To turn two-factor off, enter your password and a current code (or a recovery code).</p>
${form({ action: `${SECURITY}/two-factor/off`, csrf, fields, button: "Turn off" })}`,
  );
}

function setUpSection(setUp: SetUp, csrf: string, error?: string): Html {
  return card(
    "two-factor-heading",
    "Two-factor authentication",
    html`<p>Scan the QR code with an authenticator app, or type the secret into it; then enter the code it shows. The secret waits 15 minutes.</p>
<div class="qr" role="img" aria-label="The two-factor secret as a QR image, for an authenticator app">${trustedHtml(setUp.qrSvg)}</div>
<p>Secret: <code class="secret" data-totp-secret="${setUp.secret}">${setUp.secret}</code></p>
${form({ action: `${SECURITY}/two-factor/on`, csrf, fields: codeInput(error), button: "Turn on" })}`,
  );
}

function recoverySection(codes: string[]): Html {
  const items = codes.map((code) => html`\n<li><code>${code}</code></li>`);
  return card(
    "two-factor-heading",
    "Two-factor authentication",
    html`<p role="status">Two-factor is on.</p>
<p>Keep these recovery codes somewhere safe: each logs you in once without the app, and they are shown only now.</p>
<ol class="recovery" data-recovery-codes="${codes.join(" ")}">${items}\n</ol>
<p><a href="/account">Continue to your account</a></p>`,
  );
}

export function twoFactorPages(app: TypedApp, deps: AccountPagesDeps, pages: PageSession): void {
  const { store, config, clock } = deps;
  const { session, checkCsrf, checkAnonymousCsrf, startSessionReply } = pages;
  const page = (found: Session, body: Html) =>
    accountPage("Security", accountJson(found.account), found.csrf, body);
  /** A secret is made here and never taken from the client: a form that posts one changes nothing. */
  const refusePostedSecret = (body: Body, reply: FastifyReply, found: Session) => {
    if (!Object.keys(body).some((name) => /secret/i.test(name))) return undefined;
    return send(
      reply,
      page(
        found,
        card(
          "two-factor-heading",
          "Two-factor authentication",
          html`<p class="field-error">The secret is made by this server; a posted one is refused. Nothing was changed.</p>`,
        ),
      ),
      400,
    );
  };
  const loggedInPost = async (request: FastifyRequest) => {
    const found = await session(request);
    const body = checkCsrf(request, found?.csrf);
    return { found, body };
  };

  if (config.require2fa !== "off") {
    app.addHook("onRequest", async (request, reply) => {
      const path = request.url.split("?")[0] ?? "";
      if (!/^\/(?:account|console)(?:\/|$)/.test(path) || path.startsWith(SECURITY)) return;
      const found = await session(request);
      if (!found || !(await mustSetUp(found.account))) return;
      return reply.redirect(SECURITY, 303);
    });
  }
  const mustSetUp = async (account: Account) =>
    mustUseTwoFactor(config.require2fa, account) && !(await twoFactorOn(store, account));

  app.post(`${SECURITY}/two-factor`, { schema: { hide: true } }, async (request, reply) => {
    const { found, body } = await loggedInPost(request);
    if (!found) return reply.redirect("/login", 303);
    const refused = refusePostedSecret(body, reply, found);
    if (refused) return refused;
    const setUp = await beginSetUp(store, found.account, clock());
    if (!setUp) return reply.redirect(SECURITY, 303);
    return send(reply, page(found, setUpSection(setUp, found.csrf)));
  });

  app.post(`${SECURITY}/two-factor/on`, { schema: { hide: true } }, async (request, reply) => {
    const { found, body } = await loggedInPost(request);
    if (!found) return reply.redirect("/login", 303);
    const refused = refusePostedSecret(body, reply, found);
    if (refused) return refused;
    const code = text(body, "code");
    const now = clock();
    const again = async (error: string, status: number) => {
      const setUp = await pendingSetUp(store, found.account, now);
      if (!setUp) return reply.redirect(SECURITY, 303);
      return send(reply, page(found, setUpSection(setUp, found.csrf, error)), status);
    };
    if (code.length > MAX_CODE_LENGTH) return again(TOO_LONG, 400);
    const actor = { kind: "account" as const, email: found.account.email };
    const turned = await turnOnTwoFactor(store, found.account, code, now, actor);
    if (turned.kind === "wrong_code")
      return again("This code is wrong; enter the code the app shows now.", 400);
    if (turned.kind === "no_set_up") return reply.redirect(SECURITY, 303);
    return send(reply, page(found, recoverySection(turned.recoveryCodes)));
  });

  app.get(`${SECURITY}/two-factor/off`, { schema: { hide: true } }, async (request, reply) => {
    const found = await pages.loggedIn(request, reply);
    if (!found) return reply;
    if (!(await twoFactorOn(store, found.account))) return reply.redirect(SECURITY, 303);
    return send(reply, page(found, offSection(found.csrf)));
  });

  app.post(`${SECURITY}/two-factor/off`, { schema: { hide: true } }, async (request, reply) => {
    const { found, body } = await loggedInPost(request);
    if (!found) return reply.redirect("/login", 303);
    const code = text(body, "code");
    const password = text(body, "password");
    const offForm = (error: string) => offSection(found.csrf, error);
    if (code.length > MAX_CODE_LENGTH || password.length > 1000)
      return send(reply, page(found, offForm(TOO_LONG)), 400);
    const actor = { kind: "account" as const, email: found.account.email };
    const input = { password, code, network: prefixOf(request.ip), now: clock() };
    const off = await turnOffTwoFactor(store, found.account, input, actor);
    if (off.kind === "wait") {
      void reply.header("retry-after", String(off.retryAfterSeconds));
      return send(
        reply,
        page(found, offForm(`Too many tries; try again in ${retryText(off.retryAfterSeconds)}.`)),
        429,
      );
    }
    if (off.kind === "wrong_password")
      return send(reply, page(found, offForm("The password is wrong.")), 400);
    if (off.kind === "wrong_code") return send(reply, page(found, offForm("This code is wrong.")), 400);
    return reply.redirect(SECURITY, 303);
  });

  app.post("/login/code", { schema: { hide: true } }, async (request, reply) => {
    const body = checkAnonymousCsrf(request);
    const csrf = text(body, "csrf");
    const token = text(body, "login");
    const step = await logInWithCode(store, {
      token,
      code: text(body, "code"),
      network: prefixOf(request.ip),
      now: clock(),
    });
    const restart = (lead: string, status: number) =>
      send(reply, personPage("Log in again", lead, html`<p><a href="/login">Log in</a></p>`), status);
    switch (step.kind) {
      case "done":
        return startSessionReply(request, reply, step.account);
      case "malformed":
        return send(reply, codeStepPage(csrf, token.slice(0, MAX_CODE_LENGTH), "totp", TOO_LONG), 400);
      case "wrong":
        return send(reply, codeStepPage(csrf, token, step.via, "This code is wrong."), 401);
      case "gone":
        return restart(
          "This log-in has ended (too many codes, or too long): enter your password again.",
          400,
        );
      case "suspended":
        return restart(suspendedText(config.supportEmail), 403);
      default:
        void reply.header("retry-after", String(step.retryAfterSeconds));
        return send(
          reply,
          codeStepPage(
            csrf,
            token,
            "totp",
            `Too many tries; try again in ${retryText(step.retryAfterSeconds)}.`,
          ),
          429,
        );
    }
  });
}
