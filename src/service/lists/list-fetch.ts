/**
 * Fetches a published list (LIST_SOURCES): the operator's URL only, never a request's.
 * Refused as a whole (`ListFetchError`, with a reason code for metrics): no answer within
 * `timeoutMs` (30 s), a status other than 2xx, more than `maxBytes` (50 MB), or a
 * redirect to another host (a redirect on the same host is followed, five at most).
 */

export const LIST_FETCH_TIMEOUT_MS = 30_000;
export const LIST_MAX_BYTES = 50 * 1024 * 1024;
const MAX_REDIRECTS = 5;

export type ListFetchFailure = "timeout" | "status" | "too_large" | "redirect" | "network";

export class ListFetchError extends Error {
  constructor(
    readonly reason: ListFetchFailure,
    message: string,
  ) {
    super(message);
  }
}

export interface ListFetchOptions {
  timeoutMs?: number;
  maxBytes?: number;
}

/** The body of `url` as bytes. */
export async function fetchList(url: string, options: ListFetchOptions = {}): Promise<Uint8Array> {
  const { timeoutMs = LIST_FETCH_TIMEOUT_MS, maxBytes = LIST_MAX_BYTES } = options;
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    let at = new URL(url);
    for (let redirects = 0; ; redirects++) {
      const response = await fetch(at, { redirect: "manual", signal });
      const location = response.headers.get("location");
      if (response.status >= 300 && response.status < 400 && location !== null) {
        await response.body?.cancel();
        const next = new URL(location, at);
        if (next.host !== at.host) {
          throw new ListFetchError("redirect", `redirects to another host (${next.host})`);
        }
        if (redirects === MAX_REDIRECTS)
          throw new ListFetchError("redirect", "redirects more than five times");
        at = next;
        continue;
      }
      if (response.status < 200 || response.status > 299) {
        await response.body?.cancel();
        throw new ListFetchError("status", `answered HTTP ${response.status}`);
      }
      return await readAtMost(response, maxBytes);
    }
  } catch (error) {
    if (error instanceof ListFetchError) throw error;
    if (signal.aborted)
      throw new ListFetchError("timeout", `no complete answer within ${timeoutMs / 1000} s`);
    throw new ListFetchError(
      "network",
      `could not be fetched: ${(error as Error).cause ?? (error as Error).message}`,
    );
  }
}

/** The body, refused as soon as it passes `maxBytes`. */
async function readAtMost(response: Response, maxBytes: number): Promise<Uint8Array> {
  const tooLarge = () => new ListFetchError("too_large", `is larger than ${maxBytes / 1024 / 1024} MB`);
  if (Number(response.headers.get("content-length") ?? 0) > maxBytes) {
    await response.body?.cancel();
    throw tooLarge();
  }
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  for await (const chunk of response.body ?? []) {
    bytes += chunk.length;
    if (bytes > maxBytes) throw tooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}
