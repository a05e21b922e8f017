/**
 * What every account page shares (docs/accounts.md "Sessions and forms"): the session
 * behind its cookie, the CSRF check of every POST (same origin, and the session's token or
 * the `mailrisk_csrf` cookie's), and the HTML answer.
 */
import type { FastifyReply, FastifyRequest } from "fastify";
import type { Config } from "../../config.js";
import { newFormToken, sessionOf, startSession } from "../../service/account-access.js";
import type { Mailer } from "../../service/mailer.js";
import type { UploadGate } from "../../service/upload-gate.js";
import type { Account, Store } from "../../store/types.js";
import { HttpProblem } from "../http-problem.js";
import { NOT_KEPT } from "../pages/cache-control.js";
import { HTML_CONTENT_TYPE } from "../pages/layout.js";
import type { RunCheckDeps } from "../run-check.js";

const SESSION_COOKIE = "mailrisk_session";
const CSRF_COOKIE = "mailrisk_csrf";

export interface AccountPagesDeps extends RunCheckDeps {
  store: Pick<
    Store,
    "accounts" | "keys" | "usage" | "plans" | "reports" | "jobs" | "transaction" | "audit" | "accountLists"
  >;
  config: Pick<
    Config,
    | "signup"
    | "signupPlan"
    | "sessionTtlSeconds"
    | "publicUrl"
    | "jobMaxItems"
    | "jobMaxBytes"
    | "jobRetentionSeconds"
    | "csvMaxColumns"
    | "csvMaxRecordBytes"
    | "jobUploadsPerAccount"
  >;
  mailer: Mailer | undefined;
  /** The app's caps on uploads and downloads at once (shared with the API); else the console's own. */
  uploadGate?: UploadGate;
  clock: () => Date;
}

export type Body = Record<string, unknown>;
export type Session = { account: Account; csrf: string; token: string };

export function text(body: Body, name: string): string {
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

export function send(reply: FastifyReply, html: string, status = 200) {
  return reply
    .code(status)
    .headers({ "cache-control": NOT_KEPT, "referrer-policy": "same-origin" })
    .type(HTML_CONTENT_TYPE)
    .send(html);
}

export type PageSession = ReturnType<typeof pageSession>;

export function pageSession(deps: AccountPagesDeps) {
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

  /** The logged-in session (its cookie renewed), or a redirect to /login. */
  const loggedIn = async (request: FastifyRequest, reply: FastifyReply) => {
    const found = await session(request);
    if (!found) void reply.redirect("/login", 303);
    // The cookie lives as long as the session: SESSION_TTL from this use.
    else void reply.header("set-cookie", cookie(SESSION_COOKIE, found.token, config.sessionTtlSeconds));
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

  /**
   * 403 `csrf_failed` unless the POST is same-origin and carries the expected token: in its
   * form, or in its query (`from` `"query"`) for an upload checked before its body is read.
   */
  const checkCsrf = (
    request: FastifyRequest,
    expected: string | undefined,
    from: "body" | "query" = "body",
  ): Body => {
    const body = ((from === "query" ? request.query : request.body) ?? {}) as Body;
    const sameOrigin = request.headers.origin === ownOrigin(request);
    if (!sameOrigin || !expected || text(body, "csrf") !== expected) {
      throw new HttpProblem(
        "csrf_failed",
        "This form was not sent from this site's own page (csrf_failed); nothing was changed. Reload the page and try again.",
      );
    }
    return body;
  };

  /** The CSRF check of a form shown before a session: the `mailrisk_csrf` cookie's token. */
  const checkAnonymousCsrf = (request: FastifyRequest): Body =>
    checkCsrf(request, cookies(request).get(CSRF_COOKIE));

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

  /** Ends the session's cookie and goes to the log-in page. */
  const endSessionReply = (reply: FastifyReply) =>
    reply.header("set-cookie", cookie(SESSION_COOKIE, "", 0)).redirect("/login", 303);

  return {
    session,
    loggedIn,
    anonymousCsrf,
    checkCsrf,
    checkAnonymousCsrf,
    mailInBackground,
    startSessionReply,
    endSessionReply,
  };
}
