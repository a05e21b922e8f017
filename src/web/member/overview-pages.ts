import type { FastifyReply } from "fastify";
import { prefixOf } from "../../http/client-networks.js";
import { HttpProblem } from "../../http/http-problem.js";
import type { TypedApp } from "../../http/typed-app.js";
import {
  accountDailyUsage,
  accountKeys,
  accountKeyUsage,
  accountOwnUsage,
  accountReports,
  createAccountKey,
  revokeAccountKey,
  rollAccountKey,
} from "../../operator/account-keys.js";
import { logOutEverywhere } from "../../operator/account-sessions.js";
import { accountJson } from "../../operator/accounts.js";
import { type KeyWithUsage, keyUsage } from "../../operator/key-usage.js";
import { changePassword } from "../../operator/passwords.js";
import { refusalOf } from "../../operator/refusal.js";
import { type Html, type HtmlValue, html, joinHtml } from "../../page-kit/html.js";
import { card, form, statusCard } from "../../page-kit/layout.js";
import {
  accountPage,
  createdSecret,
  createKeyForm,
  firstKeyCard,
  keyHeading,
  keysTable,
  passwordField,
  quotaBar,
  reportsTable,
} from "./account-views.js";
import { type AccountPagesDeps, type PageSession, type Session, send, text } from "./page-session.js";
import { COPY_POLICY, COPY_SCRIPT } from "./secret-views.js";
import { twoFactorSection } from "./two-factor-pages.js";
import { usageChart } from "./usage-chart.js";

/** A refusal of the account's own keys (another account's, unknown, revoked) as the 404 page; anything else as it is. */
function noSuchKey(error: unknown): never {
  throw refusalOf(error) ? new HttpProblem("not_found", "There is no such key in your account.") : error;
}

const PASSWORD_CHANGED = statusCard(
  "Your password is changed, and every other session of the account has ended.",
);

/** The account's own pages: its overview, keys, reports and security. */
export function overviewPages(app: TypedApp, deps: AccountPagesDeps, pages: PageSession): void {
  const { store, clock, config } = deps;
  const { session, loggedIn, checkCsrf, sessionReply, endSessionReply, takeFirstKey } = pages;
  // The account's own pages.
  const keysPage = async (found: Session, extra?: HtmlValue, error?: string, script?: string) =>
    accountPage(
      "Keys",
      accountJson(found.account),
      found.csrf,
      html`${extra}${card("keys-heading", "Your keys", keysTable(await accountKeys(store, found.account), clock()))}
${card("create-heading", "New key", createKeyForm(found.csrf, error))}`,
      script,
    );
  /** The keys page with a new secret shown once, its copy script allowed by its hash. */
  const keysPageWithSecret = async (reply: FastifyReply, found: Session, secret: string, note?: Html) =>
    send(
      reply.header("content-security-policy", COPY_POLICY),
      await keysPage(found, html`${createdSecret(secret, config.publicUrl)}${note}`, undefined, COPY_SCRIPT),
      201,
    );

  /** The chart of `keyIds` over the current and the previous period of the account's count. */
  const chart = async (id: string, heading: string, keyIds: string[], usage: KeyWithUsage["usage"]) => {
    const current = new Date(usage.period_start);
    const reset = new Date(usage.reset_at);
    const from = new Date(2 * current.getTime() - reset.getTime());
    return usageChart(id, heading, await accountDailyUsage(store, keyIds, from), from, current, reset);
  };

  app.get("/account", { schema: { hide: true } }, async (request, reply) => {
    const found = await loggedIn(request, reply);
    if (!found) return reply;
    const firstKey = takeFirstKey(request, reply);
    const keys = await accountKeys(store, found.account);
    const [first] = keys;
    const usage = first && (await keyUsage(store, first.id, clock())).usage;
    const plan = card(
      "plan-heading",
      "Plan and quota",
      html`<p>Plan <strong>${found.account.plan}</strong>: all your keys draw from one count.</p>\n${usage && quotaBar(usage)}`,
    );
    const perKey = await Promise.all(
      keys.map(
        async (key) => usage && (await chart(`chart-${key.id}`, keyHeading(key, clock()), [key.id], usage)),
      ),
    );
    const charts =
      usage &&
      card(
        "chart-heading",
        "Checks per day",
        html`${await chart(
          "chart-all",
          "All keys and uploads on these pages",
          [...keys.map((key) => key.id), accountOwnUsage(found.account)],
          usage,
        )}\n${joinHtml(perKey)}`,
      );
    const shown = firstKey && html`${firstKeyCard(firstKey, config.publicUrl)}\n`;
    const page = accountPage(
      "Overview",
      accountJson(found.account),
      found.csrf,
      html`${shown}${plan}\n${charts}`,
      firstKey ? COPY_SCRIPT : undefined,
    );
    return send(firstKey ? reply.header("content-security-policy", COPY_POLICY) : reply, page);
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
      return keysPageWithSecret(reply, found, created.key);
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
      const heading = `Key ${key.name ?? key.id}${key.revoked_at ? " (revoked)" : ""}`;
      const keyChart = await chart("chart-key", heading, [key.id], key.usage);
      const body = card(
        "usage-heading",
        heading,
        html`<p>Prefix <code>${key.prefix}…</code></p>\n${quotaBar(key.usage)}\n${keyChart}`,
      );
      return send(reply, accountPage("Key", accountJson(found.account), found.csrf, body));
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
      const note = html`\n${statusCard("The old key keeps working for 24 hours.")}`;
      return keysPageWithSecret(reply, found, rolled.key, note);
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
    const body = card("reports-heading", "Reports of wrong answers", reportsTable(reports));
    return send(reply, accountPage("Reports", accountJson(found.account), found.csrf, body));
  });

  const securityPage = async (found: Session, error?: string, done?: Html) =>
    accountPage(
      "Security",
      accountJson(found.account),
      found.csrf,
      html`${done}${card(
        "password-heading",
        "Change password",
        form({
          action: "/account/security",
          csrf: found.csrf,
          fields: html`${passwordField(undefined, "current", "current-password")}\n${passwordField(error, "password", "new-password", "New password")}`,
          button: "Change password",
        }),
      )}
${card(
  "everywhere-heading",
  "Log out everywhere",
  form({
    action: "/account/security/logout-everywhere",
    csrf: found.csrf,
    fields: undefined,
    button: "Log out everywhere",
  }),
)}
${await twoFactorSection(deps, found)}`,
    );
  app.get<{ Querystring: { changed?: string } }>(
    "/account/security",
    { schema: { hide: true } },
    async (request, reply) => {
      const found = await loggedIn(request, reply);
      if (!found) return reply;
      // After a password change (which ended every other session), say so once.
      const done = request.query.changed === "1" ? PASSWORD_CHANGED : undefined;
      return send(reply, await securityPage(found, undefined, done));
    },
  );
  app.post("/account/security", { schema: { hide: true } }, async (request, reply) => {
    const found = await session(request);
    const body = checkCsrf(request, found?.csrf);
    if (!found) return reply.redirect("/login", 303);
    const changed = await changePassword(store, found.account, {
      current: text(body, "current"),
      password: text(body, "password"),
      network: prefixOf(request.ip),
      now: clock(),
    });
    switch (changed.kind) {
      case "wait":
        // The current password is a throttled try, as at log-in.
        void reply.header("retry-after", String(changed.retryAfterSeconds));
        return send(reply, await securityPage(found, "Too many tries; try again later."), 429);
      case "wrong_current":
        return send(reply, await securityPage(found, "Your current password is wrong."), 400);
      case "weak":
        return send(reply, await securityPage(found, changed.problem), 400);
      case "set":
        // Every other session is over; this browser goes on in a new one.
        if (!changed.session) return reply.redirect("/login", 303);
        return sessionReply(request, reply, changed.session, "/account/security?changed=1");
    }
  });
  app.post("/account/security/logout-everywhere", { schema: { hide: true } }, async (request, reply) => {
    const found = await session(request);
    checkCsrf(request, found?.csrf);
    if (found) await logOutEverywhere(store, found.account);
    return endSessionReply(request, reply);
  });
}
