/**
 * A browser of the account pages over `inject`: it keeps its cookies, sends forms with the
 * CSRF token of the page they came from and an `Origin`, and gets an account by invitation.
 */
import { expect } from "vitest";
import { inviteAccount } from "../../../src/operator/accounts.js";
import { CLI_ACTOR } from "../../../src/operator/audit.js";
import type { HttpFixture } from "../helpers.js";

export const ORIGIN = "http://localhost:80";
export const PASSWORD = "correct horse battery";

export function csrfOf(html: string): string {
  return /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? "";
}

export class PageBrowser {
  readonly cookies = new Map<string, string>();

  constructor(private readonly fixture: Pick<HttpFixture, "app">) {}

  cookieHeader(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join("; ");
  }

  keep(setCookie: string | string[] | undefined): void {
    for (const line of [setCookie ?? []].flat()) {
      const [pair = ""] = line.split(";");
      const at = pair.indexOf("=");
      const value = pair.slice(at + 1);
      if (value === "") this.cookies.delete(pair.slice(0, at));
      else this.cookies.set(pair.slice(0, at), value);
    }
  }

  async get(url: string, accept = "text/html") {
    const answer = await this.fixture.app.inject({ url, headers: { cookie: this.cookieHeader(), accept } });
    this.keep(answer.headers["set-cookie"]);
    return answer;
  }

  /** Submits the form of `page` (its CSRF token) to `url`, from `origin`. */
  async post(url: string, fields: Record<string, string>, page: string, origin = ORIGIN) {
    const answer = await this.fixture.app.inject({
      method: "POST",
      url,
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
}

/** A new account by invitation, logged in: the browser holding its session. */
export async function invited(
  fixture: Pick<HttpFixture, "app" | "store" | "clock">,
  email: string,
  operator = false,
): Promise<PageBrowser> {
  const browser = new PageBrowser(fixture);
  const links = { signup: "invite" as const, publicUrl: null, signupPlan: "free", mailer: undefined };
  const link = await inviteAccount(fixture.store, { email, operator }, links, fixture.clock.now(), CLI_ACTOR);
  const path = new URL(link.url, ORIGIN).pathname;
  const page = await browser.get(path);
  expect(page.body).toContain(">Set password</button>");
  const set = await browser.post(path, { password: PASSWORD }, page.body);
  expect(set.statusCode, set.body).toBe(303);
  expect(set.headers.location).toBe("/account");
  return browser;
}
