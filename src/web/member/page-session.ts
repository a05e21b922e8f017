/**
 * What every account page shares (docs/accounts.md "Sessions and forms"): the session
 * behind its cookie, the CSRF check of every POST (same origin, and the session's token or
 * the `mailrisk_csrf` cookie's), and the HTML answer.
 */
import type { FastifyReply, FastifyRequest } from "fastify";
import type { Config } from "../../config.js";
import { HttpProblem } from "../../http/http-problem.js";
import type { JobsConfig } from "../../http/routes/job-routes.js";
import type { RunCheckDeps } from "../../http/run-check.js";
import type { OpenedSession } from "../../operator/account-sessions.js";
import { comesFromOwnOrigin } from "../../page-kit/form-origin.js";
import type { Html } from "../../page-kit/html.js";
import { sendPage } from "../../page-kit/layout.js";
import { newFormToken, sessionOf, startSession } from "../../service/accounts/account-access.js";
import type { Mailer } from "../../service/accounts/mailer.js";
import type { UploadGate } from "../../service/jobs/upload-gate.js";
import type { Account, Store } from "../../store/index.js";
import { NOT_KEPT } from "../public/cache-control.js";

const SESSION_COOKIE = "mailrisk_session";
const CSRF_COOKIE = "mailrisk_csrf";
/** The account's first secret key, between the answer that makes it and the /account page that shows it once. */
const FIRST_KEY_COOKIE = "mailrisk_first_key";
const FIRST_KEY_SECONDS = 900;
const SECRET_SHAPE = /^mr_[0-9A-Za-z]{32}$/;

export interface AccountPagesDeps extends RunCheckDeps {
  store: Pick<
    Store,
    | "accounts"
    | "keys"
    | "usage"
    | "plans"
    | "reports"
    | "jobs"
    | "transaction"
    | "audit"
    | "accountLists"
    | "twoFactor"
    | "loginThrottle"
  >;
  config: JobsConfig &
    Pick<
      Config,
      | "signup"
      | "signupPlan"
      | "sessionTtlSeconds"
      | "sessionMaxAgeSeconds"
      | "publicUrl"
      | "require2fa"
      | "supportEmail"
    >;
  mailer: Mailer | undefined;
  /** The app's caps on uploads and downloads at once (shared with the API); else the account pages' own. */
  uploadGate?: UploadGate;
  clock: () => Date;
}

export type Body = Record<string, unknown>;
export type Session = { account: Account; csrf: string; token: string; createdAt: Date };

export function text(body: Body, name: string): string {
  const value = body[name];
  return typeof value === "string" ? value : "";
}

/**
 * A cookie of the request, as @fastify/cookie (registered by the site plugin) read it; a
 * value that is not one of ours (`_ga=100%`, any size) is simply not ours.
 */
function cookie(request: FastifyRequest, name: string): string | undefined {
  const value = request.cookies?.[name];
  return value && /^[0-9A-Za-z]{32}$/.test(value) ? value : undefined;
}

/** An account page: never kept by a cache. */
export function send(reply: FastifyReply, page: Html, status = 200) {
  return sendPage(reply.header("cache-control", NOT_KEPT), page, status);
}

export type PageSession = ReturnType<typeof pageSession>;

export function pageSession(deps: AccountPagesDeps) {
  const { store, config, clock } = deps;
  const httpsPublicUrl = config.publicUrl?.startsWith("https:") === true;
  const idleMs = config.sessionTtlSeconds * 1000;
  const maxAgeMs = config.sessionMaxAgeSeconds * 1000;
  /** `Secure` whenever PUBLIC_URL is https or the request came over https (a trusted proxy's `X-Forwarded-Proto` counts). */
  const setCookie = (
    request: FastifyRequest,
    reply: FastifyReply,
    name: string,
    value: string,
    maxAge: number,
  ) => {
    const secure = httpsPublicUrl || request.protocol === "https" ? "; Secure" : "";
    void reply.header(
      "set-cookie",
      `${name}=${value}; HttpOnly; SameSite=Lax; Path=/; Max-Age=${maxAge}${secure}`,
    );
  };
  /** A session cookie lives SESSION_TTL from this use, and never past SESSION_MAX_AGE from the session's start. */
  const sessionMaxAge = (createdAt: Date) => {
    const left = Math.floor((createdAt.getTime() + maxAgeMs - clock().getTime()) / 1000);
    return Math.max(0, Math.min(config.sessionTtlSeconds, left));
  };

  const session = async (request: FastifyRequest): Promise<Session | undefined> => {
    const token = cookie(request, SESSION_COOKIE);
    if (!token) return undefined;
    const found = await sessionOf(store, token, clock(), idleMs, maxAgeMs);
    return found && { ...found, token };
  };

  /** The logged-in session (its cookie renewed), or a redirect to /login. */
  const loggedIn = async (request: FastifyRequest, reply: FastifyReply) => {
    const found = await session(request);
    if (!found) void reply.redirect("/login", 303);
    else setCookie(request, reply, SESSION_COOKIE, found.token, sessionMaxAge(found.createdAt));
    return found;
  };

  /** The token of the anonymous forms: the cookie's, or a new one set now. */
  const anonymousCsrf = (request: FastifyRequest, reply: FastifyReply): string => {
    const known = cookie(request, CSRF_COOKIE);
    if (known) return known;
    const token = newFormToken();
    setCookie(request, reply, CSRF_COOKIE, token, 86_400);
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
    const sameOrigin = comesFromOwnOrigin(request, config.publicUrl);
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
    checkCsrf(request, cookie(request, CSRF_COOKIE));

  /** The browser a pending sign-up belongs to: its `mailrisk_csrf` token (after checkAnonymousCsrf). */
  const browserOf = (request: FastifyRequest): string => cookie(request, CSRF_COOKIE) ?? "";

  /** Sends a code without waiting: the answer takes the same time whether a mail goes out or not. */
  const mailInBackground = (request: FastifyRequest, to: string, subject: string, body: string) => {
    deps.mailer
      ?.send(to, subject, body)
      .catch((error: unknown) => request.log.warn({ err: error }, "could not send a mail"));
  };

  /**
   * Sets the cookie of a session just opened and goes to `to` (the account's overview). `firstKey`, a
   * new account's first secret, rides along in a cookie only /account is sent (HttpOnly,
   * SameSite=Strict, 15 minutes), which shows it once and ends it (`takeFirstKey`): the
   * redirect may reach another instance.
   */
  const sessionReply = (
    request: FastifyRequest,
    reply: FastifyReply,
    session: OpenedSession,
    to = "/account",
    firstKey?: string,
  ) => {
    setCookie(
      request,
      reply,
      SESSION_COOKIE,
      session.token,
      Math.min(config.sessionTtlSeconds, config.sessionMaxAgeSeconds),
    );
    if (firstKey !== undefined)
      void reply.header("set-cookie", firstKeyCookie(request, firstKey, FIRST_KEY_SECONDS));
    return reply.redirect(to, 303);
  };

  const firstKeyCookie = (request: FastifyRequest, value: string, maxAge: number) =>
    `${FIRST_KEY_COOKIE}=${value}; HttpOnly; SameSite=Strict; Path=/account; Max-Age=${maxAge}${
      httpsPublicUrl || request.protocol === "https" ? "; Secure" : ""
    }`;

  /** The first key to show on this answer, once: its cookie is ended here. */
  const takeFirstKey = (request: FastifyRequest, reply: FastifyReply): string | undefined => {
    const secret = request.cookies?.[FIRST_KEY_COOKIE];
    if (secret === undefined) return undefined;
    void reply.header("set-cookie", firstKeyCookie(request, "", 0));
    return SECRET_SHAPE.test(secret) ? secret : undefined;
  };

  /** Work done after the answer (so that it takes the same time whatever the work finds); a failure is logged. */
  const inBackground = (request: FastifyRequest, work: Promise<unknown>) => {
    work.catch((error: unknown) => request.log.warn({ err: error }, "account work after the answer failed"));
  };

  /** Opens a session of the account (log-in) and goes to the account's overview. */
  const startSessionReply = async (request: FastifyRequest, reply: FastifyReply, account: Account) =>
    sessionReply(request, reply, await startSession(store, account.id, clock()));

  /** Ends the session's cookie and goes to the log-in page. */
  const endSessionReply = (request: FastifyRequest, reply: FastifyReply) => {
    setCookie(request, reply, SESSION_COOKIE, "", 0);
    return reply.redirect("/login", 303);
  };

  return {
    session,
    loggedIn,
    anonymousCsrf,
    checkCsrf,
    checkAnonymousCsrf,
    browserOf,
    mailInBackground,
    inBackground,
    sessionReply,
    startSessionReply,
    takeFirstKey,
    endSessionReply,
  };
}
