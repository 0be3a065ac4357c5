// Serving the metrics: never public by default. TILL_METRICS_PORT opens a listener of its own (on
// TILL_METRICS_HOST, loopback unless set) that serves /metrics; TILL_METRICS_TOKEN serves /metrics on the main
// port to `Authorization: Bearer <token>` (and asks the same token on the metrics port). Without either, /metrics
// on the main port answers 404. The HTTP hook counts every answer by the route's template, never its URL.
import { timingSafeEqual, createHash } from "node:crypto";
import type { AddressInfo } from "node:net";
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import { httpDuration, httpRequests, metricsRegistry } from "./registry.js";
import { scrapeGauges, type ScrapeSources } from "./collect.js";

export interface MetricsConfig {
  /** A listener of its own for /metrics (0: any free port); absent: none. */
  port: number | undefined;
  host: string;
  /** Bearer token for /metrics (on the main port, and on the metrics port when set). */
  token: string | undefined;
}

export interface Metrics {
  /** The metrics port's address once the app listens (undefined without TILL_METRICS_PORT). */
  address(): AddressInfo | undefined;
}

const digest = (s: string) => createHash("sha256").update(s).digest();

function authorized(req: FastifyRequest, token: string | undefined): boolean {
  if (token === undefined) return true;
  const header = req.headers.authorization ?? "";
  const given = header.startsWith("Bearer ") ? header.slice("Bearer ".length) : "";
  return timingSafeEqual(digest(given), digest(token));
}

/** Counts each answer: the route's template (`/v1/products/:id`), or `unmatched` for a path no route serves. */
function countRequests(app: FastifyInstance): void {
  app.addHook("onResponse", async (req, reply) => {
    const route = req.routeOptions.url ?? "unmatched";
    httpRequests.inc({ route, method: req.method, status: String(reply.statusCode) });
    httpDuration.observe({ route, method: req.method }, reply.elapsedTime / 1000);
  });
}

/** Installs the request counting, /metrics (404 unless a token is set) and the metrics port on `app`. */
export function installMetrics(app: FastifyInstance, config: MetricsConfig, sources: ScrapeSources): Metrics {
  const gauges = scrapeGauges(sources);
  const serve = async (req: FastifyRequest, reply: FastifyReply) => {
    if (!authorized(req, config.token)) {
      return reply.status(401).header("www-authenticate", "Bearer").send({ error: "Unauthorized", detail: "The metrics token is missing or wrong." });
    }
    await gauges.refresh();
    const body = (await metricsRegistry.metrics()) + (await gauges.registry.metrics());
    return reply.type(metricsRegistry.contentType).send(body);
  };
  countRequests(app);
  app.get("/metrics", async (req, reply) => {
    if (config.token === undefined) return reply.status(404).send({ error: "ResourceNotFound", detail: "No route for GET /metrics" });
    return serve(req, reply);
  });
  if (config.port === undefined) return { address: () => undefined };
  const port = config.port;
  const side = Fastify({ logger: false });
  side.get("/metrics", serve);
  // with the app's start (listen awaits onReady, not onListen), and closed with it
  app.addHook("onReady", async () => {
    await side.listen({ port, host: config.host });
  });
  app.addHook("onClose", async () => side.close());
  return {
    address: () => {
      const a = side.server.address();
      return a && typeof a === "object" ? a : undefined;
    },
  };
}
