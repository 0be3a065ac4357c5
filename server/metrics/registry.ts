// The process's Prometheus metrics (prom-client): every series till counts is declared here, once, and the places
// that count import it (the HTTP hook, the webhook attempts, the renewals, the checkout confirm, the Stripe client,
// the ingest). Labels are bounded sets (a route's template, a method, a status, an outcome, a processor's kind),
// never a URL, an id or anything a customer typed. Gauges that read the database are collected at scrape time
// (collect.ts).
import { Counter, Histogram, Registry, collectDefaultMetrics } from "prom-client";

/** The process-wide registry: the counters below, and prom-client's defaults (event loop delay, heap, CPU). */
export const metricsRegistry = new Registry();
collectDefaultMetrics({ register: metricsRegistry });

const registers = [metricsRegistry];

export const httpRequests = new Counter({
  name: "till_http_requests_total",
  help: "HTTP requests answered, by route template, method and status.",
  labelNames: ["route", "method", "status"] as const,
  registers,
});

export const httpDuration = new Histogram({
  name: "till_http_request_duration_seconds",
  help: "Time from a request's arrival to its answer, by route template and method.",
  labelNames: ["route", "method"] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers,
});

export const webhookDeliveries = new Counter({
  name: "till_webhook_deliveries_total",
  help: "Webhook delivery attempts by outcome: sent (2xx), retrying (failed, tried again later), failed (given up).",
  labelNames: ["outcome"] as const,
  registers,
});

export const webhookDuration = new Histogram({
  name: "till_webhook_delivery_duration_seconds",
  help: "Time of a webhook delivery attempt, connection to last byte.",
  buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers,
});

export const renewals = new Counter({
  name: "till_renewals_total",
  help: "Subscription renewals by outcome: done, or failed (rolled back, tried again in a later pass).",
  labelNames: ["outcome"] as const,
  registers,
});

export const payments = new Counter({
  name: "till_payments_total",
  help:
    "Payments asked of a processor (test, stripe) by kind (payment, setup: a card saved, charge: off-session) and outcome (succeeded, failed, requires_action, error).",
  labelNames: ["processor", "kind", "outcome"] as const,
  registers,
});

export const stripeCalls = new Counter({
  name: "till_stripe_api_calls_total",
  help: "Requests to Stripe's API by method and resource (path with ids left out).",
  labelNames: ["method", "resource"] as const,
  registers,
});

export const stripeErrors = new Counter({
  name: "till_stripe_api_errors_total",
  help: "Stripe API answers with a 4xx or 5xx status, by method, resource and status.",
  labelNames: ["method", "resource", "status"] as const,
  registers,
});

export const eventsIngested = new Counter({
  name: "till_events_ingested_total",
  help: "Usage events stored by the ingest endpoint.",
  registers,
});

/** A Stripe API path (`/v1/payment_intents/pi_3N…/confirm`) without its ids: `/v1/payment_intents/:id/confirm`. */
export function stripeResource(path: string): string {
  const parts = path.split("?")[0]?.split("/").filter(Boolean) ?? [];
  return `/${parts.map((p, i) => (i === 0 || (i % 2 === 1 && /^[a-z_]{1,40}$/.test(p)) ? p : ":id")).join("/")}`;
}
