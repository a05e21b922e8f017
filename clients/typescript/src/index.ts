/** The mailrisk client for servers and browsers (docs/clients.md). */

export { DEFAULT_TIMEOUT_MS, MailRisk, type MailRiskOptions } from "./mail-risk.js";
export { type ClientErrorCode, MailRiskError } from "./mail-risk-error.js";
export type {
  BulkResult,
  Checked,
  CheckedRecord,
  CheckOutcome,
  CheckRecord,
  EvidenceItem,
  Problem,
  ProblemCode,
  Unknown,
  Usage,
} from "./types.js";
