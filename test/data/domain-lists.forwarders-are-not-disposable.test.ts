import { describe, expect, it } from "vitest";
import { loadDomainLists } from "../../src/data/read-domain-lists.js";

describe("relay services are forwarders, not disposable (bundled lists)", () => {
  const lists = loadDomainLists();

  it.each([
    ["duck.com", "DuckDuckGo Email Protection"],
    ["mozmail.com", "Firefox Relay"],
    ["relay.firefox.com", "Firefox Relay"],
    ["simplelogin.com", "SimpleLogin"],
    ["slmail.me", "SimpleLogin"],
    ["anonaddy.me", "addy.io"],
    ["addy.io", "addy.io"],
    ["privaterelay.appleid.com", "Apple Hide My Email"],
    ["33mail.com", "33mail"],
  ])("%s → forwarder %s", (domain, name) => {
    expect(lists.disposable(domain, domain)).toBeUndefined();
    expect(lists.domainFacts(domain, domain).categories.forwarder?.name).toBe(name);
  });

  it("covers a user's subdomain of a forwarder (alias.33mail.com)", () => {
    expect(lists.disposable("someone.33mail.com", "33mail.com")).toBeUndefined();
    expect(lists.domainFacts("someone.33mail.com", "33mail.com").categories.forwarder?.entry).toBe(
      "33mail.com",
    );
  });

  it("keeps the package sources of an entry it moved", () => {
    expect(lists.domainFacts("mozmail.com", "mozmail.com").categories.forwarder?.sources).toEqual([
      "data/curated/forwarders.txt",
      "mailchecker",
    ]);
  });
});
