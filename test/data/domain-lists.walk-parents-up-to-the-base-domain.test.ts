import { describe, expect, it } from "vitest";
import { listed, listsFrom } from "./lists-from.js";

describe("domain look-ups walk the domain and its parents up to the base domain", () => {
  const lists = listsFrom({
    disposable: [listed("mailinator.com"), listed("tmp.example-host.net"), listed("com")],
    curated: { "free.txt": "gmail.com  Gmail\n", "isp.txt": "t-online.de  Telekom\n" },
  });

  it.each([
    ["mailinator.com", "mailinator.com", "mailinator.com"],
    ["b.mailinator.com", "mailinator.com", "mailinator.com"],
    ["a.b.mailinator.com", "mailinator.com", "mailinator.com"],
    ["tmp.example-host.net", "example-host.net", "tmp.example-host.net"],
    ["x.tmp.example-host.net", "example-host.net", "tmp.example-host.net"],
    // A listed subdomain does not make its parent or siblings disposable.
    ["example-host.net", "example-host.net", undefined],
    ["other.example-host.net", "example-host.net", undefined],
    // Names that merely end in the same letters are other domains.
    ["notmailinator.com", "notmailinator.com", undefined],
    // The walk stops at the base domain: a listed "com" is never reached.
    ["example.com", "example.com", undefined],
  ])("disposable(%s, base %s) → %s", (domain, base, entry) => {
    expect(lists.disposable(domain, base)?.entry).toBe(entry);
  });

  it("reports the sources of the entry that matched", () => {
    expect(lists.disposable("a.b.mailinator.com", "mailinator.com")).toEqual({
      entry: "mailinator.com",
      name: null,
      sources: ["mailchecker"],
    });
  });

  it.each([
    ["free", "gmail.com", "gmail.com", "Gmail"],
    ["free", "mail.gmail.com", "gmail.com", "Gmail"],
    ["isp", "smtp.t-online.de", "t-online.de", "Telekom"],
    ["free", "gmail.com.evil.net", "evil.net", undefined],
    ["isp", "gmail.com", "gmail.com", undefined],
  ] as const)("category(%s, %s) → %s", (category, domain, base, name) => {
    expect(lists.domainFacts(domain, base).categories[category]?.name).toBe(name);
  });

  it("names curated entries by their file", () => {
    expect(lists.domainFacts("gmail.com", "gmail.com").categories.free?.sources).toEqual([
      "data/curated/free.txt",
    ]);
  });
});
