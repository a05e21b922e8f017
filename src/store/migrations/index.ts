/**
 * Every migration, as code, in order of their names. Add a new file and a new entry
 * with the next number; never change one that has shipped.
 */
import type { Migration } from "kysely";
import { up as initial } from "./0001-initial.js";
import { up as adminAndHousekeeping } from "./0002-admin-and-housekeeping.js";
import { up as recordVerdict } from "./0003-record-verdict.js";
import { up as infrastructureEvidence } from "./0004-infrastructure-evidence.js";
import { up as readinessProbe } from "./0005-readiness-probe.js";
import { up as evidenceLastSeen } from "./0006-evidence-last-seen.js";
import { up as recordFactsAndChanges } from "./0007-record-facts-and-changes.js";
import { up as syncedLists } from "./0008-synced-lists.js";
import { up as reports } from "./0009-reports.js";
import { up as webhooks } from "./0010-webhooks.js";
import { up as publishableKeys } from "./0011-publishable-keys.js";
import { up as recentFromPagesOnly } from "./0012-recent-from-pages-only.js";
import { up as listPolicy } from "./0013-list-policy.js";
import { up as auditLog } from "./0014-audit-log.js";
import { up as accounts } from "./0015-accounts.js";
import { up as listJobs } from "./0016-list-jobs.js";
import { up as accountLists } from "./0017-account-lists.js";
import { up as jobBatches } from "./0018-job-batches.js";
import { up as accountSecrets } from "./0019-account-secrets.js";
import { up as loginGuard } from "./0020-login-guard.js";
import { up as jobFileNames } from "./0021-job-file-names.js";
import { up as jobFaultsAndPauses } from "./0022-job-faults-and-pauses.js";
import { up as trafficCounts } from "./0023-traffic-counts.js";
import { up as accountOwnedJobs } from "./0024-account-owned-jobs.js";
import { up as accountDailyUsage } from "./0025-account-daily-usage.js";
import { up as quotaReceipts } from "./0026-quota-receipts.js";
import { up as packedJobResults } from "./0027-packed-job-results.js";

export const migrations: Record<string, Migration> = {
  "0001_initial": { up: initial },
  "0002_admin_and_housekeeping": { up: adminAndHousekeeping },
  "0003_record_verdict": { up: recordVerdict },
  "0004_infrastructure_evidence": { up: infrastructureEvidence },
  "0005_readiness_probe": { up: readinessProbe },
  "0006_evidence_last_seen": { up: evidenceLastSeen },
  "0007_record_facts_and_changes": { up: recordFactsAndChanges },
  "0008_synced_lists": { up: syncedLists },
  "0009_reports": { up: reports },
  "0010_webhooks": { up: webhooks },
  "0011_publishable_keys": { up: publishableKeys },
  "0012_recent_from_pages_only": { up: recentFromPagesOnly },
  "0013_list_policy": { up: listPolicy },
  "0014_audit_log": { up: auditLog },
  "0015_accounts": { up: accounts },
  "0016_list_jobs": { up: listJobs },
  "0017_account_lists": { up: accountLists },
  "0018_job_batches": { up: jobBatches },
  "0019_account_secrets": { up: accountSecrets },
  "0020_login_guard": { up: loginGuard },
  "0021_job_file_names": { up: jobFileNames },
  "0022_job_faults_and_pauses": { up: jobFaultsAndPauses },
  "0023_traffic_counts": { up: trafficCounts },
  "0024_account_owned_jobs": { up: accountOwnedJobs },
  "0025_account_daily_usage": { up: accountDailyUsage },
  "0026_quota_receipts": { up: quotaReceipts },
  "0027_packed_job_results": { up: packedJobResults },
};
