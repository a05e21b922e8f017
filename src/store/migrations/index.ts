/**
 * Every migration, as code, in order of their names. Add a new file and a new entry
 * with the next number; never change one that has shipped.
 */
import type { Migration } from "kysely";
import * as initial from "./0001-initial.js";
import * as adminAndHousekeeping from "./0002-admin-and-housekeeping.js";
import * as recordVerdict from "./0003-record-verdict.js";
import * as infrastructureEvidence from "./0004-infrastructure-evidence.js";
import * as readinessProbe from "./0005-readiness-probe.js";
import * as evidenceLastSeen from "./0006-evidence-last-seen.js";
import * as recordFactsAndChanges from "./0007-record-facts-and-changes.js";
import * as syncedLists from "./0008-synced-lists.js";
import * as reports from "./0009-reports.js";
import * as webhooks from "./0010-webhooks.js";
import * as publishableKeys from "./0011-publishable-keys.js";
import * as recentFromPagesOnly from "./0012-recent-from-pages-only.js";
import * as listPolicy from "./0013-list-policy.js";
import * as listJobs from "./0020-list-jobs.js";

export const migrations: Record<string, Migration> = {
  "0001_initial": initial,
  "0002_admin_and_housekeeping": adminAndHousekeeping,
  "0003_record_verdict": recordVerdict,
  "0004_infrastructure_evidence": infrastructureEvidence,
  "0005_readiness_probe": readinessProbe,
  "0006_evidence_last_seen": evidenceLastSeen,
  "0007_record_facts_and_changes": recordFactsAndChanges,
  "0008_synced_lists": syncedLists,
  "0009_reports": reports,
  "0010_webhooks": webhooks,
  "0011_publishable_keys": publishableKeys,
  "0012_recent_from_pages_only": recentFromPagesOnly,
  "0013_list_policy": listPolicy,
  "0020_list_jobs": listJobs,
};
