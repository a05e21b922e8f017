/** The answers of the client, made of the server's wire types (wire-types.generated.ts). */
import type { MailRiskError } from "./mail-risk-error.js";
import type { CheckRecord, EvidenceItem, Problem } from "./wire-types.generated.js";

export type { ProblemCode } from "./mail-risk-error.js";
export type { CheckRecord, EvidenceItem, Problem, Usage } from "./wire-types.generated.js";

/** The record `check()` answers: `evidence` follows only when `explain` was asked. */
export type CheckedRecord = CheckRecord & { evidence?: EvidenceItem[] };

/** A check that was answered: the record itself, with `outcome: "checked"`. */
export type Checked = CheckedRecord & { outcome: "checked" };

/**
 * With `failOpen`: the service did not answer in time, answered a 5xx, or could not be
 * reached. None of the record's fields is there, so `result.block` reads `undefined`
 * (falsy: the sign-up goes through) without narrowing on `outcome` first.
 */
export type Unknown = { [Field in keyof CheckedRecord]?: undefined } & {
  outcome: "unknown";
  /** Why: its `code` is `timeout`, `unreachable`, or the 5xx's problem code. */
  error: MailRiskError;
};

/** What `check()` resolves to: only `Checked` unless the client fails open. */
export type CheckOutcome<FailOpen extends boolean> = FailOpen extends true ? Checked | Unknown : Checked;

/** One result of `bulk()`, in the order of the items: the record, or the problem of that item. */
export type BulkResult = { input: string } & (CheckedRecord | Problem);
