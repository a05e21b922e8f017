/** Cached records (docs/api.md "Storage and caching"): purged, the next check of each looks up afresh. */
import { type Static, Type } from "typebox";
import { parseDomain } from "../core/input.js";
import type { NameRules } from "../core/reserved-names.js";
import type { Store } from "../store/index.js";
import { type Actor, audited } from "./audit.js";
import { Refusal } from "./refusal.js";

export const PurgeBody = Type.Object({
  domains: Type.Optional(Type.Array(Type.String(), { minItems: 1, maxItems: 1000 })),
  all: Type.Optional(Type.Boolean()),
});
export const PurgedSchema = Type.Object({
  purged: Type.Integer({ description: "How many stored records were deleted." }),
});

/** Purges the named domains (`invalid_domain` for one that is not a domain) or, with `all`, every record. */
export async function purgeRecords(
  store: Pick<Store, "transaction">,
  { domains, all }: Static<typeof PurgeBody>,
  rules: NameRules,
  actor: Actor,
): Promise<Static<typeof PurgedSchema>> {
  if ((domains === undefined) === (all !== true))
    throw new Refusal("invalid_body", 'send either {"domains": ["example.com", …]} or {"all": true}');
  const normalised = domains?.map((value) => {
    const parsed = parseDomain(value, rules);
    if (!parsed.ok)
      throw new Refusal("invalid_domain", `"${value}" is not a domain: ${parsed.problem.detail}`);
    return parsed.input.domain;
  });
  const purge = async (trx: Store) => ({
    purged: normalised ? await trx.records.purgeRecords(normalised) : await trx.records.purgeAllRecords(),
  });
  return audited(store, actor, purge, ({ purged }) => ({
    action: "records.purge",
    entity: { kind: "records", id: null },
    detail: { domains: normalised ?? "all", purged },
  }));
}
