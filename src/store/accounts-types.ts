/**
 * Accounts, their sessions and tickets: the repository's contract and rows, implemented in
 * src/store/accounts-repository.ts.
 */
import type { ApiKey } from "./keys-types.js";

export type AccountRole = "member" | "operator";

export type AccountState = "active" | "suspended";

/** A person who logs in (docs/accounts.md). */
export interface Account {
  id: string;
  /** Lower-case; the login. */
  email: string;
  role: AccountRole;
  /** The plan all its keys count against, together. */
  plan: string;
  state: AccountState;
  createdAt: Date;
}

/** An account as logging in sees it. */
export interface AccountLogin extends Account {
  passwordHash: string | null;
}

/** A pending sign-up, reset or invitation: a mailed code (tries counted) or a one-time link. */
export interface AccountTicket {
  /** HMAC of the link's token, or of the kind and email for a code. */
  hash: string;
  kind: "signup" | "reset" | "invite";
  email: string;
  /** HMAC of a mailed code; null for a link. */
  codeHash: string | null;
  triesLeft: number;
  expiresAt: Date;
  /** What an invited account gets: plan and role. */
  payload: { plan?: string; role?: AccountRole };
}

/** The password a browser chose at sign-up, waiting for the mailed code. */
export interface PendingSignup {
  /** HMAC of the email and the browser's form token. */
  hash: string;
  email: string;
  passwordHash: string;
  plan: string;
  expiresAt: Date;
}

/** A live session: its account, the CSRF token of its forms and when it began. */
export interface FoundSession {
  account: Account;
  csrf: string;
  createdAt: Date;
}

/** Accounts, their sessions and tickets (docs/accounts.md). */
export interface AccountsRepository {
  /**
   * Creates an account and its first secret key (`AccountExistsError` when the email or
   * the mailbox has one, `UnknownPlanError`).
   */
  createAccount(input: {
    email: string;
    passwordHash: string | null;
    role: AccountRole;
    plan: string;
    now: Date;
  }): Promise<{ account: Account; key: ApiKey; secret: string }>;
  /** Newest first, at most `limit`; with `search`, those whose email contains it. */
  listAccounts(filter: { search: string | null; limit: number }): Promise<Account[]>;
  getAccount(id: string): Promise<Account | undefined>;
  findLogin(email: string): Promise<AccountLogin | undefined>;
  /** The account of a mailbox (src/core/mailbox.ts), whatever email it signed up with. */
  findMailbox(mailbox: string): Promise<Account | undefined>;
  /** Suspends or resumes (`UnknownAccountError`); a suspension ends its sessions. */
  setState(id: string, state: AccountState): Promise<Account>;
  /** Moves the account and its keys to a plan (`UnknownPlanError`, `UnknownAccountError`). */
  setPlan(id: string, plan: string): Promise<Account>;
  /** Deletes the account with its keys, sessions and counts; false when unknown. */
  deleteAccount(id: string): Promise<boolean>;
  setPassword(id: string, passwordHash: string): Promise<void>;
  createSession(input: { hash: string; accountId: string; csrf: string; now: Date }): Promise<void>;
  /**
   * The session while seen after `idleSince` and begun after `bornSince` (and marks it
   * seen at `now`).
   */
  findSession(hash: string, now: Date, idleSince: Date, bornSince: Date): Promise<FoundSession | undefined>;
  deleteSession(hash: string): Promise<void>;
  /** Ends every session of the account ("log out everywhere"), but the one of `except`; how many. */
  deleteSessions(accountId: string, except?: string): Promise<number>;
  /** The secret the server made for itself at first start under `name` (never logged). */
  serverSecret(name: string): Promise<string>;
  /** Saves a ticket unless a live one of its hash exists; whether it was saved. */
  issueTicket(ticket: AccountTicket, now: Date): Promise<boolean>;
  /** Forgets a ticket (one issued but never mailed). */
  deleteTicket(hash: string): Promise<void>;
  /** The live ticket of a hash, left as it is; undefined when unknown, used or expired. */
  peekTicket(hash: string, now: Date): Promise<AccountTicket | undefined>;
  /**
   * Judges a code in one statement: spends a try of the live ticket (none left: not
   * judged, undefined) and, for the right code, all of them; `matched` says which.
   */
  spendCode(
    hash: string,
    codeHash: string,
    now: Date,
  ): Promise<{ ticket: AccountTicket; matched: boolean } | undefined>;
  /** Uses a link's ticket up in one statement: the ticket for the one caller that got it. */
  spendLink(hash: string, now: Date): Promise<AccountTicket | undefined>;
  /** Saves what a browser chose at sign-up, replacing that browser's earlier choice. */
  savePendingSignup(pending: PendingSignup): Promise<void>;
  /** Takes (deletes and returns) a live pending sign-up in one statement. */
  takePendingSignup(hash: string, now: Date): Promise<PendingSignup | undefined>;
  /**
   * Counts a mail (a code when `code`) to a mailbox in its hour (which began after `since`,
   * or begins now); the mails and codes of the hour with this one, and when the hour
   * began, in one statement.
   */
  countMail(
    mailbox: string,
    now: Date,
    since: Date,
    code: boolean,
  ): Promise<{ mails: number; codes: number; windowStart: Date }>;
}
