/**
 * The pages for people (docs/accounts.md): sign-up, confirmation, log-in, log-out, reset,
 * the invitation link, and the account console. Registered inside the pages plugin, so
 * its CSP, page limiter and HTML error pages hold here too; only when SIGNUP is not `off`.
 *
 * Every POST carries a CSRF token and a same-origin `Origin` (else 403 `csrf_failed`,
 * nothing changed): a logged-in form the session's token, the others the token of the
 * `mailrisk_csrf` cookie (double submit).
 */
import type { FastifyReply, FastifyRequest } from "fastify";
import type { Config } from "../../config.js";
import { parseInput } from "../../core/input.js";
import {
  accountJson,
  accountKeys,
  accountKeyUsage,
  accountReports,
  createAccountKey,
  revokeAccountKey,
  rollAccountKey,
  setPasswordByLink,
} from "../../operator/accounts.js";
import { type KeyWithUsage, keyUsage } from "../../operator/key-usage.js";
import { refusalOf } from "../../operator/refusal.js";
import {
  endSession,
  hashPassword,
  issueCode,
  linkTicket,
  logIn,
  newFormToken,
  normaliseEmail,
  passwordProblem,
  redeemCode,
  sessionOf,
  startSession,
} from "../../service/account-access.js";
import type { Mailer } from "../../service/mailer.js";
import type { Account, Store } from "../../store/types.js";
import { prefixOf } from "../client-networks.js";
import { HttpProblem } from "../http-problem.js";
import { NOT_KEPT } from "../pages/cache-control.js";
import { escapeHtml, HTML_CONTENT_TYPE } from "../pages/layout.js";
import { checkParsed, type RunCheckDeps } from "../run-check.js";
import type { TypedApp } from "../typed-app.js";
import {
  codeField,
  consolePage,
  createdSecret,
  createKeyForm,
  emailField,
  form,
  keysTable,
  passwordField,
  personPage,
  quotaBar,
  reportsTable,
  section,
} from "./account-views.js";
import { usageChart } from "./usage-chart.js";

const SESSION_COOKIE = "mailrisk_session";
const CSRF_COOKIE = "mailrisk_csrf";
const WRONG_CODE = "This code is wrong or expired.";
const linkGone = () => new HttpProblem("not_found", "This link was used already or has expired.");

/** A refusal of the account's own keys (another account's, unknown, revoked) as the 404 page; anything else as it is. */
function noSuchKey(error: unknown): never {
  throw refusalOf(error) ? new HttpProblem("not_found", "There is no such key in your account.") : error;
}

/** The same answer for a known and an unknown email. */
const CODE_SENT = "If the address can get a code, it is on its way: enter it below within 15 minutes.";

export interface AccountPagesDeps extends RunCheckDeps {
  store: Pick<Store, "accounts" | "keys" | "usage" | "plans" | "reports">;
  config: Pick<Config, "signup" | "signupPlan" | "sessionTtlSeconds" | "publicUrl">;
  mailer: Mailer | undefined;
  clock: () => Date;
}

type Body = Record<string, unknown>;
type Session = { account: Account; csrf: string; token: string };

function text(body: Body, name: string): string {
  const value = body[name];
  return typeof value === "string" ? value : "";
}

function cookies(request: FastifyRequest): Map<string, string> {
  const found = new Map<string, string>();
  for (const part of (request.headers.cookie ?? "").split(";")) {
    const at = part.indexOf("=");
    if (at > 0) found.set(part.slice(0, at).trim(), decodeURIComponent(part.slice(at + 1).trim()));
  }
  return found;
}

function send(reply: FastifyReply, html: string, status = 200) {
  return reply
    .code(status)
    .headers({ "cache-control": NOT_KEPT, "referrer-policy": "same-origin" })
    .type(HTML_CONTENT_TYPE)
    .send(html);
}

export function accountPages(app: TypedApp, deps: AccountPagesDeps): void {
  const { store, config, clock } = deps;
  const secure = config.publicUrl?.startsWith("https:") === true ? "; Secure" : "";
  const idleMs = config.sessionTtlSeconds * 1000;
  const cookie = (name: string, value: string, maxAge: number) =>
    `${name}=${value}; HttpOnly; SameSite=Lax; Path=/; Max-Age=${maxAge}${secure}`;

  /** The origin forms must come from: PUBLIC_URL's, else this request's own. */
  const ownOrigin = (request: FastifyRequest) =>
    config.publicUrl ? new URL(config.publicUrl).origin : `${request.protocol}://${request.host}`;

  const session = async (request: FastifyRequest): Promise<Session | undefined> => {
    const token = cookies(request).get(SESSION_COOKIE);
    if (!token) return undefined;
    const found = await sessionOf(store, token, clock(), idleMs);
    return found && { ...found, token };
  };

  /** The logged-in session, or a redirect to /login. */
  const loggedIn = async (request: FastifyRequest, reply: FastifyReply) => {
    const found = await session(request);
    if (!found) void reply.redirect("/login", 303);
    return found;
  };

  /** The token of the anonymous forms: the cookie's, or a new one set now. */
  const anonymousCsrf = (request: FastifyRequest, reply: FastifyReply): string => {
    const known = cookies(request).get(CSRF_COOKIE);
    if (known && /^[0-9A-Za-z]{32}$/.test(known)) return known;
    const token = newFormToken();
    void reply.header("set-cookie", cookie(CSRF_COOKIE, token, 86_400));
    return token;
  };

  /** 403 `csrf_failed` unless the POST is same-origin and carries the expected token. */
  const checkCsrf = (request: FastifyRequest, expected: string | undefined): Body => {
    const body = (request.body ?? {}) as Body;
    const sameOrigin = request.headers.origin === ownOrigin(request);
    if (!sameOrigin || !expected || text(body, "csrf") !== expected) {
      throw new HttpProblem(
        "csrf_failed",
        "This form was not sent from this site's own page (csrf_failed); nothing was changed. Reload the page and try again.",
      );
    }
    return body;
  };

  /** Sends a code without waiting: the answer takes the same time whether a mail goes out or not. */
  const mailInBackground = (request: FastifyRequest, to: string, subject: string, body: string) => {
    deps.mailer
      ?.send(to, subject, body)
      .catch((error: unknown) => request.log.warn({ err: error }, "could not send a mail"));
  };

  const startSessionReply = async (reply: FastifyReply, account: Account) => {
    const { token } = await startSession(store, account.id, clock());
    return reply
      .header("set-cookie", cookie(SESSION_COOKIE, token, config.sessionTtlSeconds))
      .redirect("/account", 303);
  };

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
    const body = checkCsrf(request, cookies(request).get(CSRF_COOKIE));
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
    const body = checkCsrf(request, cookies(request).get(CSRF_COOKIE));
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
    const body = checkCsrf(request, cookies(request).get(CSRF_COOKIE));
    const email = text(body, "email");
    const account = await logIn(store, {
      email,
      password: text(body, "password"),
      network: prefixOf(request.ip),
      now: clock(),
    });
    if (!account) {
      const error =
        "The email or password is wrong, or the account is locked for a while after too many tries.";
      return send(reply, loginPage(text(body, "csrf"), email, error), 401);
    }
    return startSessionReply(reply, account);
  });
  app.post("/logout", { schema: { hide: true } }, async (request, reply) => {
    const found = await session(request);
    checkCsrf(request, found?.csrf);
    if (found) await endSession(store, found.token);
    return reply.header("set-cookie", cookie(SESSION_COOKIE, "", 0)).redirect("/login", 303);
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
    const body = checkCsrf(request, cookies(request).get(CSRF_COOKIE));
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
      const body = checkCsrf(request, cookies(request).get(CSRF_COOKIE));
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

  // The console.
  const keysPage = async (found: Session, extra = "", error?: string) =>
    consolePage(
      "Keys",
      accountJson(found.account),
      found.csrf,
      `${extra}${section("keys-heading", "Your keys", keysTable(await accountKeys(store, found.account), found.csrf))}
${section("create-heading", "New key", createKeyForm(found.csrf, error))}`,
    );

  /** The chart of `keyIds` over the current and the previous period of the account's count. */
  const chart = async (id: string, heading: string, keyIds: string[], usage: KeyWithUsage["usage"]) => {
    const current = new Date(usage.period_start);
    const reset = new Date(usage.reset_at);
    const from = new Date(2 * current.getTime() - reset.getTime());
    return usageChart(id, heading, await store.usage.dailyUsage(keyIds, from), from, current, reset);
  };

  app.get("/account", { schema: { hide: true } }, async (request, reply) => {
    const found = await loggedIn(request, reply);
    if (!found) return reply;
    const keys = await store.keys.accountKeys(found.account.id);
    const [first] = keys;
    const usage = first && (await keyUsage(store, first.id, clock())).usage;
    const plan = section(
      "plan-heading",
      "Plan and quota",
      `<p>Plan <strong>${escapeHtml(found.account.plan)}</strong>: all your keys draw from one count.</p>\n${usage ? quotaBar(usage) : ""}`,
    );
    const perKey = await Promise.all(
      keys.map(
        async (key) =>
          usage && (await chart(`chart-${key.id}`, `Key ${key.name ?? key.id}`, [key.id], usage)),
      ),
    );
    const charts =
      usage &&
      section(
        "chart-heading",
        "Requests per day",
        `${await chart(
          "chart-all",
          "All keys",
          keys.map((key) => key.id),
          usage,
        )}\n${perKey.join("\n")}`,
      );
    return send(
      reply,
      consolePage("Overview", accountJson(found.account), found.csrf, `${plan}\n${charts ?? ""}`),
    );
  });
  app.get("/account/keys", { schema: { hide: true } }, async (request, reply) => {
    const found = await loggedIn(request, reply);
    if (!found) return reply;
    return send(reply, await keysPage(found));
  });
  app.post("/account/keys", { schema: { hide: true } }, async (request, reply) => {
    const found = await session(request);
    const body = checkCsrf(request, found?.csrf);
    if (!found) return reply.redirect("/login", 303);
    const publishable = text(body, "kind") === "publishable";
    const origins = publishable
      ? text(body, "origins")
          .split(/[\s,]+/)
          .filter(Boolean)
      : [];
    const name = text(body, "name").trim() || null;
    try {
      const created = await createAccountKey(store, found.account, { name, publishable, origins }, clock());
      return send(reply, await keysPage(found, createdSecret(created)), 201);
    } catch (error) {
      const refusal = refusalOf(error);
      if (!refusal) throw error;
      return send(reply, await keysPage(found, "", refusal.message), refusal.badInput ? 400 : 409);
    }
  });
  app.get<{ Params: { id: string } }>(
    "/account/keys/:id",
    { schema: { hide: true } },
    async (request, reply) => {
      const found = await loggedIn(request, reply);
      if (!found) return reply;
      const key = await accountKeyUsage(store, found.account, request.params.id, clock()).catch(noSuchKey);
      const heading = `Key ${key.name ?? key.id}`;
      const keyChart = await chart("chart-key", heading, [key.id], key.usage);
      const body = section(
        "usage-heading",
        heading,
        `<p>Prefix <code>${escapeHtml(key.prefix)}…</code></p>\n${quotaBar(key.usage)}\n${keyChart}`,
      );
      return send(reply, consolePage("Key", accountJson(found.account), found.csrf, body));
    },
  );
  app.post<{ Params: { id: string } }>(
    "/account/keys/:id/roll",
    { schema: { hide: true } },
    async (request, reply) => {
      const found = await session(request);
      checkCsrf(request, found?.csrf);
      if (!found) return reply.redirect("/login", 303);
      const rolled = await rollAccountKey(store, found.account, request.params.id, clock()).catch(noSuchKey);
      const note = '<p class="card" role="status">The old key keeps working for 24 hours.</p>';
      return send(reply, await keysPage(found, `${createdSecret(rolled)}\n${note}`), 201);
    },
  );
  app.post<{ Params: { id: string } }>(
    "/account/keys/:id/revoke",
    { schema: { hide: true } },
    async (request, reply) => {
      const found = await session(request);
      checkCsrf(request, found?.csrf);
      if (!found) return reply.redirect("/login", 303);
      await revokeAccountKey(store, found.account, request.params.id, clock()).catch(noSuchKey);
      return reply.redirect("/account/keys", 303);
    },
  );

  app.get("/account/reports", { schema: { hide: true } }, async (request, reply) => {
    const found = await loggedIn(request, reply);
    if (!found) return reply;
    const reports = await accountReports(store, found.account);
    const body = section("reports-heading", "Reports of wrong answers", reportsTable(reports));
    return send(reply, consolePage("Reports", accountJson(found.account), found.csrf, body));
  });

  const securityPage = (found: Session, error?: string, done = "") =>
    consolePage(
      "Security",
      accountJson(found.account),
      found.csrf,
      `${done}${section(
        "password-heading",
        "Change password",
        form(
          "/account/security",
          found.csrf,
          `${passwordField(undefined, "current", "current-password")}\n${passwordField(error, "password", "new-password").replace(">Password<", ">New password<")}`,
          "Change password",
        ),
      )}
${section("everywhere-heading", "Log out everywhere", form("/account/security/logout-everywhere", found.csrf, "", "Log out everywhere"))}`,
    );
  app.get("/account/security", { schema: { hide: true } }, async (request, reply) => {
    const found = await loggedIn(request, reply);
    if (!found) return reply;
    return send(reply, securityPage(found));
  });
  app.post("/account/security", { schema: { hide: true } }, async (request, reply) => {
    const found = await session(request);
    const body = checkCsrf(request, found?.csrf);
    if (!found) return reply.redirect("/login", 303);
    const password = text(body, "password");
    const weak = passwordProblem(password);
    const network = prefixOf(request.ip);
    const now = clock();
    const confirmed = await logIn(store, {
      email: found.account.email,
      password: text(body, "current"),
      network,
      now,
    });
    if (!confirmed) return send(reply, securityPage(found, "Your current password is wrong."), 400);
    if (weak) return send(reply, securityPage(found, weak), 400);
    await store.accounts.setPassword(found.account.id, await hashPassword(password));
    return send(
      reply,
      securityPage(found, undefined, '<p class="card" role="status">Your password is changed.</p>'),
    );
  });
  app.post("/account/security/logout-everywhere", { schema: { hide: true } }, async (request, reply) => {
    const found = await session(request);
    checkCsrf(request, found?.csrf);
    if (found) await store.accounts.deleteSessions(found.account.id);
    return reply.header("set-cookie", cookie(SESSION_COOKIE, "", 0)).redirect("/login", 303);
  });
}
