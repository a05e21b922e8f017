/**
 * The zero false positive promise, end to end through checkDomain: every domain of the
 * held-back sample test/fixtures/known-good.txt (big providers, universities,
 * governments, companies, public suffixes), given working mail DNS, is valid, not
 * blocked and not disposable — whichever way its mail is hosted; and the parser takes
 * every one of them as a public name.
 */

import { describe, expect, it } from "vitest";
import { TEST_NAMES_ON } from "../../harness/config.js";
import { keepsKnownGoodPromise, readKnownGoodSample } from "../../harness/known-good-sample.js";
import { checkAsMailDomains, MAIL_SETUPS } from "../../harness/mail-zones.js";
import { parseDomain } from "../../src/core/input.js";
import { loadDomainLists } from "../../src/data/read-domain-lists.js";

describe("known-good domains are never blocked or disposable", () => {
  const lists = loadDomainLists();
  const sample = readKnownGoodSample().map((entry) => entry.domain);

  it("the sample covers providers, universities and public suffixes", () => {
    expect(sample.length).toBeGreaterThanOrEqual(300);
    expect(sample).toEqual(
      expect.arrayContaining(["gmail.com", "mit.edu", "ox.ac.uk", "co.uk", "github.io"]),
    );
  });

  it("every domain of the sample is a public name the parser takes", () => {
    expect(sample.filter((domain) => !parseDomain(domain, TEST_NAMES_ON).ok)).toEqual([]);
  });

  it.each(MAIL_SETUPS)("with MX on %s", async (setup) => {
    const records = await checkAsMailDomains(sample, lists, setup);
    const offenders = [...records.values()]
      .filter((record) => !keepsKnownGoodPromise(record))
      .map((record) => `${record.domain}: ${record.text} (${record.reason}, risk ${record.risk})`);
    expect(offenders).toEqual([]);
  });
});
