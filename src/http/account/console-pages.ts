import {
  accountJson,
  accountKeys,
  accountKeyUsage,
  accountReports,
  createAccountKey,
  revokeAccountKey,
  rollAccountKey,
} from "../../operator/accounts.js";
import { type KeyWithUsage, keyUsage } from "../../operator/key-usage.js";
import { passwordTry, trierOf, trySucceeded } from "../../operator/login-throttle.js";
import { refusalOf } from "../../operator/refusal.js";
import { hashPassword, passwordProblem } from "../../service/account-access.js";
import { prefixOf } from "../client-networks.js";
import { HttpProblem } from "../http-problem.js";
import { escapeHtml } from "../pages/layout.js";
import type { TypedApp } from "../typed-app.js";
import {
  consolePage,
  createdSecret,
  createKeyForm,
  form,
  keysTable,
  passwordField,
  quotaBar,
  reportsTable,
  section,
} from "./account-views.js";
import { type AccountPagesDeps, type PageSession, type Session, send, text } from "./page-session.js";
import { twoFactorSection } from "./two-factor-pages.js";
import { usageChart } from "./usage-chart.js";

/** A refusal of the account's own keys (another account's, unknown, revoked) as the 404 page; anything else as it is. */
function noSuchKey(error: unknown): never {
  throw refusalOf(error) ? new HttpProblem("not_found", "There is no such key in your account.") : error;
}

export function consolePages(app: TypedApp, deps: AccountPagesDeps, pages: PageSession): void {
  const { store, clock } = deps;
  const { session, loggedIn, checkCsrf, endSessionReply } = pages;
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

  const securityPage = async (found: Session, error?: string, done = "") =>
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
${section("everywhere-heading", "Log out everywhere", form("/account/security/logout-everywhere", found.csrf, "", "Log out everywhere"))}
${await twoFactorSection(deps, found)}`,
    );
  app.get("/account/security", { schema: { hide: true } }, async (request, reply) => {
    const found = await loggedIn(request, reply);
    if (!found) return reply;
    return send(reply, await securityPage(found));
  });
  app.post("/account/security", { schema: { hide: true } }, async (request, reply) => {
    const found = await session(request);
    const body = checkCsrf(request, found?.csrf);
    if (!found) return reply.redirect("/login", 303);
    const password = text(body, "password");
    const weak = passwordProblem(password);
    const network = prefixOf(request.ip);
    const now = clock();
    // The current password is a throttled try, as at log-in.
    const who = trierOf(found.account.email, network);
    const current = { email: found.account.email, password: text(body, "current"), now };
    const confirmed = await passwordTry(store, who, current);
    if (confirmed.kind === "wait") {
      void reply.header("retry-after", String(confirmed.retryAfterSeconds));
      return send(reply, await securityPage(found, "Too many tries; try again later."), 429);
    }
    if (confirmed.kind === "wrong")
      return send(reply, await securityPage(found, "Your current password is wrong."), 400);
    await trySucceeded(store, who);
    if (weak) return send(reply, await securityPage(found, weak), 400);
    await store.accounts.setPassword(found.account.id, await hashPassword(password));
    return send(
      reply,
      await securityPage(found, undefined, '<p class="card" role="status">Your password is changed.</p>'),
    );
  });
  app.post("/account/security/logout-everywhere", { schema: { hide: true } }, async (request, reply) => {
    const found = await session(request);
    checkCsrf(request, found?.csrf);
    if (found) await store.accounts.deleteSessions(found.account.id);
    return endSessionReply(reply);
  });
}
