import { parseInput } from "../../core/input.js";
import { setPasswordByLink } from "../../operator/accounts.js";
import { logInWithPassword } from "../../operator/log-in.js";
import { refusalOf } from "../../operator/refusal.js";
import {
  endSession,
  hashPassword,
  issueCode,
  linkTicket,
  normaliseEmail,
  passwordProblem,
  redeemCode,
} from "../../service/account-access.js";
import { prefixOf } from "../client-networks.js";
import { HttpProblem } from "../http-problem.js";
import { checkParsed } from "../run-check.js";
import type { TypedApp } from "../typed-app.js";
import { codeField, emailField, form, passwordField, personPage } from "./account-views.js";
import { type AccountPagesDeps, type PageSession, send, text } from "./page-session.js";
import { answerLogIn } from "./two-factor-pages.js";

const WRONG_CODE = "This code is wrong or expired.";
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
    mailInBackground,
    startSessionReply,
    endSessionReply,
  } = pages;
  // Sign-up (SIGNUP=open): the address checked by the engine first, then a mailed code.
  const signupPage = (csrf: string, email = "", emailError?: string, passwordError?: string) =>
    personPage(
      "Sign up",
      "Create an account: we mail you a code to confirm the address.",
      form(
        "/signup",
        csrf,
        `${emailField(email, emailError)}\n${passwordField(passwordError, "password", "new-password")}`,
        "Sign up",
      ),
    );
  const confirmPage = (csrf: string, email = "", codeError?: string, lead = CODE_SENT) =>
    personPage(
      "Confirm your address",
      lead,
      form("/signup/confirm", csrf, `${emailField(email)}\n${codeField(codeError)}`, "Confirm"),
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
    open();
    const body = checkAnonymousCsrf(request);
    const csrf = text(body, "csrf");
    const raw = text(body, "email");
    const email = normaliseEmail(raw);
    const password = text(body, "password");
    if (!email)
      return send(reply, signupPage(csrf, raw, "Enter an email address such as you@example.com."), 400);
    const weak = passwordProblem(password);
    if (weak) return send(reply, signupPage(csrf, raw, undefined, weak), 400);
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
    const now = clock();
    // An address with an account gets no code, and the same answer, in about the same time.
    const passwordHash = await hashPassword(password);
    if (!(await store.accounts.findLogin(email))) {
      const code = await issueCode(store, "signup", email, { passwordHash, plan: config.signupPlan }, now);
      mailInBackground(
        request,
        email,
        "Your mailrisk code",
        `Your confirmation code: ${code}\nIt is valid for 15 minutes.\n`,
      );
    }
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
    const ticket = await redeemCode(store, "signup", email, text(body, "code"), clock());
    const { passwordHash = null, plan = config.signupPlan } = ticket?.payload ?? {};
    if (!ticket || passwordHash === null)
      return send(reply, confirmPage(text(body, "csrf"), email, WRONG_CODE), 400);
    const made = await store.accounts
      .createAccount({ email, passwordHash, role: "member", plan, now: clock() })
      .catch((error: unknown) => {
        if (refusalOf(error)?.code === "account_exists") return undefined;
        throw error;
      });
    if (!made) return send(reply, confirmPage(text(body, "csrf"), email, WRONG_CODE), 400);
    return startSessionReply(reply, made.account);
  });

  // Log-in and log-out.
  const loginPage = (csrf: string, email = "", error?: string) =>
    personPage(
      "Log in",
      "Log in to your mailrisk account.",
      form(
        "/login",
        csrf,
        `${emailField(email)}\n${passwordField(error)}`,
        "Log in",
        '\n<p class="hint"><a href="/reset">Forgot your password?</a></p>',
      ),
    );
  app.get("/login", { schema: { hide: true } }, async (request, reply) =>
    send(reply, loginPage(anonymousCsrf(request, reply))),
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
    if (found) await endSession(store, found.token);
    return endSessionReply(reply);
  });

  // Password reset by a mailed code, and the one-time link of an invitation or a reset.
  const resetPage = (csrf: string, email = "", codeError?: string, sent = false) =>
    personPage(
      "Reset your password",
      sent ? CODE_SENT : "We mail you a code; enter it here with a new password.",
      sent
        ? form(
            "/reset",
            csrf,
            `${emailField(email)}\n${codeField(codeError)}\n${passwordField(undefined, "password", "new-password")}`,
            "Set password",
          )
        : form("/reset", csrf, emailField(email), "Send code"),
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
      const account = email ? await store.accounts.findLogin(email) : undefined;
      if (account) {
        const code = await issueCode(store, "reset", email, {}, now);
        mailInBackground(
          request,
          email,
          "Your mailrisk reset code",
          `Your code: ${code}\nIt is valid for 15 minutes.\n`,
        );
      }
      return send(reply, resetPage(csrf, email, undefined, true));
    }
    const password = text(body, "password");
    const weak = passwordProblem(password);
    if (weak) return send(reply, resetPage(csrf, email, weak, true), 400);
    const ticket = await redeemCode(store, "reset", email, text(body, "code"), now);
    const account = ticket && (await store.accounts.findLogin(email));
    if (!account) return send(reply, resetPage(csrf, email, WRONG_CODE, true), 400);
    await store.accounts.setPassword(account.id, await hashPassword(password));
    await store.accounts.deleteSessions(account.id);
    return reply.redirect("/login", 303);
  });

  const invitePage = (token: string, csrf: string, email: string, error?: string) =>
    personPage(
      "Set your password",
      `Choose the password of ${email}.`,
      form(
        `/invite/${encodeURIComponent(token)}`,
        csrf,
        passwordField(error, "password", "new-password"),
        "Set password",
      ),
    );
  app.get<{ Params: { token: string } }>(
    "/invite/:token",
    { schema: { hide: true } },
    async (request, reply) => {
      const found = await linkTicket(store, request.params.token, clock());
      if (!found) throw linkGone();
      return send(reply, invitePage(request.params.token, anonymousCsrf(request, reply), found.ticket.email));
    },
  );
  app.post<{ Params: { token: string } }>(
    "/invite/:token",
    { schema: { hide: true } },
    async (request, reply) => {
      const body = checkAnonymousCsrf(request);
      const password = text(body, "password");
      const weak = passwordProblem(password);
      const found = await linkTicket(store, request.params.token, clock());
      if (!found) throw linkGone();
      if (weak)
        return send(
          reply,
          invitePage(request.params.token, text(body, "csrf"), found.ticket.email, weak),
          400,
        );
      const account = await setPasswordByLink(store, request.params.token, password, clock());
      if (!account) throw linkGone();
      return startSessionReply(reply, account);
    },
  );
}
