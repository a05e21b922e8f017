/**
 * The account's list page at its size (docs/accounts.md "The account's list"): 10,000
 * entries show 100 at a time with Previous and Next links and the count against the
 * limit; a GET search finds a domain; a removal comes back to its page of its search; an
 * import over 3 MiB is told so beside the `CSV file` field (or on the error page without
 * a session), naming the import's limit, not the API's 16 KiB.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { csrfOf, type FormBrowser, invitedBrowser, TEST_ORIGIN } from "../../../harness/form-browser.js";
import { MAX_ACCOUNT_LIST_CSV_BYTES, MAX_ACCOUNT_LIST_ENTRIES } from "../../../src/operator/account-lists.js";
import { type HttpFixture, openHttpFixture } from "../../http/helpers.js";

let fixture: HttpFixture;

beforeEach(async () => {
  fixture = await openHttpFixture({ signup: "invite" });
});
afterEach(() => fixture.close());

/** A domain of the full list: d00000.example.com … d09999.example.com, in the page's order. */
const domainAt = (n: number) => `d${String(n).padStart(5, "0")}.example.com`;

async function fullList(email: string): Promise<FormBrowser> {
  const browser = await invitedBrowser(fixture.app, fixture.store, fixture.clock.now(), email);
  const account = await fixture.store.accounts.findLogin(email);
  const entries = Array.from({ length: MAX_ACCOUNT_LIST_ENTRIES }, (_, n) => ({
    domain: domainAt(n),
    action: n % 2 === 0 ? ("block" as const) : ("allow" as const),
    createdAt: fixture.clock.now(),
  }));
  await fixture.store.accountLists.importEntries(account?.id ?? "", entries, MAX_ACCOUNT_LIST_ENTRIES);
  return browser;
}

const rowsOf = (html: string) => [...html.matchAll(/<tr><td>([^<]+)<\/td>/g)].map((match) => match[1]);

describe("the list page of 10,000 entries", () => {
  it("shows 100 at a time with Previous and Next, and the count against the limit", async () => {
    const ann = await fullList("ann@example.com");
    const first = await ann.get("/account/lists");
    expect(first.statusCode).toBe(200);
    expect(first.body).toContain("Your list holds 10,000 of at most 10,000 entries.");
    expect(first.body).toContain("<p>Entries 1–100 of 10,000.</p>");
    expect(rowsOf(first.body)).toEqual(Array.from({ length: 100 }, (_, n) => domainAt(n)));
    expect(first.body).toContain(
      '<nav aria-label="Pages of your list"><ul class="nav"><li>Page 1 of 100</li><li><a href="/account/lists?page=2" rel="next">Next</a></li></ul></nav>',
    );
    expect(first.body).not.toContain("Previous");

    const second = await ann.get("/account/lists?page=2");
    expect(rowsOf(second.body)).toEqual(Array.from({ length: 100 }, (_, n) => domainAt(100 + n)));
    expect(second.body).toContain('<a href="/account/lists" rel="prev">Previous</a>');
    expect(second.body).toContain('<a href="/account/lists?page=3" rel="next">Next</a>');

    const last = await ann.get("/account/lists?page=100");
    expect(rowsOf(last.body).at(-1)).toBe(domainAt(9_999));
    expect(last.body).toContain("<p>Entries 9,901–10,000 of 10,000.</p>");
    expect(last.body).not.toContain(">Next<");
    // Past the last page, or not a page: the last, the first.
    expect(rowsOf((await ann.get("/account/lists?page=5000")).body)).toEqual(rowsOf(last.body));
    expect(rowsOf((await ann.get("/account/lists?page=abc")).body)).toEqual(rowsOf(first.body));
  });

  it("finds domains with a GET search, pages the matches and keeps the search", async () => {
    const ann = await fullList("ann@example.com");
    const page = await ann.get("/account/lists");
    expect(page.body).toMatch(
      /<form class="stack" method="get" action="\/account\/lists" role="search">\n<label for="f-search">Search<\/label>\n<input id="f-search" name="search" type="search" value=""/,
    );
    const one = await ann.get(`/account/lists?search=${encodeURIComponent(" D01234 ")}`);
    expect(rowsOf(one.body)).toEqual([domainAt(1234)]);
    expect(one.body).toContain("<p>Entries 1–1 of 1 whose domain contains “D01234”.</p>");
    expect(one.body).toContain('value="D01234"');
    expect(one.body).not.toContain('aria-label="Pages of your list"');

    // d01… matches 1,000 domains: 10 pages, the search in every link.
    const many = await ann.get("/account/lists?search=d01&page=2");
    expect(rowsOf(many.body)[0]).toBe(domainAt(1_100));
    expect(many.body).toContain("<p>Entries 101–200 of 1,000 whose domain contains “d01”.</p>");
    expect(many.body).toContain('<a href="/account/lists?search=d01" rel="prev">Previous</a>');
    expect(many.body).toContain('<a href="/account/lists?search=d01&amp;page=3" rel="next">Next</a>');

    // `%` and `_` are text, not patterns; a search without a match says so.
    const none = await ann.get(`/account/lists?search=${encodeURIComponent("d0%1")}`);
    expect(none.body).toContain("<p>No entry whose domain contains “d0%1”.</p>");
    expect(rowsOf(none.body)).toEqual([]);
    expect(rowsOf((await ann.get("/account/lists?search=d0_1")).body)).toEqual([]);

    // A removal from page 2 of a search comes back there.
    const removed = await ann.post(
      `/account/lists/${domainAt(1_100)}/remove`,
      { search: "d01", page: "2" },
      many.body,
    );
    expect(removed.statusCode).toBe(303);
    expect(removed.headers.location).toBe("/account/lists?search=d01&page=2");
    const after = await ann.get("/account/lists?search=d01&page=2");
    expect(rowsOf(after.body)[0]).toBe(domainAt(1_101));
    expect(after.body).toContain("Your list holds 9,999 of at most 10,000 entries.");
  });

  it("never pages into another account's entries", async () => {
    await fullList("ann@example.com");
    const bob = await invitedBrowser(fixture.app, fixture.store, fixture.clock.now(), "bob@example.com");
    const page = await bob.get("/account/lists?search=d0&page=3");
    expect(page.body).toContain("Your list holds 0 of at most 10,000 entries.");
    expect(rowsOf(page.body)).toEqual([]);
  });
});

/** The import form sent as a browser sends it: multipart, the CSV as the `file` field. */
async function importCsv(browser: FormBrowser | undefined, csv: string, page: string, accept: string) {
  const form = new FormData();
  form.set("csrf", csrfOf(page));
  form.set("file", new Blob([csv], { type: "text/csv" }), "list.csv");
  const request = new Request(`${TEST_ORIGIN}/account/lists/import`, { method: "POST", body: form });
  return fixture.app.inject({
    method: "POST",
    url: "/account/lists/import",
    headers: {
      ...(browser && { cookie: browser.cookieHeader() }),
      origin: TEST_ORIGIN,
      "content-type": request.headers.get("content-type") ?? "",
      accept,
    },
    payload: Buffer.from(await request.arrayBuffer()),
  });
}

/** A CSV of `bytes` bytes or a few more: valid lines of one domain each. */
function csvOf(bytes: number): string {
  const line = "a-rather-long-name-of-a-domain-for-the-size.example.com,block\n";
  return line.repeat(Math.ceil(bytes / line.length));
}

describe("an import over its limit", () => {
  const said = "The CSV file is larger than the import&#39;s limit of 3 MiB";

  it("says the import's limit beside the CSV file field, for a request too large to read and for a CSV just over it", async () => {
    const ann = await invitedBrowser(fixture.app, fixture.store, fixture.clock.now(), "ann@example.com");
    const page = (await ann.get("/account/lists")).body;
    expect(page).toContain("the file may have at most 3 MiB");
    for (const bytes of [MAX_ACCOUNT_LIST_CSV_BYTES * 2, MAX_ACCOUNT_LIST_CSV_BYTES + 1_000]) {
      const refused = await importCsv(ann, csvOf(bytes), page, "text/html");
      expect(refused.statusCode, `${bytes} bytes`).toBe(413);
      expect(refused.body).toMatch(
        new RegExp(
          `<input id="f-csv" name="file" type="file" accept="[^"]+" required aria-describedby="f-csv-error" aria-invalid="true">\\n<p class="field-error" id="f-csv-error">${said}; split it into smaller files\\. Nothing was imported\\.</p>`,
        ),
      );
      expect(refused.body).not.toContain("16 KiB");
      expect(refused.body).toContain("Your list holds 0 of at most 10,000 entries.");
    }
  });

  it("without a session, is the body_too_large page naming the import's limit", async () => {
    const refused = await importCsv(undefined, csvOf(MAX_ACCOUNT_LIST_CSV_BYTES * 2), "", "text/html");
    expect(refused.statusCode).toBe(413);
    expect(refused.body).toContain(`${said}; split it into smaller files.`);
    expect(refused.body).not.toContain("16 KiB");
  });
});
