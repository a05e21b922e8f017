import { describe, expect, it } from "vitest";
import { loadDomainLists } from "../../src/data/read-domain-lists.js";

describe("role-based local parts (role-based-email-addresses)", () => {
  const lists = loadDomainLists();

  it.each([
    ["admin", true],
    ["Admin", true],
    ["INFO", true],
    ["info+newsletter", true],
    ["support+ticket-42", true],
    ["noreply", true],
    ["no-reply", true],
    ["postmaster", true],
    ["john.smith", false],
    ["jane", false],
    ["john+admin", false],
    ["", false],
  ])("%s → %s", (local, expected) => {
    expect(lists.isRoleLocalPart(local)).toBe(expected);
  });
});
