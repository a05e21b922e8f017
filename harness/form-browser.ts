/**
 * A browser over `inject` for tests of the pages for people and the operator's desk: it
 * keeps the cookies it is sent and submits a page's form with that page's CSRF token,
 * from this server's origin unless told another.
 */
import type { FastifyInstance } from "fastify";
import { inviteAccount } from "../src/operator/accounts.js";
import { CLI_ACTOR } from "../src/operator/audit.js";
import type { Store } from "../src/store/index.js";

/** The origin `inject` requests have: this server's own when PUBLIC_URL is not set. */
export const TEST_ORIGIN = "http://localhost:80";
export const TEST_PASSWORD = "correct horse battery";

/** The CSRF token a page's forms carry. */
export function csrfOf(html: string): string {
  return /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? "";
}

export class FormBrowser {
  readonly cookies = new Map<string, string>();

  constructor(private readonly app: FastifyInstance) {}

  async get(url: string, accept = "text/html") {
    const answer = await this.app.inject({ url, headers: { cookie: this.cookieHeader(), accept } });
    this.keep(answer.headers["set-cookie"]);
    return answer;
  }

  /** Submits the form of `page` (its CSRF token) to `url`, from `origin` (and the client address `remoteAddress`). */
  async post(
    url: string,
    fields: Record<string, string>,
    page: string,
    origin = TEST_ORIGIN,
    remoteAddress?: string,
  ) {
    const answer = await this.app.inject({
      method: "POST",
      url,
      ...(remoteAddress === undefined ? {} : { remoteAddress }),
      headers: {
        cookie: this.cookieHeader(),
        origin,
        "content-type": "application/x-www-form-urlencoded",
        accept: "text/html",
      },
      payload: new URLSearchParams({ csrf: csrfOf(page), ...fields }).toString(),
    });
    this.keep(answer.headers["set-cookie"]);
    return answer;
  }

  /** Opens a one-time link (`/invite/<token>`) and sets TEST_PASSWORD there; that form's answer. */
  async setPassword(path: string) {
    const page = await this.get(path);
    return this.post(path, { password: TEST_PASSWORD }, page.body);
  }

  /** The `Cookie` header this browser sends, for a request made by hand. */
  cookieHeader(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join("; ");
  }

  private keep(setCookie: string | string[] | undefined): void {
    for (const line of [setCookie ?? []].flat()) {
      const [pair = ""] = line.split(";");
      const at = pair.indexOf("=");
      const value = pair.slice(at + 1);
      if (value === "") this.cookies.delete(pair.slice(0, at));
      else this.cookies.set(pair.slice(0, at), value);
    }
  }
}

/** A new account by invitation (SIGNUP=invite), signed in: the browser holding its session. */
export async function invitedBrowser(
  app: FastifyInstance,
  store: Store,
  now: Date,
  email: string,
  options: { operator?: boolean; plan?: string } = {},
): Promise<FormBrowser> {
  const links = { signup: "invite" as const, publicUrl: null, signupPlan: "free", mailer: undefined };
  const link = await inviteAccount(store, { email, ...options }, links, now, CLI_ACTOR);
  const browser = new FormBrowser(app);
  const set = await browser.setPassword(new URL(link.url, TEST_ORIGIN).pathname);
  if (set.statusCode !== 303 || set.headers.location !== "/account")
    throw new Error(`setting the password of ${email} answered ${set.statusCode} to ${set.headers.location}`);
  return browser;
}
