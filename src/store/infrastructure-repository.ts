/**
 * Evidence of mail infrastructure seen in traffic (docs/verdicts.md, "Learned
 * infrastructure"): written in batches by the evidence observer (src/service/checking/batched-observer.ts),
 * read by the learnt snapshot (src/service/checking/learned-snapshot.ts) and `mailrisk infra list`.
 */
import { type Kysely, sql } from "kysely";
import type { InfrastructureKind, ListedStatus } from "../core/learned.js";
import type {
  EvidenceEntry,
  InfrastructureRepository,
  InfrastructureSummary,
} from "./infrastructure-types.js";
import { lockOrder, type RowStatement, writeRounds } from "./row-statements.js";
import type { Database } from "./schema.js";

interface EvidenceRow {
  kind: InfrastructureKind;
  value: string;
  domain: string;
  listed: ListedStatus;
  service: string | null;
  seen: number;
  first_seen: number;
  last_seen: number;
}

/** One row per (kind, value, domain); a later sighting in the batch wins. */
function evidenceRows(entries: readonly EvidenceEntry[]): EvidenceRow[] {
  const rows = new Map<string, EvidenceRow>();
  for (const { evidence, seenAt } of entries) {
    const at = seenAt.getTime();
    const { domain, listed, service } = evidence;
    for (const [kind, values] of [
      ["mx_host", evidence.mxHosts],
      ["mx_ip", evidence.mxIps],
      ["ns", evidence.nameServers],
    ] as const) {
      for (const value of values) {
        rows.set(`${kind} ${value} ${domain}`, {
          kind,
          value,
          domain,
          listed,
          service,
          seen: 1,
          first_seen: at,
          last_seen: at,
        });
      }
    }
  }
  return [...rows.values()];
}

/** The evidence's insert: a sighting seen before counts once more, its listing and time the newest. */
const EVIDENCE: RowStatement<EvidenceRow> = {
  columns: ["kind", "value", "domain", "listed", "service", "seen", "first_seen", "last_seen"],
  build: (db, rows) =>
    db
      .insertInto("infrastructure_evidence")
      .values(rows as never)
      .onConflict((oc) =>
        oc.columns(["kind", "value", "domain"]).doUpdateSet((eb) => ({
          listed: eb.ref("excluded.listed"),
          service: eb.ref("excluded.service"),
          seen: sql<number>`infrastructure_evidence.seen + 1`,
          last_seen: eb.ref("excluded.last_seen"),
        })),
      ),
};

/**
 * A batch's evidence in statements of at most 32 rows, one transaction when more than
 * one, again when rolled back as a deadlock's victim (row-statements.ts); its rows in key
 * order, so that every instance locks them in one order.
 */
async function recordEvidence(db: Kysely<Database>, entries: readonly EvidenceEntry[]): Promise<void> {
  await writeRounds(db, EVIDENCE, [evidenceRows(entries).sort(byKey)]);
}

function byKey(a: EvidenceRow, b: EvidenceRow): number {
  return lockOrder(a.kind, b.kind) || lockOrder(a.value, b.value) || lockOrder(a.domain, b.domain);
}

interface SummaryRow {
  kind: string;
  value: string;
  disposable: number | string;
  good: number | string;
  unknown: number | string;
}

/**
 * Starts from the listed-disposable rows (index on listed, kind, value), so the query
 * grows with the disposable evidence, not with every domain ever seen; the counts of the
 * infrastructure that qualifies come from its primary-key range.
 */
async function listInfrastructure(
  db: Kysely<Database>,
  minDisposable: number,
): Promise<InfrastructureSummary[]> {
  const { rows } = await sql<SummaryRow>`
    select e.kind, e.value,
      sum(case when e.listed = 'disposable' then 1 else 0 end) as disposable,
      sum(case when e.listed = 'good' then 1 else 0 end) as good,
      sum(case when e.listed = 'unknown' then 1 else 0 end) as unknown
    from infrastructure_evidence e
    where (e.kind, e.value) in (
      select kind, value from infrastructure_evidence where listed = 'disposable'
      group by kind, value having count(*) >= ${minDisposable})
    group by e.kind, e.value
    order by e.kind, e.value`.execute(db);
  if (rows.length === 0) return [];
  const examples = await disposableExamples(db, minDisposable);
  return rows.map((row) => {
    const seen = examples.get(`${row.kind} ${row.value}`) ?? [];
    return {
      kind: row.kind as InfrastructureKind,
      value: row.value,
      disposable: Number(row.disposable),
      good: Number(row.good),
      unknown: Number(row.unknown),
      service: seen[0]?.service ?? null,
      examples: seen.slice(0, 5).map((s) => s.domain),
    };
  });
}

/** The listed disposable domains of qualifying infrastructure, most often seen first. */
async function disposableExamples(
  db: Kysely<Database>,
  minDisposable: number,
): Promise<Map<string, { domain: string; service: string | null }[]>> {
  const { rows } = await sql<{ kind: string; value: string; domain: string; service: string | null }>`
    select kind, value, domain, service from infrastructure_evidence
    where listed = 'disposable' and (kind, value) in (
      select kind, value from infrastructure_evidence where listed = 'disposable'
      group by kind, value having count(*) >= ${minDisposable})
    order by kind, value, seen desc, domain`.execute(db);
  const byInfrastructure = new Map<string, { domain: string; service: string | null }[]>();
  for (const row of rows) {
    const key = `${row.kind} ${row.value}`;
    const list = byInfrastructure.get(key) ?? [];
    list.push({ domain: row.domain, service: row.service });
    byInfrastructure.set(key, list);
  }
  return byInfrastructure;
}

async function domainsOn(
  db: Kysely<Database>,
  kind: InfrastructureKind,
  value: string,
  limit: number,
): Promise<string[]> {
  const rows = await db
    .selectFrom("infrastructure_evidence")
    .select("domain")
    .where("kind", "=", kind)
    .where("value", "=", value)
    .orderBy("domain")
    .limit(limit)
    .execute();
  return rows.map((row) => row.domain);
}

export function createInfrastructureRepository(db: Kysely<Database>): InfrastructureRepository {
  return {
    recordEvidence: (entries) => recordEvidence(db, entries),
    listInfrastructure: (minDisposable) => listInfrastructure(db, Math.max(1, minDisposable)),
    domainsOn: (kind, value, limit) => domainsOn(db, kind, value, limit),
  };
}
