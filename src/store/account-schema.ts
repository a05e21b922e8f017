/** The tables of accounts (docs/accounts.md) as Kysely sees them: their logins, counts, lists and one-time secrets. */
import type { ColumnType } from "kysely";
import type { Millis } from "./columns.js";

/** An account's own list (migration 0017, src/store/account-lists-repository.ts). */
export interface AccountListsTable {
  account_id: string;
  domain: string;
  /** `block` or `allow`. */
  action: string;
  created_at: Millis;
}

/** The version of each account's list, raised by every change of it. */
export interface AccountListVersionsTable {
  account_id: string;
  version: number;
}

/** An account's own units per UTC day, its console uploads' (migration 0025). */
export interface AccountDailyUsageTable {
  account_id: string;
  day: Millis;
  used: number;
}

/** People who log in (migration 0015, src/store/accounts-repository.ts). */
export interface AccountsTable {
  id: string;
  email: string;
  password_hash: string | null;
  role: string;
  plan: string;
  state: string;
  created_at: Millis;
  /** The mailbox the email delivers to (src/core/mailbox.ts), unique (migration 0019). */
  mailbox: string | null;
}

/** The quota count of an account's keys, one row per account and period. */
export interface AccountUsageTable {
  account_id: string;
  period_start: Millis;
  used: number;
}

export interface SessionsTable {
  hash: string;
  account_id: string;
  csrf: string;
  last_seen_at: Millis;
  created_at: Millis;
}

/** A pending sign-up, reset or invitation: a mailed code or a one-time link. */
export interface AccountTicketsTable {
  hash: string;
  kind: string;
  email: string;
  code_hash: string | null;
  tries_left: number;
  expires_at: Millis;
  payload: string;
}

/** Secrets the server made for itself (migration 0019). */
export interface ServerSecretsTable {
  name: string;
  value: string;
}

/** The password a browser chose at sign-up, waiting for the code (migration 0019). */
export interface PendingSignupsTable {
  hash: string;
  email: string;
  password_hash: string;
  plan: string;
  expires_at: Millis;
}

/** Mails and codes sent to one mailbox in the hour from `window_start` (migration 0019). */
export interface MailBudgetTable {
  mailbox: string;
  window_start: Millis;
  mails: number;
  codes: number;
}

/** Failed log-ins counted in a window (migration 0020, src/store/login-throttle-repository.ts). */
export interface LoginThrottleTable {
  subject: string;
  failures: number;
  window_start: Millis;
  locked_until: ColumnType<number | string | null, number | null, number | null>;
}

/** An account's TOTP secret, a set-up waiting for its code, and the last time step taken. */
export interface TwoFactorTable {
  account_id: string;
  secret: string | null;
  pending_secret: string | null;
  pending_expires_at: ColumnType<number | string | null, number | null, number | null>;
  last_step: ColumnType<number | string | null, number | null, number | null>;
}

export interface RecoveryCodesTable {
  account_id: string;
  hash: string;
}

/** A log-in whose password was right, waiting for its code. */
export interface PendingLoginsTable {
  hash: string;
  account_id: string;
  via: string;
  code_hash: string | null;
  tries_left: number;
  expires_at: Millis;
}

/** The accounts' tables, part of `Database` (schema.ts). */
export interface AccountTables {
  accounts: AccountsTable;
  account_usage: AccountUsageTable;
  sessions: SessionsTable;
  account_tickets: AccountTicketsTable;
  server_secrets: ServerSecretsTable;
  pending_signups: PendingSignupsTable;
  mail_budget: MailBudgetTable;
  login_throttle: LoginThrottleTable;
  two_factor: TwoFactorTable;
  recovery_codes: RecoveryCodesTable;
  pending_logins: PendingLoginsTable;
  account_daily_usage: AccountDailyUsageTable;
  account_lists: AccountListsTable;
  account_list_versions: AccountListVersionsTable;
}
