import { describe, expect, it } from "vitest";
import { loadDomainLists } from "../../src/data/read-domain-lists.js";

describe("MX, parking and infrastructure patterns match host suffixes on label boundaries", () => {
  const lists = loadDomainLists();

  it.each([
    ["aspmx.l.google.com", "Google Workspace", "business"],
    ["ALT1.ASPMX.L.GOOGLE.COM.", "Google Workspace", "business"],
    ["aspmx2.googlemail.com", "Google Workspace", "business"],
    ["smtp.google.com", "Google Workspace", "business"],
    ["google.com", "Google Workspace", "business"],
    ["gmail-smtp-in.l.google.com", "Gmail", "free"],
    ["contoso-com.mail.protection.outlook.com", "Microsoft 365", "business"],
    ["hotmail-com.olc.protection.outlook.com", "Outlook.com", "free"],
    ["route1.mx.cloudflare.net", "Cloudflare Email Routing", "forwarder"],
    ["mx1.improvmx.com", "ImprovMX", "forwarder"],
    ["mxa.mailgun.org", "Mailgun", "email_api"],
    ["mailstore1.secureserver.net", "GoDaddy", "web_hosting"],
  ])("%s → %s (%s)", (host, name, category) => {
    expect(lists.mxProvider(host)).toEqual({ name, category });
  });

  it.each([
    "evilgoogle.com",
    "aspmx.l.evilgoogle.com",
    "google.com.evil.net",
    "notoutlook.com",
    "mx.cloudflare.net.example.org",
    "xmx.cloudflare.net",
  ])("%s matches no provider", (host) => {
    expect(lists.mxProvider(host)).toBeUndefined();
  });

  it.each([
    ["ns1.sedoparking.com", "Sedo"],
    ["NS2.BODIS.COM.", "Bodis"],
    ["ns1.parkingcrew.net", "ParkingCrew"],
    ["ns1.notsedoparking.com", undefined],
    ["sedoparking.com.example.org", undefined],
  ])("parking host %s → %s", (host, service) => {
    expect(lists.parkingHost(host)).toBe(service);
  });

  it.each([
    ["mail.mailinator.com", "mailinator.com"],
    ["mx.guerrillamail.com", "guerrillamail.com"],
    ["mx.yopmail.com", "yopmail.com"],
    ["mail.notmailinator.com", undefined],
  ])("disposable infrastructure %s → %s", (host, service) => {
    expect(lists.disposableInfrastructure(host)).toBe(service);
  });

  it("knows no parking address (the list is empty until a stable one is sourced)", () => {
    expect(lists.parkingAddress("127.0.0.1")).toBeUndefined();
  });
});
