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
 *   for one request in SAMPLE_EVERY and for every 5xx answer; the rest cost a counter.
 * - `off`: no line per request; 5xx errors are still logged as errors.
 *
 * With `sampled` and `off`, a request's logger is the app's (no child logger made per
 * request): a line names its request by `reqId` itself.
 */
import { type FastifyReply, type FastifyRequest, type FastifyServerOptions, LogController } from "fastify";
import type { AccessLogChoice } from "../config-table.js";

/** `sampled`: one request in this many gets its line. */
export const SAMPLE_EVERY = 100;

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
 * What `sampled` does once a request is answered: a line for one request in SAMPLE_EVERY
 * and for every 5xx. The fast path (checking-fast-path.ts) answers only 200s and writes no
 * line: it hands a request that is due for a line to Fastify, and counts the others.
 */
export class SampledAccessLog {
  private countdown = 1;
  /** Whether a request due for its line was handed to Fastify and has not been answered yet. */
  private claimed = false;

  /**
   * Whether this request is to be the one of SAMPLE_EVERY that gets its line (the next
   * one answered is due, and no other request took that turn): the fast path hands it
   * to Fastify. The others take the fast path meanwhile.
   */
  claimLine(): boolean {
    if (this.countdown > 1 || this.claimed) return false;
    this.claimed = true;
    return true;
  }

  /** Counts a request answered with a line of its own only if it is a 5xx or due. */
  answered(request: FastifyRequest, reply: FastifyReply): void {
    this.countdown--;
    if (this.countdown === 0 || reply.statusCode >= 500) {
      if (this.countdown <= 0) {
        this.countdown = SAMPLE_EVERY;
        this.claimed = false;
      }
      request.log.info(
        {
          reqId: request.id,
          req: request,
          res: reply,
          responseTime: reply.elapsedTime,
          sampledOneIn: SAMPLE_EVERY,
        },
        "request completed",
      );
    }
  }

  /** Counts a 200 the fast path answered, never the one due for a line. */
  answeredWithoutLine(): void {
    if (this.countdown > 1) this.countdown--;
  }
}

/** The sampler of `sampled`; undefined for the other choices. */
export function sampledAccessLog(choice: AccessLogChoice): SampledAccessLog | undefined {
  return choice === "sampled" ? new SampledAccessLog() : undefined;
}
