/** `POST /admin/records/purge` (docs/api.md §10): drop cached records; the next check of each is fresh. */
import { parseDomain } from "../../core/input.js";
import type { NameRules } from "../../core/reserved-names.js";
import { HttpProblem } from "../problems.js";
import type { TypedApp } from "../typed-app.js";
import type { AdminDeps } from "./deps.js";
import { ADMIN_ROUTE, adminResponses, PurgeBody, PurgedSchema } from "./schemas.js";

/** Room for 1,000 domains of the longest kind. */
const PURGE_BODY_LIMIT_BYTES = 512 * 1024;

/** The domains as the cache stores them (normalised ASCII); 400 `invalid_domain` for one that is not a domain. */
function normalisedDomains(raw: readonly string[], rules: NameRules): string[] {
  return raw.map((value) => {
    const parsed = parseDomain(value, rules);
    if (!parsed.ok)
      throw new HttpProblem("invalid_domain", `"${value}" is not a domain: ${parsed.problem.detail}`);
    return parsed.input.domain;
  });
}

export function adminRecordRoutes(app: TypedApp, { store, settle, testNames }: AdminDeps): void {
  app.post(
    "/admin/records/purge",
    {
      bodyLimit: PURGE_BODY_LIMIT_BYTES,
      schema: {
        ...ADMIN_ROUTE,
        summary: 'Drop cached records: {"domains": [...]} or {"all": true}',
        description:
          "The next check of a purged domain is a fresh look-up: at once on this server, within a second on every other process and instance. The recently checked list is kept.",
        body: PurgeBody,
        response: adminResponses(200, PurgedSchema, [400]),
      },
    },
    async (request) => {
      const { domains, all } = request.body;
      if ((domains === undefined) === (all !== true)) {
        throw new HttpProblem(
          "invalid_body",
          'Send either {"domains": ["example.com", …]} or {"all": true}.',
        );
      }
      const purged = domains
        ? await store.records.purgeRecords(normalisedDomains(domains, { testNames }))
        : await store.records.purgeAllRecords();
      await settle();
      return { purged };
    },
  );
}
