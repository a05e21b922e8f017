/**
 * The account's own list on its pages (docs/accounts.md "The account's list"): the
 * add form normalises the domain and shows a refusal beside its field; the entries show
 * with a Remove form each; a CSV imports all or nothing (its error beside the file field)
 * and the export reads back; another account's entry is a 404 and never shown; every
 * form of the page refuses a cross-origin POST or one without the token (403
 * `csrf_failed`, nothing changed).
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { inviteAccount } from "../../../src/operator/accounts.js";
import { CLI_ACTOR } from "../../../src/operator/audit.js";
import { type HttpFixture, openHttpFixture } from "../../http/helpers.js";

const ORIGIN = "http://localhost:80";
const PASSWORD = "correct horse battery";
let fixture: HttpFixture;

beforeEach(async () => {
  fixture = await openHttpFixture({ signup: "invite" });
});
afterEach(() => fixture.close());

interface Browser {
  cookies: Map<string, string>;
}

function cookieHeader(browser: Browser): string {
  return [...browser.cookies].map(([name, value]) => `${name}=${value}`).join("; ");
}

function keep(browser: Browser, setCookie: string | string[] | undefined): void {
  for (const line of [setCookie ?? []].flat()) {
    const [pair = ""] = line.split(";");
    const at = pair.indexOf("=");
    browser.cookies.set(pair.slice(0, at), pair.slice(at + 1));
  }
}

async function get(browser: Browser, url: string) {
  const answer = await fixture.app.inject({
    url,
    headers: { cookie: cookieHeader(browser), accept: "text/html" },
  });
  keep(browser, answer.headers["set-cookie"]);
  return answer;
}

function csrfOf(html: string): string {
  return /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? "";
}

async function post(
  browser: Browser,
  url: string,
  fields: Record<string, string>,
  page: string,
  origin = ORIGIN,
) {
  const answer = await fixture.app.inject({
    method: "POST",
    url,
    headers: {
      cookie: cookieHeader(browser),
      origin,
      "content-type": "application/x-www-form-urlencoded",
      accept: "text/html",
    },
    payload: new URLSearchParams({ csrf: csrfOf(page), ...fields }).toString(),
  });
  keep(browser, answer.headers["set-cookie"]);
  return answer;
}

/** The import form sent as a browser sends it: multipart, with the CSV as the `file` field. */
async function importCsv(browser: Browser, csv: string, page: string, origin = ORIGIN) {
  const form = new FormData();
  form.set("csrf", csrfOf(page));
  form.set("file", new Blob([csv], { type: "text/csv" }), "list.csv");
  const request = new Request(`${ORIGIN}/account/lists/import`, { method: "POST", body: form });
  return fixture.app.inject({
    method: "POST",
    url: "/account/lists/import",
    headers: {
      cookie: cookieHeader(browser),
      origin,
      "content-type": request.headers.get("content-type") ?? "",
      accept: "text/html",
    },
    payload: Buffer.from(await request.arrayBuffer()),
  });
}

async function invited(email: string): Promise<Browser> {
  const browser: Browser = { cookies: new Map() };
  const links = { signup: "invite" as const, publicUrl: null, signupPlan: "free", mailer: undefined };
  const link = await inviteAccount(
    fixture.store,
    { email, operator: false },
    links,
    fixture.clock.now(),
    CLI_ACTOR,
  );
  const path = new URL(link.url, ORIGIN).pathname;
  const page = await get(browser, path);
  const set = await post(browser, path, { password: PASSWORD }, page.body);
  expect(set.statusCode, set.body).toBe(303);
  return browser;
}

async function entriesOf(email: string) {
  const account = await fixture.store.accounts.findLogin(email);
  return (await fixture.store.accountLists.listEntries(account?.id ?? "")).entries.map((entry) => [
    entry.domain,
    entry.action,
  ]);
}

describe("the account's list page", () => {
  it("adds, shows, removes, imports and exports the account's own entries", async () => {
    const ann = await invited("ann@example.com");
    const page = await get(ann, "/account/lists");
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<a href="/account/lists">Lists</a>');
    expect(page.body).toContain('<label for="f-domain">Domain</label>');
    expect(page.body).toMatch(
      /<fieldset><legend>Action<\/legend><input id="f-action-block" name="action" type="radio" value="block" checked><label for="f-action-block">Block<\/label>/,
    );
    expect(page.body).toContain('<label for="f-action-allow">Allow</label>');
    expect(page.body).toContain('<label for="f-csv">CSV file</label>');
    expect(page.body).toContain(">Add</button>");
    expect(page.body).toContain(">Import</button>");

    const added = await post(
      ann,
      "/account/lists",
      { domain: "Shop.Example.COM", action: "block" },
      page.body,
    );
    expect(added.statusCode, added.body).toBe(303);
    expect(added.headers.location).toBe("/account/lists");
    const shown = await get(ann, "/account/lists");
    expect(shown.body).toMatch(
      /<tr><td>shop\.example\.com<\/td><td>Block<\/td><td><time datetime="[^"]+">[^<]+<\/time><\/td><td><form class="inline" method="post" action="\/account\/lists\/shop\.example\.com\/remove">/,
    );
    expect(shown.body).toContain('<a href="/account/lists.csv" download>Export CSV</a>');

    const bad = await post(ann, "/account/lists", { domain: "not a domain", action: "allow" }, page.body);
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toMatch(
      /aria-describedby="f-domain-error" aria-invalid="true">\n<p class="field-error" id="f-domain-error">&quot;not a domain&quot; is not a domain/,
    );
    // The values sent come back, the choice too.
    expect(bad.body).toContain('value="not a domain"');
    expect(bad.body).toContain('value="allow" checked');

    const refused = await importCsv(ann, "a.example.com,block\nb.example.com,maybe\n", shown.body);
    expect(refused.statusCode).toBe(400);
    expect(refused.body).toMatch(
      /<p class="field-error" id="f-csv-error">line 2: &quot;maybe&quot; is no action[^<]*Nothing was imported\.<\/p>/,
    );
    expect(await entriesOf("ann@example.com")).toEqual([["shop.example.com", "block"]]);

    const imported = await importCsv(
      ann,
      "domain,action\r\na.example.com,block\r\nshop.example.com,allow\r\n",
      shown.body,
    );
    expect(imported.statusCode, imported.body).toBe(200);
    expect(imported.body).toContain('<p class="card" role="status">Imported 2 entries.</p>');
    expect(await entriesOf("ann@example.com")).toEqual([
      ["a.example.com", "block"],
      ["shop.example.com", "allow"],
    ]);

    const exported = await get(ann, "/account/lists.csv");
    expect(exported.statusCode).toBe(200);
    expect(exported.headers["content-type"]).toBe("text/csv; charset=utf-8");
    expect(exported.headers["content-disposition"]).toBe('attachment; filename="mailrisk-list.csv"');
    expect(exported.body).toBe("domain,action\r\na.example.com,block\r\nshop.example.com,allow\r\n");

    const removed = await post(ann, "/account/lists/a.example.com/remove", {}, shown.body);
    expect(removed.statusCode).toBe(303);
    expect(await entriesOf("ann@example.com")).toEqual([["shop.example.com", "allow"]]);
    expect((await post(ann, "/account/lists/a.example.com/remove", {}, shown.body)).statusCode).toBe(404);

    // Logged out: the page and the export send to /login.
    const stranger: Browser = { cookies: new Map() };
    expect((await get(stranger, "/account/lists")).headers.location).toBe("/login");
    expect((await get(stranger, "/account/lists.csv")).headers.location).toBe("/login");
  });

  it("never shows another account's entries and answers 404 for removing one", async () => {
    const ann = await invited("ann@example.com");
    const bob = await invited("bob@example.com");
    const annsPage = (await get(ann, "/account/lists")).body;
    await post(ann, "/account/lists", { domain: "secret-supplier.example", action: "block" }, annsPage);
    const bobsPage = await get(bob, "/account/lists");
    expect(bobsPage.body).not.toContain("secret-supplier.example");
    expect((await get(bob, "/account/lists.csv")).body).toBe("domain,action\r\n");
    const foreign = await post(bob, "/account/lists/secret-supplier.example/remove", {}, bobsPage.body);
    expect(foreign.statusCode).toBe(404);
    expect(await entriesOf("ann@example.com")).toEqual([["secret-supplier.example", "block"]]);
  });

  it("refuses a cross-origin POST, or one without the token, to every form: 403 csrf_failed, nothing changed", async () => {
    const ann = await invited("ann@example.com");
    const page = (await get(ann, "/account/lists")).body;
    await post(ann, "/account/lists", { domain: "kept.example.com", action: "block" }, page);
    for (const [origin, withToken] of [
      ["https://evil.example", page],
      [ORIGIN, ""],
    ] as const) {
      const answers = {
        add: await post(
          ann,
          "/account/lists",
          { domain: "evil.example.com", action: "allow" },
          withToken,
          origin,
        ),
        remove: await post(ann, "/account/lists/kept.example.com/remove", {}, withToken, origin),
        import: await importCsv(ann, "evil.example.com,allow\n", withToken, origin),
      };
      for (const [form, answer] of Object.entries(answers)) {
        expect(answer.statusCode, `${form} from ${origin}`).toBe(403);
        expect(answer.body).toContain("csrf_failed");
      }
    }
    expect(await entriesOf("ann@example.com")).toEqual([["kept.example.com", "block"]]);
  });
});
