/**
 * One RDAP domain query (RFC 9082/9083): `GET {base}domain/{name}`. Every outcome is
 * data; nothing here throws. The registration date is the `eventDate` of the
 * `registration` event.
 *
 * Over `node:http`/`node:https` with a keep-alive agent per scheme, not `fetch`: a query
 * lives as long as its registry takes (up to AGE_TIMEOUT_MS), long enough for the
 * collector to promote it, and fetch's requests, streams, headers and abort signals made
 * RDAP about a quarter of all the memory a busy instance promoted and then dropped (an
 * allocation profile of `bench:recheck`). A redirect is never followed (the service
 * contacts only the bootstrap's hosts), and an answer over 1 MB is a failure.
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
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

/** Bytes an RDAP answer may have; a domain object is a few kilobytes. */
const MAX_ANSWER_BYTES = 1_000_000;

/** How each scheme is asked, with keep-alive connections; the registry gates allow 4 queries per registry. */
const TRANSPORTS: Record<string, { send: typeof httpRequest; agent: HttpAgent }> = {
  "http:": { send: httpRequest, agent: new HttpAgent({ keepAlive: true, maxSockets: 8 }) },
  "https:": { send: httpsRequest, agent: new HttpsAgent({ keepAlive: true, maxSockets: 8 }) },
};

/** The whole body as text; rejects past MAX_ANSWER_BYTES. */
function readBody(response: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    response.on("data", (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > MAX_ANSWER_BYTES) response.destroy(new Error("RDAP answer is over 1 MB"));
      else chunks.push(chunk);
    });
    response.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    response.on("error", reject);
  });
}

/** GET `url` over `transport`: the response, its body unread. */
function get(
  { send, agent }: (typeof TRANSPORTS)[string],
  url: URL,
  signal: AbortSignal,
): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const request = send(url, { agent, headers: { accept: "application/rdap+json" }, signal });
    request.on("response", resolve);
    request.on("error", reject);
    request.end();
  });
}

export async function fetchRdapRegistration(
  baseUrl: string,
  domain: string,
  signal: AbortSignal,
): Promise<RdapAnswer> {
  try {
    const url = new URL(rdapDomainUrl(baseUrl, domain));
    const transport = TRANSPORTS[url.protocol];
    if (!transport) return { kind: "failed", reason: `RDAP base URL is not HTTP: ${baseUrl}` };
    const response = await get(transport, url, signal);
    const status = response.statusCode ?? 0;
    if (status === 200) {
      const text = await readBody(response);
      try {
        return registrationAnswer(JSON.parse(text));
      } catch {
        return { kind: "failed", reason: "RDAP answer is not valid JSON" };
      }
    }
    response.resume();
    if (status === 404) return { kind: "not-found" };
    if (status === 429) {
      const retryAfter = response.headers["retry-after"];
      return { kind: "rate-limited", retryAfter: typeof retryAfter === "string" ? retryAfter : null };
    }
    return { kind: "failed", reason: `RDAP answered HTTP ${status}` };
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
