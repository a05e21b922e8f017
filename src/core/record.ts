/**
 * The domain check record (docs/api.md "The record"), written once: the TypeBox schema of the full
 * shape, its fields in the contract's order, each with its description and, for the
 * `is_*` flags, the label a person reads. The record's type, the simple shape of the
 * gateway route, the field lists and the flag labels derive from it.
 */
import { type Static, type TBoolean, Type } from "typebox";
import { nullable, timestampOptions } from "./schema-types.js";

/** An `is_*` flag: a boolean with the label a person reads, as JSON Schema's `title`. */
function flag(label: string, description: string) {
  return Type.Boolean({ title: label, description }) as TBoolean & { title: string };
}

/** A list of strings. */
function strings(description: string) {
  return Type.Array(Type.String(), { description });
}

/** The full shape: the record as `POST /v2/`, the bulk route and the CLI give it. */
export const CheckRecordSchema = Type.Object(
  {
    valid: Type.Boolean({
      description:
        "False when the domain does not exist, publishes a null MX or has neither MX nor A/AAAA; a temporary DNS failure leaves it true.",
    }),
    block: Type.Boolean({ description: "Recommendation to block sign-ups from the domain." }),
    domain: Type.String({ description: "The normalised (ASCII) domain that was checked." }),
    base_domain: Type.String({ description: "Registrable domain (Public Suffix List, ICANN section)." }),
    text: Type.String({ description: "Status text, fixed vocabulary (docs/api.md, “Verdicts”)." }),
    reason: Type.String({ description: "Short reason, fixed vocabulary (docs/api.md, “Verdicts”)." }),
    risk: Type.Integer({
      minimum: 0,
      maximum: 100,
      description: "Risk score: LOW 0–29, MEDIUM 30–69, HIGH 70–100.",
    }),
    is_disposable: flag("Disposable", "Disposable / temporary domain (listed, or by heuristics)."),
    is_email_forwarder: flag("Email forwarder", "Forwarding / relay service, or MX on one; not disposable."),
    is_public_free: flag("Free mailbox provider", "Public free mailbox provider."),
    is_public_premium: flag("Paid mailbox provider", "Public paid mailbox provider."),
    is_business_provider: flag(
      "Business provider",
      "Listed business provider, or MX at a business mail provider for a domain that is no public mailbox provider.",
    ),
    is_isp_email: flag("ISP email", "An ISP's mail domain."),
    is_email_api: flag("Email API service", "Email-API service domain, or MX on one."),
    is_web_hosting_email: flag(
      "Web hosting email",
      "Web host's mail domain, or MX on a web host's mail service.",
    ),
    is_self_hosted: flag(
      "Self-hosted",
      "MX under the domain's own base domain (or the fallback to the domain) matching no known provider; never for a parked domain.",
    ),
    is_parked: flag("Parked", "NS, MX or A on a parking service."),
    is_role_based_email: flag(
      "Role account",
      "Only for an email input: the local part before any +tag is a role (admin, info, …).",
    ),
    mx_host: Type.String({
      description:
        "Preferred MX host (lowest priority, ties by name); with fallback the domain itself; empty when none.",
    }),
    mx_ip: Type.String({ description: "First address of `mx_host`, IPv4 before IPv6; empty when none." }),
    mx_info: Type.String({
      description: "How the MX was chosen, fixed vocabulary (docs/api.md, “The record”).",
    }),
    mx_fallback: Type.Boolean({
      description: "True when there is no MX record and the domain's own A/AAAA is used.",
    }),
    mx_hosts: strings("Every MX host, by priority then name."),
    mx_ips: strings("Distinct addresses of the MX hosts, in host order, IPv4 before IPv6 per host."),
    mx_priorities: Type.Unsafe<Record<string, number>>(
      Type.Object(
        {},
        {
          additionalProperties: Type.Integer(),
          description: 'MX host → priority; with fallback `{"<domain>": 0}`.',
        },
      ),
    ),
    email_provider: Type.String({
      description: "The domain's own listed provider name, else the provider its MX matches, else empty.",
    }),
    disposable_provider: nullable<string>("string", {
      description:
        "The disposable list entry that matched, or for heuristics the disposable service seen; null when not disposable.",
    }),
    possible_typo: strings("Suggested domains when this one looks misspelt."),
    domain_age_days: nullable<number>("integer", {
      description: "Whole days from `domain_created_at` to the check; null when unknown.",
    }),
    domain_created_at: nullable<string>(
      "string",
      timestampOptions("Registration time of `base_domain` (RDAP, else WHOIS); null when unknown."),
    ),
    block_status_changed_at: Type.String(
      timestampOptions("The last time `block` changed value for this domain; the first check sets it."),
    ),
  },
  { description: "Domain check record, full shape." },
);

/** The domain check record, full shape (docs/api.md "The record"). */
export type CheckRecord = Static<typeof CheckRecordSchema>;

/** The full shape's fields, in the contract's order. */
export const FULL_FIELDS = Object.keys(CheckRecordSchema.properties) as (keyof CheckRecord)[];

/** One of the record's `is_*` flags. */
export type Flag = Extract<keyof CheckRecord, `is_${string}`>;

/** The `is_*` flags, in the record's order. */
export const FLAGS: readonly Flag[] = FULL_FIELDS.filter((field): field is Flag => field.startsWith("is_"));

/** The label a person reads for a flag. */
export function flagLabel(flag: Flag): string {
  return CheckRecordSchema.properties[flag].title;
}

/** Each field of the simple shape, in its order, and the full shape's field it shows (docs/api.md "The record"). */
const SIMPLE_SOURCES = {
  valid: "valid",
  block: "block",
  disposable: "is_disposable",
  domain: "domain",
  text: "text",
  reason: "reason",
  risk: "risk",
  mx_host: "mx_host",
  possible_typo: "possible_typo",
  mx_ip: "mx_ip",
  mx_info: "mx_info",
  last_changed_at: "block_status_changed_at",
} as const satisfies Record<string, keyof CheckRecord>;

type SimpleSources = typeof SIMPLE_SOURCES;
type FullProperties = (typeof CheckRecordSchema)["properties"];

/** The simple shape: SIMPLE_SOURCES's full fields under their simple names, in its order. */
export const SimpleRecordSchema = Type.Object(
  Object.fromEntries(
    Object.entries(SIMPLE_SOURCES).map(([name, field]) => [name, CheckRecordSchema.properties[field]]),
  ) as { -readonly [Name in keyof SimpleSources]: FullProperties[SimpleSources[Name]] },
  { description: "Domain check record, simple shape of the gateway route." },
);

/** The gateway route's shape (docs/api.md "The record", simple shape). */
export type SimpleRecord = Static<typeof SimpleRecordSchema>;

/** The simple shape's fields, in its order. */
export const SIMPLE_FIELDS = Object.keys(SIMPLE_SOURCES) as (keyof SimpleRecord)[];

/** SIMPLE_SOURCES as pairs, for the copying of `toSimpleRecord`. */
const SIMPLE_FIELD_SOURCES = Object.entries(SIMPLE_SOURCES) as [keyof SimpleRecord, keyof CheckRecord][];

/** The simple shape of a full record. */
export function toSimpleRecord(record: CheckRecord): SimpleRecord {
  const simple: Record<string, unknown> = {};
  for (const [name, field] of SIMPLE_FIELD_SOURCES) simple[name] = record[field];
  return simple as SimpleRecord;
}

/** The last second formatted: every check of a busy second stamps the same text. */
let lastSecond = Number.NaN;
let lastText = "";

/** docs/api.md "The record" timestamps: ISO 8601, seconds precision, numeric offset (`+00:00`). */
export function formatTimestamp(date: Date): string {
  const second = Math.floor(date.getTime() / 1000);
  if (second !== lastSecond) {
    lastText = `${date.toISOString().slice(0, 19)}+00:00`;
    lastSecond = second;
  }
  return lastText;
}
