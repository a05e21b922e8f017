/**
 * The eleven `is_*` flags, `email_provider` and `disposable_provider` (docs/api.md "The record",
 * docs/verdicts.md "Flags"), from the bundled lists and real DNS answers of the loopback
 * server. Each row names exactly the flags that must be true; every other flag must be
 * false, so a flag set by mistake fails as surely as one missing.
 *
 * Each look-up races the resolver's time-out, which the engine stretches by the machine's
 * pace (engine-over-the-wire.ts): an answering name answers before it on a loaded machine too.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FLAGS, type Flag } from "../../src/core/record.js";
import { type EngineOverTheWire, startEngine, trueFlags } from "./engine-over-the-wire.js";

let engine: EngineOverTheWire;

beforeAll(async () => {
  engine = await startEngine();
});
afterAll(() => engine.close());

/** [input, the flags that are true, email_provider, disposable_provider]. */
type Row = [string, Flag[], string, string | null];

const ROWS: Row[] = [
  // is_disposable: listed (the entry that matched), or heuristics (the service seen).
  ["mailinator.com", ["is_disposable", "is_self_hosted"], "", "mailinator.com"],
  ["deep.sub.fakeinbox.com", ["is_disposable", "is_self_hosted"], "", "fakeinbox.com"],
  ["emailondeck.com", ["is_disposable"], "", "emailondeck.com"],
  ["burner-catchall.test", ["is_disposable"], "", "mailinator.com"],
  ["relay-to-throwaway.test", ["is_disposable"], "", "throwawaymail.com"],
  // is_email_forwarder: listed service, or MX on a forwarding service; never disposable.
  ["simplelogin.com", ["is_email_forwarder"], "SimpleLogin", null],
  ["cf-routed.test", ["is_email_forwarder"], "Cloudflare Email Routing", null],
  // is_public_free: the domain is listed; its own name wins over the MX provider's.
  ["gmail.com", ["is_public_free"], "Gmail", null],
  ["email.com", ["is_public_free"], "mail.com", null],
  // is_public_premium (posteo.de also runs its own MX).
  ["posteo.de", ["is_public_premium", "is_self_hosted"], "Posteo", null],
  // is_business_provider: MX on a business mail provider, or a listed business domain.
  ["google-hosted.test", ["is_business_provider"], "Google Workspace", null],
  ["eu.google-hosted.test", ["is_business_provider"], "Google Workspace", null],
  ["contoso.onmicrosoft.com", ["is_business_provider"], "Microsoft 365", null],
  // is_isp_email
  ["t-online.de", ["is_isp_email"], "Telekom (T-Online)", null],
  // is_email_api: a listed email-API domain, or MX on an email API.
  ["sendgrid.net", ["is_email_api"], "SendGrid", null],
  ["inbound-parse.test", ["is_email_api"], "Mailgun", null],
  // is_web_hosting_email
  ["hostinger-customer.test", ["is_web_hosting_email"], "Hostinger", null],
  // is_self_hosted: MX under the domain's own base domain, or the fallback to the domain.
  ["example-selfhosted.test", ["is_self_hosted"], "", null],
  ["mx-is-domain.test", ["is_self_hosted"], "", null],
  ["fallback.test", ["is_self_hosted"], "", null],
  ["münchen.de", ["is_self_hosted"], "", null],
  // is_parked: NS (and MX) on a parking service; a parked domain is never self-hosted,
  // not even when its mail falls back to its own address (which the parking service serves).
  ["parked-domain.test", ["is_parked"], "", null],
  ["parked-ns-only.test", ["is_parked"], "", null],
  // is_role_based_email: only for an address with a role local part.
  ["admin@gmail.com", ["is_public_free", "is_role_based_email"], "Gmail", null],
  ["jane.doe@gmail.com", ["is_public_free"], "Gmail", null],
  // None: MX at a gateway of no known provider.
  ["third-party-mx.test", [], "", null],
  ["gm.com", [], "", null],
  // Invalid and unchecked domains carry no flag.
  ["does-not-exist.test", [], "", null],
  ["null-mx.test", [], "", null],
  ["timeout.test", [], "", null],
  // A reserved name is never disposable, whatever its MX.
  ["example.org", [], "", null],
];

describe("flags, email_provider and disposable_provider over the wire", () => {
  it.each(ROWS)("%s → %j", async (input, flags, provider, disposableProvider) => {
    const record = await engine.check(input);
    expect(trueFlags(record)).toEqual(FLAGS.filter((flag) => flags.includes(flag)));
    expect(record.email_provider).toBe(provider);
    expect(record.disposable_provider).toBe(disposableProvider);
  });

  it("sets each of the eleven flags for at least one domain of the table", () => {
    const covered = new Set(ROWS.flatMap(([, flags]) => flags));
    expect(FLAGS.filter((flag) => !covered.has(flag))).toEqual([]);
  });
});
