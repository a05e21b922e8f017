/** `suffixFacts` answers in one look-up what `baseDomainOf` and `isPublicSuffix` answer in two. */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { baseDomainOf, isPublicSuffix, suffixFacts } from "../../src/core/names.js";
import { GENERATED_FILES, parseGeneratedFile } from "../../src/data/generated.js";
import { DATA_DIR } from "../../src/data/read-domain-lists.js";

const EDGES = [
  "example.com",
  "mail.example.co.uk",
  "co.uk",
  "uk",
  "com",
  "github.io",
  "someone.github.io",
  "a.b.someone.github.io",
  "blogspot.com",
  "x.blogspot.com",
  "s3.amazonaws.com",
  "bucket.s3.amazonaws.com",
  "ox.ac.uk",
  "foo.test",
  "a.b.foo.test",
  "xn--mnchen-3ya.de",
  "kawasaki.jp",
  "city.kawasaki.jp",
  "x.city.kawasaki.jp",
];

describe("suffixFacts", () => {
  it.each(EDGES)("%s", (name) => {
    expect(suffixFacts(name)).toEqual({
      baseDomain: baseDomainOf(name),
      isPublicSuffix: isPublicSuffix(name),
    });
  });

  it("agrees on every bundled disposable domain and a subdomain of each", () => {
    const file = GENERATED_FILES.disposable;
    const names = [...parseGeneratedFile(readFileSync(join(DATA_DIR, file), "utf8"), file).sources.keys()];
    expect(names.length).toBeGreaterThan(10_000);
    for (const name of names.flatMap((entry) => [entry, `mx.${entry}`])) {
      const { baseDomain, isPublicSuffix: suffix } = suffixFacts(name);
      if (baseDomain !== baseDomainOf(name) || suffix !== isPublicSuffix(name)) {
        expect.fail(`${name}: ${JSON.stringify(suffixFacts(name))}`);
      }
    }
  });
});
