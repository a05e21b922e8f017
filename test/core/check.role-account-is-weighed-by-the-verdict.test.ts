/**
 * The per-address step: a role account's weight is weighed on top of the domain's
 * verdict by decide(), so text, reason, risk, block and status agree (docs/api.md "Verdicts",
 * docs/verdicts.md: "Looks okay" only below 30). The domain's check is decided from its
 * facts (`decideDomain`, as the record cache does on every answer) and stays the
 * domain's.
 */

import { describe, expect, it } from "vitest";
import { TEST_NAMES_ON } from "../../harness/config.js";
import { type DomainCheck, type DomainFacts, decideDomain, forAddress } from "../../src/core/check.js";
import type { ParsedInput } from "../../src/core/input.js";
import type { MailRouting } from "../../src/core/mail-routing.js";
import { TypoIndex } from "../../src/core/typo.js";
import { listed, listsFrom } from "../data/lists-from.js";

const NOW = new Date("2026-11-22T12:00:00Z");
const DAY = 86_400_000;
const lists = listsFrom({
  roles: ["admin"],
  curated: { "free.txt": "freebox-mail.net  Freebox Mail\n", "popular.txt": "gmail.com\n" },
  disposable: [listed("throwaway-box.net")],
});
const sources = { lists, typos: new TypoIndex(lists.popular), ...TEST_NAMES_ON };

/** MX on the domain's own host, answered: a working self-hosted domain. */
function ownMx(domain: string): MailRouting {
  return {
    status: "mx",
    hosts: [{ host: `mx.${domain}`, priority: 10, ips: ["192.0.2.1"] }],
    nameServers: [`ns1.${domain}`],
    addresses: [],
  };
}

/** MX on a host no list knows, outside the domain. */
const elsewhere: MailRouting = {
  status: "mx",
  hosts: [{ host: "mx.mailhost-unknown.net", priority: 10, ips: ["192.0.2.7"] }],
  nameServers: ["ns1.mailhost-unknown.net"],
  addresses: [],
};

const address = (domain: string, localPart: string): ParsedInput => ({ kind: "email", domain, localPart });

type Seen = [status: string, risk: number, block: boolean, text: string, reason: string];

describe("admin@ at a domain: domain check from its facts, then the role account, then decide()", () => {
  it.each<[string, string, DomainFacts, Seen, Seen]>([
    [
      "fallback MX (25) crosses into row 8, named by the domain's heaviest signal",
      "acme-widgets.com",
      {
        routing: {
          status: "fallback",
          hosts: [{ host: "acme-widgets.com", priority: 0, ips: ["192.0.2.1"] }],
          nameServers: ["ns1.acme-widgets.com"],
          addresses: ["192.0.2.1"],
        },
        createdAt: null,
      },
      ["ok", 25, false, "Looks okay", "Self-hosted"],
      ["risky", 35, false, "No MX record, mail goes to the domain itself", "Fallback MX"],
    ],
    [
      "20 days old (25) crosses into row 8",
      "acme-widgets.com",
      { routing: ownMx("acme-widgets.com"), createdAt: new Date(NOW.getTime() - 20 * DAY) },
      ["ok", 25, false, "Looks okay", "Self-hosted"],
      ["risky", 35, false, "Newly registered domain", "Domain age < 30 days"],
    ],
    [
      "unknown domain (10) stays clean",
      "acme-widgets.com",
      { routing: elsewhere, createdAt: null },
      ["ok", 10, false, "Looks okay", "Valid domain"],
      ["ok", 20, false, "Looks okay", "Valid domain"],
    ],
    [
      "free provider (0) stays clean",
      "freebox-mail.net",
      { routing: ownMx("freebox-mail.net"), createdAt: null },
      ["ok", 0, false, "Looks okay", "Public free provider"],
      ["ok", 10, false, "Looks okay", "Public free provider"],
    ],
    [
      "typo (55) keeps its text",
      "gmial.com",
      { routing: elsewhere, createdAt: null },
      ["risky", 55, false, "Possible typo of a popular domain", "Possible typo"],
      ["risky", 65, false, "Possible typo of a popular domain", "Possible typo"],
    ],
    [
      "DNS timeout at 79 goes over the block threshold",
      "gmial.com",
      { routing: { status: "dns_timeout", hosts: [], nameServers: null, addresses: [] }, createdAt: null },
      ["dns_timeout", 79, false, "Could not be checked right now", "DNS timeout"],
      ["dns_timeout", 89, true, "Could not be checked right now", "DNS timeout"],
    ],
    [
      "listed disposable caps at 100",
      "throwaway-box.net",
      { routing: ownMx("throwaway-box.net"), createdAt: null },
      ["disposable", 95, true, "Disposable / temporary domain", "Disposable"],
      ["disposable", 100, true, "Disposable / temporary domain", "Disposable"],
    ],
    [
      "NXDOMAIN is not raised",
      "acme-widgets.com",
      { routing: { status: "nxdomain", hosts: [], nameServers: [], addresses: [] }, createdAt: null },
      ["nxdomain", 100, true, "Domain does not exist", "NXDOMAIN"],
      ["nxdomain", 100, true, "Domain does not exist", "NXDOMAIN"],
    ],
  ])("%s", (_what, domain, facts, before, after) => {
    const check = decideDomain(domain, facts, sources, NOW);
    const seen = (c: DomainCheck): Seen => [
      c.status,
      c.record.risk,
      c.record.block,
      c.record.text,
      c.record.reason,
    ];
    expect(seen(check)).toEqual(before);
    const admin = forAddress(check, address(domain, "admin"), lists);
    expect(seen(admin)).toEqual(after);
    expect(admin.record.is_role_based_email).toBe(true);
    // block_status_changed_at stays the domain's.
    expect(admin.record.block_status_changed_at).toBe(check.record.block_status_changed_at);
    // The domain's check is untouched; a person's address sees it as is.
    expect(check.record.is_role_based_email).toBe(false);
    expect(forAddress(check, address(domain, "jane.doe"), lists)).toBe(check);
  });
});
