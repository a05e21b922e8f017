/**
 * A way in (docs/accounts.md "A way in"): with SIGNUP=open the home page and every result
 * page carry `Sign up` and `Log in`, with `invite` only `Log in`, with `off` neither; the
 * examples say where a key comes from. The pages are the same for every visitor (still
 * shared-cacheable, nothing of the visitor in them): `/login` sends a person already
 * logged in on to `/account`. `/login` and `/signup` link to each other and to `/reset`.
 */
import { afterEach, describe, expect, it } from "vitest";
import { invitedBrowser } from "../../../harness/form-browser.js";
import { type HttpFixture, openHttpFixture } from "../../http/helpers.js";

let fixture: HttpFixture;
afterEach(() => fixture.close());

const html = { accept: "text/html" };
const wayIn = (body: string) =>
  /<nav class="way-in" aria-label="Account">[\s\S]*?<\/nav>/.exec(body)?.[0] ?? "";

describe("the way in", () => {
  it.each([
    ["open", ['href="/signup">Sign up', 'href="/login">Log in'], "sign up"],
    ["invite", ['href="/login">Log in'], "invites you"],
    ["off", [], "mailrisk keys create"],
  ] as const)(
    "with SIGNUP=%s, the home and result pages link %j and say where a key comes from",
    async (signup, links, source) => {
      fixture = await openHttpFixture({ signup });
      for (const url of ["/", "/domain/example.com"]) {
        const page = await fixture.app.inject({ url, headers: html });
        expect(page.statusCode, url).toBe(200);
        for (const link of links) expect(wayIn(page.body), url).toContain(link);
        if (links.length === 0) expect(wayIn(page.body), url).toBe("");
        if (signup === "invite") expect(wayIn(page.body), url).not.toContain("Sign up");
        expect(page.body, url).toContain(source);
      }
    },
  );

  it("keeps public pages the same for a logged-in person, whose Log in goes straight to /account", async () => {
    fixture = await openHttpFixture({ signup: "open" });
    const anonymous = await fixture.app.inject({ url: "/", headers: html });
    const person = await invitedBrowser(fixture.app, fixture.store, fixture.clock.now(), "ann@example.com");
    const theirs = await person.get("/");
    expect(theirs.body).toBe(anonymous.body);
    expect(theirs.headers["cache-control"]).toBe(anonymous.headers["cache-control"]);
    expect(theirs.headers["set-cookie"]).toBeUndefined();
    const login = await person.get("/login");
    expect(login.statusCode).toBe(303);
    expect(login.headers.location).toBe("/account");
    const stranger = await fixture.app.inject({ url: "/login", headers: html });
    expect(stranger.statusCode).toBe(200);
  });

  it("links the log-in and sign-up pages to each other and to /reset", async () => {
    fixture = await openHttpFixture({ signup: "open" });
    const login = (await fixture.app.inject({ url: "/login", headers: html })).body;
    const signup = (await fixture.app.inject({ url: "/signup", headers: html })).body;
    expect(login).toContain('<a href="/signup">Sign up</a>');
    expect(login).toContain('<a href="/reset">');
    expect(signup).toContain('<a href="/login">Log in</a>');
    expect(signup).toContain('<a href="/reset">');
  });
});
