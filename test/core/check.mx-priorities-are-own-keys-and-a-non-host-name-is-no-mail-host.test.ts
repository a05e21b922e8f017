/**
 * `mx_priorities` is keyed by host name, and DNS allows any name: `__proto__`, which is no
 * host name (letters, digits, hyphens and dots only), is never taken as a mail host, and
 * names such as `constructor` stay own keys.
 */

import { expect, it } from "vitest";
import { TEST_NAMES_ON } from "../../harness/config.js";
import { MemoryResolver } from "../../harness/memory-resolver.js";
import { Zones } from "../../harness/zones.js";
import { checkDomain } from "../../src/core/check.js";
import { TypoIndex } from "../../src/core/typo.js";
import { loadDomainLists } from "../../src/data/read-domain-lists.js";

it("drops an exchange named __proto__ and keeps constructor.test as an own key of mx_priorities", async () => {
  const lists = loadDomainLists();
  const resolver = new MemoryResolver(
    new Zones({
      zones: ["test"],
      names: {
        "odd.test": { MX: ["10 __proto__.", "20 constructor.test.", "30 tostring.test."] },
        "constructor.test": { A: ["192.0.2.2"] },
        "tostring.test": { A: ["192.0.2.3"] },
      },
    }),
  );
  const { record } = await checkDomain("odd.test", {
    lists,
    typos: new TypoIndex(lists.popular),
    resolver,
    clock: () => new Date("2026-11-22T12:00:00Z"),
    ...TEST_NAMES_ON,
  });
  expect(record.mx_hosts).toEqual(["constructor.test", "tostring.test"]);
  expect(record.mx_host).toBe("constructor.test");
  expect(Object.keys(record.mx_priorities)).toEqual(["constructor.test", "tostring.test"]);
  expect(Object.hasOwn(record.mx_priorities, "__proto__")).toBe(false);
  expect(({} as Record<string, unknown>).constructor).toBe(Object);
  expect(JSON.parse(JSON.stringify(record)).mx_priorities).toEqual({
    "constructor.test": 20,
    "tostring.test": 30,
  });
  expect(JSON.stringify(record)).not.toContain("__proto__");
});
