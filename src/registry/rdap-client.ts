/**
 * One RDAP domain query (RFC 9082/9083) over Node's fetch: `GET {base}domain/{name}`.
 * Every outcome is data; nothing here throws. The registration date is the `eventDate`
 * of the `registration` event.
 */
export type RdapAnswer =
  | { kind: "registered"; createdAt: Date }
  /** The registry knows the domain but states no registration date. */
  | { kind: "no-date" }
  /** 404: the registry does not know the domain. */
  | { kind: "not-found" }
  /** 429: `retryAfter` is the raw Retry-After header, null when absent. */
  | { kind: "rate-limited"; retryAfter: string | null }
  | { kind: "failed"; reason: string };

export function rdapDomainUrl(baseUrl: string, domain: string): string {
  return `${baseUrl.endsWith("/") ? baseUrl : `${baseUrl}/`}domain/${encodeURIComponent(domain)}`;
}

/** Reads the registration date out of an RDAP domain object. */
export function registrationAnswer(body: unknown): RdapAnswer {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    return { kind: "failed", reason: "RDAP answer is not a JSON object" };
  }
  const events: unknown = (body as { events?: unknown }).events;
  const registration = Array.isArray(events)
    ? events.find((event) => event?.eventAction === "registration" && typeof event.eventDate === "string")
    : undefined;
  const createdAt = registration ? new Date(registration.eventDate) : null;
  return createdAt && !Number.isNaN(createdAt.getTime())
    ? { kind: "registered", createdAt }
    : { kind: "no-date" };
}

export async function fetchRdapRegistration(
  baseUrl: string,
  domain: string,
  signal: AbortSignal,
): Promise<RdapAnswer> {
  try {
    const response = await fetch(rdapDomainUrl(baseUrl, domain), {
      headers: { accept: "application/rdap+json" },
      // Only the bootstrap's hosts are asked: a redirect elsewhere (an address taken from
      // an answer) is not followed but is a failure, and WHOIS is asked instead.
      redirect: "manual",
      signal,
    });
    if (response.status === 200) {
      const text = await response.text();
      try {
        return registrationAnswer(JSON.parse(text));
      } catch {
        return { kind: "failed", reason: "RDAP answer is not valid JSON" };
      }
    }
    await response.body?.cancel();
    if (response.status === 404) return { kind: "not-found" };
    if (response.status === 429)
      return { kind: "rate-limited", retryAfter: response.headers.get("retry-after") };
    return { kind: "failed", reason: `RDAP answered HTTP ${response.status}` };
  } catch (error) {
    return {
      kind: "failed",
      reason: signal.aborted ? "RDAP deadline passed" : `RDAP: ${(error as Error).message}`,
    };
  }
}

/**
 * Milliseconds to wait after a 429, from Retry-After (seconds or an HTTP date),
 * kept between 1 s and 1 h; `fallbackMs` when absent or unreadable.
 */
export function retryAfterMs(header: string | null, now: Date, fallbackMs: number): number {
  const value = header?.trim() ?? "";
  const ms = /^\d+$/.test(value) ? Number(value) * 1000 : Date.parse(value) - now.getTime();
  return Number.isFinite(ms) ? Math.min(Math.max(ms, 1000), 3_600_000) : fallbackMs;
}
