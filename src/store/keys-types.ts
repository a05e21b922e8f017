/** API keys: the repository's contract and rows, implemented in src/store/keys-repository.ts. */

export interface ApiKey {
  id: string;
  /** First characters of the secret (e.g. `mr_3kP9`), safe to show and log. */
  prefix: string;
  name: string | null;
  plan: string;
  createdAt: Date;
  revokedAt: Date | null;
  /** A publishable (`mrp_`) key: only the checking routes, only from its origins (docs/security.md). */
  publishable: boolean;
  /** The web origins a publishable key may be used from, normalised; empty for a secret key. */
  origins: string[];
  /** The account that owns the key (docs/accounts.md); null for a key the operator made. */
  accountId: string | null;
  /** A rolled key stops working then (its successor took its place); null: only revocation ends it. */
  expiresAt: Date | null;
}

/** Keys (docs/api.md "Keys, plans, quotas"): created, listed, revoked and counted by the CLI and the server's first start. */
export interface KeysRepository {
  /** Creates a key; the secret is returned once and only its hash is stored. */
  createKey(input: {
    plan: string;
    name?: string | null;
    now: Date;
    /** A publishable key with at least one origin; a secret key takes none (`InvalidOriginsError`). */
    publishable?: boolean;
    origins?: readonly string[];
    /** The owning account: the key draws from its count. */
    accountId?: string | null;
  }): Promise<{ key: ApiKey; secret: string }>;
  listKeys(): Promise<ApiKey[]>;
  /** The keys of one account, revoked ones included, oldest first. */
  accountKeys(accountId: string): Promise<ApiKey[]>;
  getKey(id: string): Promise<ApiKey | undefined>;
  revokeKey(id: string, now: Date): Promise<boolean>;
  /** A new key in a live one's place; the old one works until `until` (`UnknownKeyError`, also for a rolled one). */
  rollKey(id: string, now: Date, until: Date): Promise<{ key: ApiKey; secret: string }>;
  /** Moves a key to another plan (`UnknownKeyError`, `UnknownPlanError`); revoked keys too. */
  setKeyPlan(id: string, plan: string): Promise<ApiKey>;
  /** Replaces a publishable key's origins (`UnknownKeyError`, `InvalidOriginsError`, also for a secret key). */
  setKeyOrigins(id: string, origins: readonly string[]): Promise<ApiKey>;
  /** Every key ever created, revoked ones included. */
  countKeys(): Promise<number>;
}
