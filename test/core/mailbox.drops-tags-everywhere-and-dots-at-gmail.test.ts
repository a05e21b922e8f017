/**
 * One account per mailbox (docs/accounts.md): the mailbox an address delivers to drops a
 * `+tag` for every address, and the dots of the local part at Gmail (gmail.com and
 * googlemail.com, one mailbox for both); everything else is the address itself.
 */
import { describe, expect, it } from "vitest";
import { mailboxOf } from "../../src/core/mailbox.js";

describe("mailboxOf", () => {
  it.each([
    ["carol+a@gmail.com", "carol@gmail.com"],
    ["c.a.r.o.l+b@gmail.com", "carol@gmail.com"],
    ["c.a.r.o.l@googlemail.com", "carol@gmail.com"],
    ["carol+news+more@example.com", "carol@example.com"],
    ["first.last@example.com", "first.last@example.com"],
    ["first.last+x@outlook.com", "first.last@outlook.com"],
    ["ann@example.com", "ann@example.com"],
  ])("%s is the mailbox %s", (email, mailbox) => {
    expect(mailboxOf(email)).toBe(mailboxOf(mailbox));
    expect(mailboxOf(email)).toBe(mailbox);
  });

  it("keeps a local part that is only a tag or only dots, and a domain that merely ends like Gmail's", () => {
    expect(mailboxOf("+tag@example.com")).toBe("+tag@example.com");
    expect(mailboxOf("...@gmail.com")).toBe("...@gmail.com");
    expect(mailboxOf("c.arol@notgmail.com")).toBe("c.arol@notgmail.com");
    expect(mailboxOf("c.arol@mail.gmail.com")).toBe("c.arol@mail.gmail.com");
  });
});
