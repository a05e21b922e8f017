/**
 * The provider categories (docs/api.md "The record", flags 9–15; docs/verdicts.md, main categories):
 * each defined once here, with everything the engine says of it. The curated lists,
 * the record's flags, `email_provider`, the main category and the soft signals all
 * derive from this table.
 */

export interface CategoryDefinition<Key extends string = string> {
  key: Key;
  /** Lower first: a domain's first listed category names its `email_provider` and main category. */
  precedence: number;
  /** The record's flag (docs/api.md "The record"). */
  flag:
    | "is_email_forwarder"
    | "is_public_free"
    | "is_public_premium"
    | "is_business_provider"
    | "is_isp_email"
    | "is_email_api"
    | "is_web_hosting_email";
  /**
   * Whether an MX on a provider of this category sets the flag too: always, never, or
   * only for a domain that is not itself a mailbox provider.
   */
  byMx: "always" | "never" | "unless-mailbox";
  /** A public mailbox provider's domain (free, premium, ISP): its own mail is no business mail. */
  mailbox: boolean;
  /** The `reason` of a clean (`ok`) record in this category. */
  mainCategory: string;
  /**
   * Whether the domain's own listing names the main category; email-API and forwarder
   * domains always carry a soft signal of 30 or more, so only an MX there names it.
   */
  listingNamesMainCategory: boolean;
}

/** In the record's flag order. */
const TABLE = [
  {
    key: "forwarder",
    precedence: 7,
    flag: "is_email_forwarder",
    byMx: "always",
    mailbox: false,
    mainCategory: "Forwarder",
    listingNamesMainCategory: false,
  },
  {
    key: "free",
    precedence: 1,
    flag: "is_public_free",
    byMx: "never",
    mailbox: true,
    mainCategory: "Public free provider",
    listingNamesMainCategory: true,
  },
  {
    key: "premium",
    precedence: 2,
    flag: "is_public_premium",
    byMx: "never",
    mailbox: true,
    mainCategory: "Public premium provider",
    listingNamesMainCategory: true,
  },
  {
    key: "business",
    precedence: 4,
    flag: "is_business_provider",
    byMx: "unless-mailbox",
    mailbox: false,
    mainCategory: "Business provider",
    listingNamesMainCategory: true,
  },
  {
    key: "isp",
    precedence: 3,
    flag: "is_isp_email",
    byMx: "never",
    mailbox: true,
    mainCategory: "ISP email",
    listingNamesMainCategory: true,
  },
  {
    key: "email_api",
    precedence: 5,
    flag: "is_email_api",
    byMx: "always",
    mailbox: false,
    mainCategory: "Email API",
    listingNamesMainCategory: false,
  },
  {
    key: "web_hosting",
    precedence: 6,
    flag: "is_web_hosting_email",
    byMx: "always",
    mailbox: false,
    mainCategory: "Web hosting email",
    listingNamesMainCategory: true,
  },
] as const satisfies readonly CategoryDefinition[];

export type ProviderCategory = (typeof TABLE)[number]["key"];

/** Every category, in the record's flag order. */
export const CATEGORIES: readonly CategoryDefinition<ProviderCategory>[] = TABLE;

export const PROVIDER_CATEGORIES: readonly ProviderCategory[] = CATEGORIES.map((c) => c.key);

/** The order in which a domain's categories name its `email_provider` and main category. */
export const PRECEDENCE: readonly CategoryDefinition<ProviderCategory>[] = [...CATEGORIES].sort(
  (a, b) => a.precedence - b.precedence,
);

export const CATEGORY: Readonly<Record<ProviderCategory, CategoryDefinition<ProviderCategory>>> =
  Object.freeze(Object.fromEntries(CATEGORIES.map((c) => [c.key, c])) as never);

/** One slot per category, in the record's flag order. */
export type PerCategory<T> = Record<ProviderCategory, T>;

/** Every category's slot empty (the lists hold most domains in none). */
export const NO_CATEGORIES: Readonly<PerCategory<undefined>> = Object.freeze(
  Object.fromEntries(PROVIDER_CATEGORIES.map((key) => [key, undefined])) as PerCategory<undefined>,
);

/** Whether any slot is filled. */
export function inAnyCategory(categories: Readonly<PerCategory<unknown>>): boolean {
  for (const { key } of CATEGORIES) if (categories[key] !== undefined) return true;
  return false;
}

/** Whether the domain is listed as a public mailbox provider (free, premium, ISP). */
function isMailbox(categories: Readonly<PerCategory<unknown>>): boolean {
  for (const { key, mailbox } of CATEGORIES) if (mailbox && categories[key] !== undefined) return true;
  return false;
}

/** The record's flag of a category: the domain's own listing, or its MX provider's category per `byMx`. */
export function hasCategory(
  definition: CategoryDefinition<ProviderCategory>,
  categories: Readonly<PerCategory<unknown>>,
  mxCategory: ProviderCategory | null | undefined,
): boolean {
  if (categories[definition.key] !== undefined) return true;
  if (mxCategory !== definition.key) return false;
  return definition.byMx === "always" || (definition.byMx === "unless-mailbox" && !isMailbox(categories));
}
