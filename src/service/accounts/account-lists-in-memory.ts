/**
 * The accounts' own lists as this process holds them (docs/accounts.md "The account's
 * list"): a key of an account answers from its account's list in memory, a map look-up,
 * never a database read per request. A list is read once, when a key of its account first
 * asks (concurrent askers share the read), and kept in a bounded LRU; the change signal
 * (`account_lists`) drops only the lists whose version moved, so every instance answers
 * from the new list on the next request after the next poll.
 */
import { LRUCache } from "lru-cache";
import type { AccountList, AccountOverride, DomainOverride } from "../../core/learned.js";
import type { AccountListAction, AccountListsRepository } from "../../store/index.js";
import { InFlight } from "../shared/in-flight.js";

/** The accounts' lists held at most, counted in entries (one for an empty list). */
const ENTRIES_HELD = 500_000;
/** Lists held at most. */
const LISTS_HELD = 5_000;

const WORD: Record<AccountListAction, DomainOverride> = { block: "deny", allow: "allow" };

/** One account's list as the check sees it: its entry of a domain, else of the domain's base domain. */
export class AccountDomains implements AccountList {
  /**
   * The answers this list gave, by the domain's answer without it: that answer is a new
   * object whenever the domain's facts or the sources change, and this list is replaced
   * when the account's list changes, so a kept answer is never stale.
   */
  readonly answers = new WeakMap<object, unknown>();

  constructor(
    /** The version of the list these entries are (the store's). */
    readonly version: number,
    private readonly entries: ReadonlyMap<string, DomainOverride>,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  entryFor(domain: string, baseDomain: string): AccountOverride | undefined {
    const own = this.entries.get(domain);
    if (own !== undefined) return { value: domain, action: own };
    const base = this.entries.get(baseDomain);
    return base === undefined ? undefined : { value: baseDomain, action: base };
  }
}

export class AccountListsInMemory {
  private readonly lists = new LRUCache<string, AccountDomains>({
    max: LISTS_HELD,
    maxSize: ENTRIES_HELD,
    sizeCalculation: (list) => list.size + 1,
  });
  private readonly reading = new InFlight<AccountDomains>();
  /** Raised by every change signal: a read begun before it is not kept. */
  private generation = 0;

  constructor(private readonly repository: Pick<AccountListsRepository, "listEntries" | "versions">) {}

  /** The account's list when this process holds it; undefined: `load()` it. */
  held(accountId: string): AccountDomains | undefined {
    return this.lists.get(accountId);
  }

  /** The account's list, read from the store (one read per account at a time) and held. */
  async load(accountId: string): Promise<AccountDomains> {
    for (;;) {
      const generation = this.generation;
      const list = await this.reading.share(`${generation} ${accountId}`, () => this.read(accountId));
      // A change came while it was read: read again, it may be the list that changed.
      if (generation === this.generation) {
        this.lists.set(accountId, list);
        return list;
      }
    }
  }

  private async read(accountId: string): Promise<AccountDomains> {
    const { version, entries } = await this.repository.listEntries(accountId);
    return new AccountDomains(version, new Map(entries.map((entry) => [entry.domain, WORD[entry.action]])));
  }

  /** Some account's list changed (the change signal): drops the held lists whose version moved; never rejects. */
  async reloadAfterChange(): Promise<void> {
    this.generation++;
    const held = [...this.lists.keys()];
    if (held.length === 0) return;
    try {
      const versions = await this.repository.versions(held);
      for (const accountId of held) {
        const list = this.lists.peek(accountId);
        if (list !== undefined && list.version !== (versions.get(accountId) ?? 0))
          this.lists.delete(accountId);
      }
    } catch {
      // Which list changed is unknown: none held is trusted; each is read again when next asked.
      this.lists.clear();
    }
  }
}
