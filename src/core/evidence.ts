/**
 * The evidence behind a verdict (docs/api.md "Evidence (`explain=true`)"), written once: the TypeBox schema of
 * each kind of item, the record with its evidence appended (`explain=true`), and one
 * example per kind. The items themselves are made by src/core/explain.ts from the same
 * signals and verdict basis that decided the record.
 */
import { type Static, Type } from "typebox";
import { nullable, timestampOptions } from "./schema-types.js";

/** One of some strings (a JSON Schema `enum` of `type: "string"`), with a description. */
function oneOf<const T extends string[]>(values: readonly [...T], description: string) {
  return Type.Enum<T>(values, { type: "string", description });
}

const detail = Type.String({ description: "One plain sentence for a person; the wording may change." });

const risk = Type.Optional(
  Type.Integer({
    minimum: 1,
    maximum: 100,
    description:
      "What this item added to the record's `risk`, present only when it changed the score; the items' `risk` add up to the record's.",
  }),
);

const hosts = (description: string) => Type.Array(Type.String(), { description });

/** The flags of the provider categories, self-hosting excepted. */
const CATEGORY_FLAGS = [
  "is_email_forwarder",
  "is_public_free",
  "is_public_premium",
  "is_business_provider",
  "is_isp_email",
  "is_email_api",
  "is_web_hosting_email",
] as const;

export const ListItemSchema = Type.Object(
  {
    kind: Type.Literal("list"),
    detail,
    list: oneOf(
      ["disposable", "reserved"],
      "Which list: the disposable-domain lists, or the names reserved by RFC 2606 and RFC 6761.",
    ),
    entry: Type.String({ description: "The list entry that matched: the domain itself or a parent." }),
    sources: Type.Array(
      Type.Object({
        name: Type.String({
          description: "The source that lists the entry (a package, a synced list, an RFC).",
        }),
        since: nullable<string>(
          "string",
          timestampOptions("When that source first listed it; null when unknown (the bundled lists)."),
        ),
      }),
      { description: "Every source that lists the entry." },
    ),
    flag: Type.Optional(Type.Literal("is_disposable")),
    risk,
  },
  { description: "The domain is on a list: disposable (`disposable`) or reserved (`reserved`)." },
);

export const InfrastructureItemSchema = Type.Object(
  {
    kind: Type.Literal("infrastructure"),
    detail,
    shared: Type.String({ description: "The MX host, MX address or name server the domain shares." }),
    shared_kind: oneOf(["mx_host", "mx_ip", "ns"], "What `shared` is."),
    service: Type.String({ description: "The disposable service it belongs to." }),
    learnt: Type.Boolean({
      description:
        "Learnt from traffic; false: curated disposable infrastructure or a host under a listed domain.",
    }),
    examples: Type.Array(Type.String(), {
      maxItems: 5,
      description: "Up to 5 known disposable domains on it.",
    }),
    flag: Type.Literal("is_disposable"),
    risk,
  },
  { description: "The domain's mail or DNS runs on disposable infrastructure (`heuristics`)." },
);

export const OverrideItemSchema = Type.Object(
  {
    kind: Type.Literal("override"),
    detail,
    scope: oneOf(
      ["operator", "account"],
      "Whose override: the operator's (every key), or the asking key's account's own list (its keys only; the operator's wins).",
    ),
    id: Type.String({
      description:
        "The override's id, `<kind>:<value>` (`domain:example.org`): overrides are kept per kind and value; an account's list entry's is `domain:<its domain>`.",
    }),
    action: oneOf(
      ["allow", "deny"],
      "What the operator or the account's list said of the domain (deny: block).",
    ),
    note: nullable<string>("string", {
      description: "The operator's note; null when none (always for an account's list).",
    }),
    risk,
  },
  {
    description:
      "The operator, or the asking key's account's own list, allowed or denied the domain (`denied`, or an `ok` verdict's `Operator override` or `Account list`).",
  },
);

export const DnsItemSchema = Type.Object(
  {
    kind: Type.Literal("dns"),
    detail,
    finding: oneOf(
      [
        "nxdomain",
        "null_mx",
        "no_mail",
        "mx_missing",
        "mx_private",
        "mx_unresolvable",
        "fallback",
        "dns_timeout",
        "dns_failure",
      ],
      "What DNS said: the domain does not exist; a null MX; neither MX nor A/AAAA; no MX host exists; the mail hosts have no public address; no MX host has an address; no MX, mail goes to the domain itself; DNS did not answer in time; DNS failed.",
    ),
    hosts: hosts("The MX hosts concerned; empty when none."),
    risk,
  },
  {
    description:
      "What DNS says of the domain's mail (`nxdomain`, `null_mx`, `no_mail`, `mx_missing`, `mx_private`, a DNS failure, and two soft signals).",
  },
);

export const ParkedItemSchema = Type.Object(
  {
    kind: Type.Literal("parked"),
    detail,
    service: Type.String({ description: "The parking service." }),
    shared: Type.String({ description: "The name server, MX host or address that points at it." }),
    shared_kind: oneOf(
      ["ns", "mx_host", "address"],
      "What `shared` is (`address`: the domain's own A/AAAA).",
    ),
    flag: Type.Literal("is_parked"),
    risk,
  },
  { description: "The domain is parked (`parked`)." },
);

export const AgeItemSchema = Type.Object(
  {
    kind: Type.Literal("age"),
    detail,
    created_at: Type.String(timestampOptions("When the base domain was registered.")),
    age_days: Type.Integer({ minimum: 0, description: "Whole days since then." }),
    risk,
  },
  { description: "A young domain: registered less than 30 days ago." },
);

export const TypoItemSchema = Type.Object(
  {
    kind: Type.Literal("typo"),
    detail,
    suggestions: hosts("The popular domains it is a slip away from (`possible_typo`)."),
    risk,
  },
  { description: "The domain looks like a typo of a popular one." },
);

export const RoleItemSchema = Type.Object(
  {
    kind: Type.Literal("role"),
    detail,
    flag: Type.Literal("is_role_based_email"),
    risk,
  },
  { description: "The address is a role account (only for an `email` input)." },
);

export const ProviderItemSchema = Type.Object(
  {
    kind: Type.Literal("provider"),
    detail,
    category: oneOf(
      [
        "forwarder",
        "free",
        "premium",
        "business",
        "isp",
        "email_api",
        "web_hosting",
        "mail_host",
        "known_good",
        "self_hosted",
        "unknown",
      ],
      "A provider category; `mail_host`: an MX provider of no category; `known_good`: a known legitimate domain; `self_hosted`: mail on its own servers; `unknown`: no list knows it.",
    ),
    provider: nullable<string>("string", { description: "The provider's name, when a list gives one." }),
    via: oneOf(["domain", "mx"], "Whether the domain's own listing says so, or its MX host's."),
    matched: Type.String({ description: "The list entry or MX host that matched; empty for `unknown`." }),
    lists: Type.Array(Type.String(), { description: "The lists that say so; empty for `unknown`." }),
    flag: Type.Optional(oneOf([...CATEGORY_FLAGS, "is_self_hosted"], "The flag this item sets.")),
    risk,
  },
  { description: "Who provides the domain's mail, and which list says so." },
);

/** One item of `evidence`; `kind` tells which. */
export const EvidenceItemSchema = Type.Union(
  [
    ListItemSchema,
    InfrastructureItemSchema,
    OverrideItemSchema,
    DnsItemSchema,
    ParkedItemSchema,
    AgeItemSchema,
    TypoItemSchema,
    RoleItemSchema,
    ProviderItemSchema,
  ],
  { description: "One piece of evidence behind the verdict." },
);

export type EvidenceItem = Static<typeof EvidenceItemSchema>;
export type EvidenceKind = EvidenceItem["kind"];
/** The item of one kind. */
export type EvidenceOf<K extends EvidenceKind> = Extract<EvidenceItem, { kind: K }>;

export const EvidenceSchema = Type.Array(EvidenceItemSchema, {
  description:
    "The evidence behind the verdict, only with `explain=true`: every answer with `block: true` has at least one item, every flag that is true has the item that set it (its `flag`), and the items' `risk` add up to the record's `risk`.",
});

/**
 * One example per kind, as the engine gives them for the domains of the loopback test
 * zones (test/core/explain.every-kind-over-the-wire.test.ts holds each to the engine);
 * docs/api.md "Evidence (`explain=true`)" shows them (`npm run docs:tables`).
 */
export const EVIDENCE_EXAMPLES: { readonly [K in EvidenceKind]: { input: string; item: EvidenceOf<K> } } = {
  list: {
    input: "mailinator.com",
    item: {
      kind: "list",
      detail:
        "mailinator.com is on 5 disposable-domain lists (burner-email-providers, @dahoom/disposable-email, disposable-email-domains, disposable-email-domains-js, mailchecker).",
      list: "disposable",
      entry: "mailinator.com",
      sources: [
        { name: "burner-email-providers", since: null },
        { name: "@dahoom/disposable-email", since: null },
        { name: "disposable-email-domains", since: null },
        { name: "disposable-email-domains-js", since: null },
        { name: "mailchecker", since: null },
      ],
      flag: "is_disposable",
      risk: 95,
    },
  },
  infrastructure: {
    input: "burner-catchall.test",
    item: {
      kind: "infrastructure",
      detail: "Its MX host mail.mailinator.com belongs to the disposable service mailinator.com.",
      shared: "mail.mailinator.com",
      shared_kind: "mx_host",
      service: "mailinator.com",
      learnt: false,
      examples: ["mailinator.com"],
      flag: "is_disposable",
      risk: 90,
    },
  },
  override: {
    input: "example-selfhosted.test",
    item: {
      kind: "override",
      detail: "The operator denied example-selfhosted.test: chargebacks.",
      scope: "operator",
      id: "domain:example-selfhosted.test",
      action: "deny",
      note: "chargebacks",
      risk: 100,
    },
  },
  dns: {
    input: "does-not-exist.test",
    item: {
      kind: "dns",
      detail: "DNS says does-not-exist.test does not exist (NXDOMAIN).",
      finding: "nxdomain",
      hosts: [],
      risk: 100,
    },
  },
  parked: {
    input: "parked-ns-only.test",
    item: {
      kind: "parked",
      detail: "Its name server ns1.bodis.com belongs to the parking service Bodis.",
      service: "Bodis",
      shared: "ns1.bodis.com",
      shared_kind: "ns",
      flag: "is_parked",
      risk: 85,
    },
  },
  age: {
    input: "fresh.test",
    item: {
      kind: "age",
      detail: "fresh.test was registered 3 days ago.",
      created_at: "2026-11-19T12:00:00+00:00",
      age_days: 3,
      risk: 50,
    },
  },
  typo: {
    input: "otlook.com",
    item: {
      kind: "typo",
      detail: "otlook.com looks like a typo of outlook.com.",
      suggestions: ["outlook.com"],
      risk: 45,
    },
  },
  role: {
    input: "admin@simplelogin.com",
    item: {
      kind: "role",
      detail: "The address is a role account (admin@, info@ …), not a person's mailbox.",
      flag: "is_role_based_email",
      risk: 10,
    },
  },
  provider: {
    input: "gmail.com",
    item: {
      kind: "provider",
      detail: "gmail.com is on the list of free mailbox providers as Gmail.",
      category: "free",
      provider: "Gmail",
      via: "domain",
      matched: "gmail.com",
      lists: ["data/curated/free.txt"],
      flag: "is_public_free",
    },
  },
};
