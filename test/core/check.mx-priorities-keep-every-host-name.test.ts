/** `mx_priorities` is keyed by host name, and DNS allows any name: also `__proto__`. */

import { expect, it } from "vitest";
import { TEST_NAMES_ON } from "../../harness/config.js";
import { MemoryResolver } from "../../harness/memory-resolver.js";
import { Zones } from "../../harness/zones.js";
import { checkDomain } from "../../src/core/check.js";
import { TypoIndex } from "../../src/core/typo.js";
import { loadDomainLists } from "../../src/data/read-domain-lists.js";

it("keeps a host named __proto__ as an own key of mx_priorities", async () => {
  const lists = loadDomainLists();
  const resolver = new MemoryResolver(
    new Zones({
      zones: ["test"],
      names: {
        "odd.test": { MX: ["10 __proto__.", "20 constructor.test."] },
        "constructor.test": { A: ["192.0.2.2"] },
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
  expect(record.mx_hosts).toEqual(["__proto__", "constructor.test"]);
  expect(Object.keys(record.mx_priorities)).toEqual(["__proto__", "constructor.test"]);
  expect(JSON.parse(JSON.stringify(record)).mx_priorities).toEqual({
    ["__proto__"]: 10,
    "constructor.test": 20,
  });
});
