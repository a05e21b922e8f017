/**
 * METRICS_PORT: `/metrics` on a port of its own (docs/api.md "Operations routes"), so it can stay
 * behind a firewall while the API port is public. A tiny Fastify instance with that one
 * route (METRICS_TOKEN applies here too), problem JSON for anything else, no request
 * log. With `serve --workers N` the cluster's primary serves it and sums what every
 * worker counted (prom-client's AggregatorRegistry asks each worker over the cluster's
 * IPC channel), so one scrape sees the whole server.
 */
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import Fastify, { type FastifyInstance } from "fastify";
import { AggregatorRegistry, type Registry } from "prom-client";
import { HttpProblem } from "./http-problem.js";
import { withMethodNotAllowed } from "./method-not-allowed.js";
import { problemFor, sendProblem } from "./problem-response.js";
import { type MetricsSource, metricsRoute } from "./routes/metrics.js";

export interface MetricsServerOptions {
  host: string;
  port: number;
  source: MetricsSource;
  /** METRICS_TOKEN, or null. */
  token: string | null;
}

export interface MetricsServer {
  /** e.g. `http://127.0.0.1:9464` */
  url: string;
  close(): Promise<void>;
}

/** The metrics app; never listens (tests `inject`). */
export async function buildMetricsApp(source: MetricsSource, token: string | null): Promise<FastifyInstance> {
  const app = Fastify({ logger: false }).withTypeProvider<TypeBoxTypeProvider>();
  app.setErrorHandler((error, request, reply) => sendProblem(reply, problemFor(error, request.log)));
  app.setNotFoundHandler((_request, reply) =>
    sendProblem(reply, new HttpProblem("not_found", "This port serves only /metrics.")),
  );
  await withMethodNotAllowed(app, (scope) => metricsRoute(scope, source, token));
  return app;
}

export async function startMetricsServer(options: MetricsServerOptions): Promise<MetricsServer> {
  const app = await buildMetricsApp(options.source, options.token);
  try {
    const url = await app.listen({ host: options.host, port: options.port });
    return { url, close: () => app.close() };
  } catch (error) {
    await app.close();
    throw error;
  }
}

/** In a cluster's primary: every connected worker's metrics, summed (counters, histograms). */
export function clusterMetricsSource(): MetricsSource {
  const aggregator = new AggregatorRegistry();
  return { contentType: aggregator.contentType, metrics: () => aggregator.clusterMetrics() };
}

/** In a cluster's worker: answer the primary's requests with this worker's registry. */
export function answerPrimaryWithMetrics(registry: Registry): void {
  new AggregatorRegistry();
  AggregatorRegistry.setRegistries([registry]);
}
