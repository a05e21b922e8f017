import { describe, expect, it } from "vitest";
import { parseCuratedLists, readCuratedLists } from "../../src/data/curated.js";
import { DATA_DIR } from "../../src/data/read-domain-lists.js";

function parseWith(file: string, content: string) {
  return () => parseCuratedLists((name) => (name === file ? content : ""));
}

describe("curated lists", () => {
  it("reads names with spaces, comments and blank lines", () => {
    const lists = parseCuratedLists((file) =>
      file === "mx-providers.txt"
        ? "# header\n\ngoogle.com  business  Google Workspace  # https://support.google.com\nexample.net\t-\tSome Host\n"
        : "",
    );
    expect(lists.mxProviders).toEqual([
      { suffix: "google.com", provider: { name: "Google Workspace", category: "business" } },
      { suffix: "example.net", provider: { name: "Some Host", category: null } },
    ]);
  });

  it.each([
    ["free.txt", "gmail.com\n", "data/curated/free.txt:1: expected 2 fields, found 1: gmail.com"],
    [
      "free.txt",
      "# x\nGmail.com  Gmail\n",
      'data/curated/free.txt:2: "Gmail.com" is not a domain in normal form',
    ],
    [
      "free.txt",
      "gmail.com  Gmail\ngmail.com  Gmail\n",
      'data/curated/free.txt:2: "gmail.com" is listed twice',
    ],
    [
      "mx-providers.txt",
      "google.com  cloud  Google\n",
      'data/curated/mx-providers.txt:1: "cloud" is not a category',
    ],
    [
      "parking-ips.txt",
      "999.1.1.1  Sedo\n",
      'data/curated/parking-ips.txt:1: "999.1.1.1" is not an IP address',
    ],
    [
      "popular.txt",
      "münchen.de\n",
      'data/curated/popular.txt:1: "münchen.de" is not a domain in normal form',
    ],
  ])("%s with %j fails: %s", (file, content, message) => {
    expect(parseWith(file, content)).toThrow(message);
  });

  it("bundles well-formed lists with a typo target list of about 60+ domains", () => {
    const lists = readCuratedLists(DATA_DIR);
    expect(lists.popular).toContain("gmail.com");
    expect(lists.popular.length).toBeGreaterThanOrEqual(60);
    expect(lists.knownGoodSuffixes).toEqual(
      expect.arrayContaining(["edu", "gov", "ac.uk", "ac.jp", "edu.au"]),
    );
  });
});
