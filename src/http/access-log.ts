/**
 * The request log's choice, ACCESS_LOG (docs/http.md "The request log"): what a request
 * costs the log at LOG_LEVEL `info`, apart from what the service logs itself (errors,
 * warnings, start-up). LOG_LEVEL keeps its meaning: the access log's lines are `info`
 * lines, so a level above `info` silences them whatever the choice.
 *
 * - `all`: Fastify's two lines per request ("incoming request" with the method, path and
 *   client address; "request completed" with the status, checked domain, key id and
 *   time). Each costs a JSON serialisation and a write: together about a tenth of a
 *   cached check's CPU (docs/benchmarks.md "HTTP").
 * - `sampled` (default): one "request completed" line (the fields of both lines above)
 *   a second at most (SAMPLE_MS), for the first request answered once the line is due,
 *   and one for every 5xx answer; the rest cost a counter. A line per so many requests
 *   would cost in proportion to the traffic (one in a hundred cost a cached check a
 *   seventh of its CPU, docs/benchmarks.md "HTTP"); a line a second costs next to nothing
 *   at any rate, and at a low rate logs every request.
 * - `off`: no line per request; 5xx errors are still logged as errors.
 *
 * With `sampled` and `off`, a request's logger is the app's (no child logger made per
 * request): a line names its request by `reqId` itself.
 */
import { type FastifyReply, type FastifyRequest, type FastifyServerOptions, LogController } from "fastify";
import type { AccessLogChoice } from "../config-table.js";

/** `sampled`: a line at most this often (ms). */
export const SAMPLE_MS = 1000;

/** Fastify's options for the choice: its own lines (`all`) or none, and no child logger per request unless a route asks for its own level. */
export function accessLogOptions(
  choice: AccessLogChoice,
): Pick<FastifyServerOptions, "logController" | "childLoggerFactory"> {
  if (choice === "all") return {};
  return {
    logController: new LogController({ disableRequestLogging: true }),
    // A route with its own level or serialisers (the admin routes' `warn`) still gets its child.
    childLoggerFactory: (logger, bindings, options) =>
      options.level !== undefined || options.serializers !== undefined
        ? logger.child(bindings, options)
        : logger,
  };
}

/**
 * What `sampled` does once a request is answered: a line for the first request answered
 * once SAMPLE_MS have passed since the last one, and a line for every 5xx. A sampled line
 * says how many requests it stands for (`sampledOneIn`: itself and those answered without
 * a line since the last sampled line). The fast path (checking-fast-path.ts) answers only
 * 200s and writes no line: it hands a request that is due for a line to Fastify, and
 * counts the others.
 */
export class SampledAccessLog {
  /** When (on `now`'s clock, ms) the next sampled line is due. */
  private nextLineAt = Number.NEGATIVE_INFINITY;
  /** When the fast path handed a request due for its line to Fastify; it is not handed another while that one may still be answered. */
  private claimedAt = Number.NEGATIVE_INFINITY;
  /** Requests answered without a line since the last sampled line. */
  private unlogged = 0;

  constructor(private readonly now: () => number = Date.now) {}

  /**
   * Whether this request is to be the one that gets the due line (no other request took
   * that turn within SAMPLE_MS): the fast path hands it to Fastify. The others take the
   * fast path meanwhile.
   */
  claimLine(): boolean {
    const now = this.now();
    if (now < this.nextLineAt || now - this.claimedAt < SAMPLE_MS) return false;
    this.claimedAt = now;
    return true;
  }

  /** Writes a request's line if one is due or it is a 5xx; counts it otherwise. */
  answered(request: FastifyRequest, reply: FastifyReply): void {
    const now = this.now();
    const due = now >= this.nextLineAt;
    if (!due && reply.statusCode < 500) {
      this.unlogged++;
      return;
    }
    request.log.info(
      {
        reqId: request.id,
        req: request,
        res: reply,
        responseTime: reply.elapsedTime,
        sampledOneIn: due ? this.unlogged + 1 : 1,
      },
      "request completed",
    );
    if (due) {
      this.nextLineAt = now + SAMPLE_MS;
      this.claimedAt = Number.NEGATIVE_INFINITY;
      this.unlogged = 0;
    }
  }

  /** Counts a 200 the fast path answered (never one due for a line: it claimed those for Fastify). */
  answeredWithoutLine(): void {
    this.unlogged++;
  }
}

/** The sampler of `sampled`, on the clock `now` (ms); undefined for the other choices. */
export function sampledAccessLog(choice: AccessLogChoice, now?: () => number): SampledAccessLog | undefined {
  return choice === "sampled" ? new SampledAccessLog(now) : undefined;
}
