/** Signals of a working self-hosted domain, for the verdict's table tests; override what a row needs. */
import { NO_CATEGORIES } from "../../src/core/categories.js";
import type { Signals } from "../../src/core/gathered-signals.js";
import type { MailRouting } from "../../src/core/mail-routing.js";

export const routed: MailRouting = {
  status: "mx",
  hosts: [{ host: "mx.example.com", priority: 10, ips: ["192.0.2.1"] }],
  nameServers: ["ns1.example.com"],
  addresses: ["192.0.2.1"],
};

export function sampleSignals(overrides: Partial<Signals> = {}): Signals {
  return {
    domain: "example.com",
    baseDomain: "example.com",
    routing: routed,
    mxPrivate: false,
    reserved: false,
    knownGood: false,
    disposable: undefined,
    disposableHints: [],
    categories: { ...NO_CATEGORIES },
    mxProvider: undefined,
    selfHosted: true,
    parking: undefined,
    mxUnresolvable: false,
    typos: [],
    createdAt: null,
    ...overrides,
  };
}
