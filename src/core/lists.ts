/**
 * The bundled lists as the engine sees them. Loaded once per instance from `data/`
 * (see src/data/), never per check. Every domain look-up walks the domain and its
 * parents up to (and including) the base domain.
 */
export type ProviderCategory =
  | "free"
  | "premium"
  | "business"
  | "isp"
  | "email_api"
  | "web_hosting"
  | "forwarder";

export interface DomainMatch {
  /** The list entry that matched (the domain itself or a parent). */
  entry: string;
  /** Human name of the provider or service, when the list carries one. */
  name: string | null;
  /** Where the entry comes from (package names or curated source). */
  sources: string[];
}

export interface MxProvider {
  name: string;
  category: ProviderCategory | null;
}

export interface DomainLists {
  disposable(domain: string, baseDomain: string): DomainMatch | undefined;
  category(category: ProviderCategory, domain: string, baseDomain: string): DomainMatch | undefined;
  /** Big providers and other known-legitimate domains: never disposable, never typos. */
  isKnownGood(domain: string, baseDomain: string): boolean;
  /** Mail provider whose MX host pattern matches the host (e.g. `*.google.com`). */
  mxProvider(mxHost: string): MxProvider | undefined;
  /** Parking service whose name server or MX host this is. */
  parkingHost(host: string): string | undefined;
  /** Parking service that owns this IP address. */
  parkingAddress(ip: string): string | undefined;
  /** Disposable service whose mail or name server infrastructure this host is part of. */
  disposableInfrastructure(host: string): string | undefined;
  /** Popular mailbox domains, for typo suggestions. */
  readonly popular: readonly string[];
  isRoleLocalPart(localPart: string): boolean;
}
