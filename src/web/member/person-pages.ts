import { setTimeout } from "node:timers/promises";
import { parseInput } from "../../core/input.js";
import { prefixOf } from "../../http/client-networks.js";
import { HttpProblem } from "../../http/http-problem.js";
import { checkParsed } from "../../http/run-check.js";
import type { TypedApp } from "../../http/typed-app.js";
import { logOut } from "../../operator/account-sessions.js";
import { logInWithPassword } from "../../operator/log-in.js";
import { linkEmail, requestResetCode, resetPasswordByCode, useLink } from "../../operator/passwords.js";
import { confirmSignup, signupPassword, startSignup } from "../../operator/signup.js";
import { html } from "../../page-kit/html.js";
import { form } from "../../page-kit/layout.js";
import { normaliseEmail } from "../../service/accounts/account-access.js";
import { codeField, emailField, passwordField, personPage } from "./account-views.js";
import { type AccountPagesDeps, type PageSession, send, text } from "./page-session.js";
import { answerLogIn } from "./two-factor-pages.js";

/** The least time a sign-up that passed its checks takes to answer (its hash and its mail's work fit in it). */
const SIGNUP_FLOOR_MS = 60;
const WRONG_CODE = "This code is wrong or expired.";
const MALFORMED_CODE = "A code is the 8 digits of the mail we sent; nothing was changed.";
const OTHER_BROWSER = "This code is for a sign-up started in another browser: sign up again here.";
const MAILBOX_TAKEN = "This mailbox has an account already: log in, or reset its password.";
/** Under the sign-up form: the other ways in. */
const ACCOUNT_LINKS = html`<p class="hint">Have an account? <a href="/login">Log in</a> · <a href="/reset">Forgot your password?</a></p>`;
const linkGone = () => new HttpProblem("not_found", "This link was used already or has expired.");
/** The same answer for a known and an unknown email. */
const CODE_SENT = "If the address can get a code, it is on its way: enter it below within 15 minutes.";

export function personPages(app: TypedApp, deps: AccountPagesDeps, pages: PageSession): void {
  const { store, config, clock } = deps;
  const {
    session,
    anonymousCsrf,
    checkCsrf,
    checkAnonymousCsrf,
    browserOf,
    mailInBackground,
    inBackground,
    sessionReply,
    endSessionReply,
  } = pages;
  const mailer =
    (request: Parameters<typeof mailInBackground>[0]) => (to: string, subject: string, body: string) =>
      mailInBackground(request, to, subject, body);
  // Sign-up (SIGNUP=open): the address checked by the engine first, then a mailed code.
  const signupPage = (csrf: string, email = "", emailError?: string, passwordError?: string) =>
    personPage(
      "Sign up",
      "Create an account: we mail you a code to confirm the address.",
      html`${form({
        action: "/signup",
        csrf,
        fields: html`${emailField(email, emailError)}\n${passwordField(passwordError, "password", "new-password")}`,
        button: "Sign up",
      })}\n${ACCOUNT_LINKS}`,
    );
  const confirmPage = (csrf: string, email = "", codeError?: string, lead = CODE_SENT) =>
    personPage(
      "Confirm your address",
      lead,
      form({
        action: "/signup/confirm",
        csrf,
        fields: html`${emailField(email)}\n${codeField(codeError)}`,
        button: "Confirm",
      }),
    );

  const open = () => {
    if (config.signup !== "open")
      throw new HttpProblem(
        "signup_closed",
        "Sign-up is closed on this server (signup_closed); ask its operator for an invitation.",
      );
  };

  app.get("/signup", { schema: { hide: true } }, async (request, reply) => {
    open();
    return send(reply, signupPage(anonymousCsrf(request, reply)));
  });
  app.post("/signup", { schema: { hide: true } }, async (request, reply) => {
    const answerFrom = Date.now() + SIGNUP_FLOOR_MS;
    open();
    const body = checkAnonymousCsrf(request);
    const csrf = text(body, "csrf");
    const raw = text(body, "email");
    const email = normaliseEmail(raw);
    const password = text(body, "password");
    if (!email)
      return send(reply, signupPage(csrf, raw, "Enter an email address such as you@example.com."), 400);
    const chosen = await signupPassword(password);
    if (chosen.kind === "weak") return send(reply, signupPage(csrf, raw, undefined, chosen.problem), 400);
    const parsed = parseInput(email, deps);
    if (!parsed.ok) return send(reply, signupPage(csrf, raw, parsed.problem.detail), 400);
    const { record } = await checkParsed(deps, request, parsed.input, {
      budget: "pages",
      client: prefixOf(request.ip),
    });
    if (record.block) {
      const refused = `This address cannot sign up: ${record.text} (${record.reason}).`;
      return send(reply, signupPage(csrf, raw, refused), 422);
    }
    // A known mailbox gets no code and the same answer; the rest happens after the answer,
    // so that it takes the same time either way.
    const signup = {
      email,
      passwordHash: chosen.passwordHash,
      plan: config.signupPlan,
      browser: browserOf(request),
    };
    inBackground(request, startSignup(store, { ...signup, now: clock() }, mailer(request)));
    // The answer waits for a fixed floor, during which that work runs: a known and an unknown
    // mailbox answer alike, and neither's work spills into the time of the next request.
    await setTimeout(Math.max(0, answerFrom - Date.now()));
    return send(reply, confirmPage(csrf, email));
  });
  app.get("/signup/confirm", { schema: { hide: true } }, async (request, reply) => {
    open();
    return send(
      reply,
      confirmPage(anonymousCsrf(request, reply), "", undefined, "Enter the code we mailed you."),
    );
  });
  app.post("/signup/confirm", { schema: { hide: true } }, async (request, reply) => {
    open();
    const body = checkAnonymousCsrf(request);
    const email = normaliseEmail(text(body, "email")) ?? "";
    const csrf = text(body, "csrf");
    const confirmed = await confirmSignup(store, {
      email,
      code: text(body, "code"),
      browser: browserOf(request),
      now: clock(),
    });
    switch (confirmed.kind) {
      case "confirmed":
        return sessionReply(request, reply, confirmed.session, "/account", confirmed.firstKey);
      case "malformed_code":
        return send(reply, confirmPage(csrf, email, MALFORMED_CODE), 400);
      case "other_browser":
        return send(reply, confirmPage(csrf, email, OTHER_BROWSER), 400);
      case "exists":
        return send(reply, confirmPage(csrf, email, MAILBOX_TAKEN), 409);
      case "wrong_code":
        return send(reply, confirmPage(csrf, email, WRONG_CODE), 400);
    }
  });

  // Log-in and log-out.
  const loginPage = (csrf: string, email = "", error?: string) =>
    personPage(
      "Log in",
      "Log in to your mailrisk account.",
      html`${form({ action: "/login", csrf, fields: html`${emailField(email)}\n${passwordField(error)}`, button: "Log in" })}
${config.signup === "open" && html`<p class="hint">No account yet? <a href="/signup">Sign up</a></p>\n`}<p class="hint"><a href="/reset">Forgot your password?</a></p>`,
    );
  // A person already logged in goes straight on: public pages link here for everyone alike.
  app.get("/login", { schema: { hide: true } }, async (request, reply) =>
    (await session(request))
      ? reply.redirect("/account", 303)
      : send(reply, loginPage(anonymousCsrf(request, reply))),
  );
  app.post("/login", { schema: { hide: true } }, async (request, reply) => {
    const body = checkAnonymousCsrf(request);
    const email = text(body, "email");
    // The throttle, the second step and the suspended account's message: two-factor-pages.ts.
    const outcome = await logInWithPassword(store, {
      email,
      password: text(body, "password"),
      network: prefixOf(request.ip),
      now: clock(),
      canMail: deps.mailer !== undefined,
    });
    return answerLogIn(deps, pages, request, reply, outcome, (error) =>
      loginPage(text(body, "csrf"), email, error),
    );
  });
  app.post("/logout", { schema: { hide: true } }, async (request, reply) => {
    const found = await session(request);
    checkCsrf(request, found?.csrf);
    if (found) await logOut(store, found.token);
    return endSessionReply(request, reply);
  });

  // Password reset by a mailed code, and the one-time link of an invitation or a reset.
  const resetPage = (csrf: string, email = "", codeError?: string, sent = false) =>
    personPage(
      "Reset your password",
      sent ? CODE_SENT : "We mail you a code; enter it here with a new password.",
      sent
        ? form({
            action: "/reset",
            csrf,
            fields: html`${emailField(email)}\n${codeField(codeError)}\n${passwordField(undefined, "password", "new-password")}`,
            button: "Set password",
          })
        : form({ action: "/reset", csrf, fields: emailField(email), button: "Send code" }),
    );
  app.get("/reset", { schema: { hide: true } }, async (request, reply) =>
    send(reply, resetPage(anonymousCsrf(request, reply))),
  );
  app.post("/reset", { schema: { hide: true } }, async (request, reply) => {
    const body = checkAnonymousCsrf(request);
    const csrf = text(body, "csrf");
    const email = normaliseEmail(text(body, "email")) ?? "";
    const now = clock();
    if (text(body, "code") === "") {
      // Known or not, the answer is the same and goes first: the look-up and the mail come after.
      if (email) inBackground(request, requestResetCode(store, email, now, mailer(request)));
      return send(reply, resetPage(csrf, email, undefined, true));
    }
    const reset = await resetPasswordByCode(store, {
      email,
      code: text(body, "code"),
      password: text(body, "password"),
      now,
    });
    switch (reset.kind) {
      case "set":
        // With two-factor on, the reset opens no session: the person logs in with a code.
        return reset.session ? sessionReply(request, reply, reset.session) : reply.redirect("/login", 303);
      case "weak":
        return send(reply, resetPage(csrf, email, reset.problem, true), 400);
      case "malformed_code":
        return send(reply, resetPage(csrf, email, MALFORMED_CODE, true), 400);
      case "wrong_code":
        return send(reply, resetPage(csrf, email, WRONG_CODE, true), 400);
    }
  });

  const invitePage = (token: string, csrf: string, email: string, error?: string) =>
    personPage(
      "Set your password",
      `Choose the password of ${email}.`,
      form({
        action: `/invite/${encodeURIComponent(token)}`,
        csrf,
        fields: passwordField(error, "password", "new-password"),
        button: "Set password",
      }),
    );
  app.get<{ Params: { token: string } }>(
    "/invite/:token",
    { schema: { hide: true } },
    async (request, reply) => {
      const email = await linkEmail(store, request.params.token, clock());
      if (email === undefined) throw linkGone();
      return send(reply, invitePage(request.params.token, anonymousCsrf(request, reply), email));
    },
  );
  app.post<{ Params: { token: string } }>(
    "/invite/:token",
    { schema: { hide: true } },
    async (request, reply) => {
      const body = checkAnonymousCsrf(request);
      const { token } = request.params;
      const used = await useLink(store, { token, password: text(body, "password"), now: clock() });
      switch (used.kind) {
        case "set":
          if (!used.session) return reply.redirect("/login", 303);
          return sessionReply(request, reply, used.session, "/account", used.firstKey);
        case "weak":
          return send(reply, invitePage(token, text(body, "csrf"), used.email, used.problem), 400);
        case "exists":
          throw new HttpProblem("account_exists", MAILBOX_TAKEN);
        case "gone":
          throw linkGone();
      }
    },
  );
}
