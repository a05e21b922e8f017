/**
 * The zero false positive promise, end to end through checkDomain: every domain of the
 * held-back sample test/fixtures/known-good.txt (big providers, universities,
 * governments, companies, public suffixes), given working mail DNS, is valid, not
 * blocked and not disposable — whichever way its mail is hosted.
 */
import { describe, expect, it } from "vitest";
import { type CheckDeps, checkDomain } from "../../src/core/check.js";
import { TypoIndex } from "../../src/core/typo.js";
import { loadDomainLists } from "../../src/data/domain-lists.js";
import { readKnownGoodSample } from "../support/known-good-sample.js";
import { type MailSetup, mailZones } from "../support/mail-zones.js";
import { MemoryResolver } from "../support/memory-resolver.js";

describe("known-good domains are never blocked or disposable", () => {
  const lists = loadDomainLists();
  const typos = new TypoIndex(lists.popular);
  const sample = readKnownGoodSample().map((entry) => entry.domain);

  it("the sample covers providers, universities and public suffixes", () => {
    expect(sample.length).toBeGreaterThanOrEqual(300);
    expect(sample).toEqual(
      expect.arrayContaining(["gmail.com", "mit.edu", "ox.ac.uk", "co.uk", "github.io"]),
    );
  });

  it.each<MailSetup>(["google-workspace", "own-server"])("with MX on %s", async (setup) => {
    const deps: CheckDeps = {
      lists,
      typos,
      resolver: new MemoryResolver(mailZones(sample, setup)),
      clock: () => new Date("2025-01-01T00:00:00Z"),
    };
    const offenders: string[] = [];
    for (const domain of sample) {
      const record = await checkDomain(domain, deps);
      if (!record.valid || record.block || record.is_disposable) {
        offenders.push(`${domain}: ${record.text} (${record.reason}, risk ${record.risk})`);
      }
    }
    expect(offenders).toEqual([]);
  });
});
