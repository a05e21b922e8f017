/** `mailrisk records purge` (docs/api.md "CLI"): adapts src/operator/records.ts. */
import { CLI_ACTOR } from "../operator/audit.js";
import { purgeRecords } from "../operator/records.js";
import { commandRunner, usageError } from "./arguments.js";
import { TAKEN_BY_RUNNING_SERVERS } from "./context.js";
import { withStore } from "./with-store.js";

export const run = commandRunner("records", {
  purge: async (given, ctx) => {
    const all = given.flag("all");
    const domains = given.words;
    if (!all && domains.length === 0)
      return usageError(
        ctx,
        "records purge needs the domains to purge, or --all for every record",
        given.usage,
      );
    if (all && domains.length > 0) {
      const got = `got --all and ${domains.join(" ")}`;
      return usageError(ctx, `records purge takes domains or --all, not both (${got})`, given.usage);
    }
    const { purged } = await withStore(ctx, (store) =>
      purgeRecords(store, all ? { all } : { domains }, ctx.config, CLI_ACTOR),
    );
    ctx.stdout.write(
      `Purged ${purged} cached record${purged === 1 ? "" : "s"}. ${TAKEN_BY_RUNNING_SERVERS}\n`,
    );
    return 0;
  },
});
