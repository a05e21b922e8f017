/**
 * The operator's overrides (docs/api.md "Administration"): allow or deny a domain, or
 * mark an MX host, MX address or name server never disposable. Verdicts are decided
 * when answering, so one holds on the next answer of every server (the change signal).
 */
import { type Static, Type } from "typebox";
import { parseDomain } from "../core/input.js";
import { infrastructureValue, type OverrideKind } from "../core/learned.js";
import { formatTimestamp } from "../core/record.js";
import type { NameRules } from "../core/reserved-names.js";
import { noteOptions, nullable, Timestamp } from "../core/schema-types.js";
import { applyOverride, InvalidOverrideError } from "../service/checking/apply-override.js";
import type { Override, Store } from "../store/index.js";
import { type Actor, audited } from "./audit.js";
import { Refusal } from "./refusal.js";

const OverrideKindSchema = Type.Union(
  [Type.Literal("domain"), Type.Literal("mx_host"), Type.Literal("mx_ip"), Type.Literal("ns")],
  { description: "What is overridden: a domain, an MX host name, an MX host's address, a name server." },
);
const OverrideValue = Type.String({
  minLength: 1,
  maxLength: 253,
  description: "The domain, host name or address.",
});
export const OverrideTargetBody = Type.Object({ kind: OverrideKindSchema, value: OverrideValue });
export const OverrideBody = Type.Object({
  kind: OverrideKindSchema,
  value: OverrideValue,
  action: Type.Union([Type.Literal("allow"), Type.Literal("deny"), Type.Literal("never_disposable")], {
    description: "allow or deny (a domain); never_disposable (infrastructure).",
  }),
  note: Type.Optional(nullable<string>("string", noteOptions(200))),
});
export const OverrideSchema = Type.Object({
  kind: OverrideKindSchema,
  value: Type.String(),
  action: Type.String(),
  note: nullable<string>("string"),
  created_at: Timestamp,
});
export type OverrideJson = Static<typeof OverrideSchema>;
export const RemovedSchema = Type.Object({
  removed: Type.Boolean({ description: "Whether there was an override to remove." }),
});

type OverrideStore = Pick<Store, "overrides" | "transaction">;

function overrideJson(override: Override): OverrideJson {
  return {
    kind: override.kind,
    value: override.value,
    action: override.action,
    note: override.note,
    created_at: formatTimestamp(override.createdAt),
  };
}

/**
 * The value as the check sees it: a normalised domain (`invalid_domain`), or a lower-case
 * host or an address.
 */
function normalisedValue(kind: OverrideKind, value: string, rules: NameRules): string {
  if (kind !== "domain") {
    const infrastructure = infrastructureValue(kind, value);
    if (!infrastructure.ok) throw new Refusal("invalid_body", infrastructure.problem);
    return infrastructure.value;
  }
  const parsed = parseDomain(value, rules);
  if (!parsed.ok) throw new Refusal("invalid_domain", `"${value}" is not a domain: ${parsed.problem.detail}`);
  return parsed.input.domain;
}

export async function listOverrides(store: Pick<Store, "overrides">): Promise<OverrideJson[]> {
  return (await store.overrides.listOverrides()).map(overrideJson);
}

/**
 * Sets an override, replacing one of the same target; `invalid_body` for an action its
 * kind does not take.
 */
export async function setOverride(
  store: OverrideStore,
  { kind, value, action, note }: Static<typeof OverrideBody>,
  now: Date,
  rules: NameRules,
  actor: Actor,
): Promise<OverrideJson> {
  const override = {
    kind,
    value: normalisedValue(kind, value, rules),
    action,
    note: note ?? null,
    createdAt: now,
  };
  const apply = async (trx: Store): Promise<Override> => {
    try {
      return await applyOverride(trx, override);
    } catch (error) {
      if (error instanceof InvalidOverrideError) throw new Refusal("invalid_body", error.message);
      throw error;
    }
  };
  return audited(store, actor, apply, (saved) => ({
    action: "override.set",
    entity: { kind: "override", id: `${saved.kind}:${saved.value}` },
    detail: { action, note: saved.note },
  })).then(overrideJson);
}

export async function removeOverride(
  store: OverrideStore,
  { kind, value }: Static<typeof OverrideTargetBody>,
  rules: NameRules,
  actor: Actor,
): Promise<Static<typeof RemovedSchema>> {
  const target = normalisedValue(kind, value, rules);
  return audited(
    store,
    actor,
    async (trx) => ({ removed: await trx.overrides.removeOverride(kind, target) }),
    ({ removed }) =>
      removed
        ? { action: "override.remove", entity: { kind: "override", id: `${kind}:${target}` } }
        : undefined,
  );
}
