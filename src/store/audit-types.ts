/** The audit log: the repository's contract and rows, implemented in src/store/audit-repository.ts. */

/** One change an operator made, as the audit log keeps it. */
export interface AuditEntry {
  id: string;
  at: Date;
  /** `cli`, `admin-token` or an account's email. */
  actor: string;
  /** `<entity>.<verb>`, such as `key.revoke`. */
  action: string;
  entityKind: string;
  entityId: string | null;
  detail: Record<string, unknown>;
}

/** What an audit search asks: each given field must match; `action` without a dot names a family (`key` is `key.*`). */
export interface AuditSearch {
  actor?: string | undefined;
  action?: string | undefined;
  entityKind?: string | undefined;
  entityId?: string | undefined;
  limit: number;
}

/** The audit log (src/store/audit-repository.ts): written after each operator change, searched newest first. */
export interface AuditRepository {
  record(entry: Omit<AuditEntry, "id">): Promise<AuditEntry>;
  search(search: AuditSearch): Promise<AuditEntry[]>;
}
