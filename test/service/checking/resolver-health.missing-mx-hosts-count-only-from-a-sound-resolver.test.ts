/**
 * Row 2a ("MX host does not exist") rests on NXDOMAIN answers for every MX host: from a
 * resolver the canary found broken they are failures, so the domain is a temporary DNS
 * failure (row 7), never condemned.
 */

import { describe, expect, it } from "vitest";
import { TEST_NAMES_ON } from "../../../harness/config.js";
import { MemoryResolver } from "../../../harness/memory-resolver.js";
import { type NameFixture, Zones } from "../../../harness/zones.js";
import { lookupMailRouting } from "../../../src/core/mail-routing.js";
import { CANARY_DOMAINS } from "../../../src/service/checking/create-checker.js";
import { GuardedResolver, ResolverHealth } from "../../../src/service/checking/resolver-health.js";

describe("MX hosts that do not exist, behind the resolver canary", () => {
  it.each([
    ["sound: the canaries have MX", true, "mx_missing"],
    ["broken: the canaries are denied", false, "dns_failure"],
  ] as const)("%s → %s", async (_what, canariesAnswer, status) => {
    const names: Record<string, NameFixture> = {
      "domain.test": { MX: ["10 gone1.domain.test", "20 gone2.domain.test"] },
    };
    if (canariesAnswer) for (const canary of CANARY_DOMAINS) names[canary] = { MX: ["10 mx.canary.test"] };
    const inner = new MemoryResolver(new Zones({ zones: ["."], names }));
    const resolver = new GuardedResolver(
      inner,
      new ResolverHealth({ resolver: inner, canaries: CANARY_DOMAINS }),
    );
    expect((await lookupMailRouting("domain.test", "domain.test", resolver, TEST_NAMES_ON)).status).toBe(
      status,
    );
  });
});
