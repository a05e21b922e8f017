/**
 * Each account's own list: the repository's contract and rows, implemented in
 * src/store/account-lists-repository.ts.
 */

/** What an account's list says of a domain (docs/accounts.md "The account's list"). */
export type AccountListAction = "block" | "allow";

export interface AccountListEntry {
  /** Normalised, as the operator's domain overrides are. */
  domain: string;
  action: AccountListAction;
  createdAt: Date;
}

/** Each account's own allow and block list; every change raises the account's list version. */
export interface AccountListsRepository {
  /** The account's entries by domain, and the version of its list they are (0: never changed). */
  listEntries(accountId: string): Promise<{ version: number; entries: AccountListEntry[] }>;
  /**
   * One page of the account's entries by domain: those whose domain contains `search`
   * (every one: null), from `offset`, at most `limit`; with how many the list holds and how many match.
   */
  findEntries(
    accountId: string,
    filter: { search: string | null; offset: number; limit: number },
  ): Promise<{ total: number; matching: number; entries: AccountListEntry[] }>;
  /** How many entries the account's list holds. */
  countEntries(accountId: string): Promise<number>;
  /** Adds an entry or replaces the action of the domain's; `AccountListFullError` for a new one beyond `maxEntries`. */
  setEntry(accountId: string, entry: AccountListEntry, maxEntries: number): Promise<AccountListEntry>;
  /** Whether there was one to remove. */
  removeEntry(accountId: string, domain: string): Promise<boolean>;
  /** Adds or replaces every entry at once, or none (`AccountListFullError` beyond `maxEntries`); how many were given. */
  importEntries(accountId: string, entries: readonly AccountListEntry[], maxEntries: number): Promise<number>;
  /** The version of each of these accounts' lists; an account whose list never changed is absent. */
  versions(accountIds: readonly string[]): Promise<Map<string, number>>;
}
