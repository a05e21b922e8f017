/**
 * The mailbox an address delivers to (docs/accounts.md "One account per mailbox"): what
 * sign-up, invitations and email changes compare so that one mailbox holds one account.
 * A sub-address tag (`+tag`) is dropped for every address; Gmail (gmail.com and its old
 * name googlemail.com, one mailbox for both) ignores the dots of the local part too.
 */

/** The providers that ignore dots in the local part, with the domain their mail lands at. */
const DOTLESS_PROVIDERS: ReadonlyMap<string, string> = new Map([
  ["gmail.com", "gmail.com"],
  ["googlemail.com", "gmail.com"],
]);

/**
 * The mailbox of an address already in its stored form (lower case, one `@`): the local
 * part without its `+tag` (and without dots at Gmail), at the delivering domain.
 */
export function mailboxOf(email: string): string {
  const at = email.lastIndexOf("@");
  if (at <= 0) return email;
  const domain = email.slice(at + 1);
  let local = email.slice(0, at);
  const plus = local.indexOf("+");
  if (plus > 0) local = local.slice(0, plus);
  const delivering = DOTLESS_PROVIDERS.get(domain);
  if (delivering === undefined) return `${local}@${domain}`;
  const dotless = local.replaceAll(".", "");
  return `${dotless === "" ? local : dotless}@${delivering}`;
}
