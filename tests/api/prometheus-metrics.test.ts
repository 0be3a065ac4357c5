// The metrics endpoint and the readiness check, on the real server: a purchase with the test processor, a batch of
// usage events and a webhook delivery each move their series; no label carries an id or an email; /metrics is not
// served on the main port without a token; /readyz turns not-ready while draining, without a worker, and without a
// database.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createProduct, pay } from "../helpers/checkout.js";
import { eventually, Receiver } from "../helpers/receiver.js";
import { rawRequest } from "../helpers/api.js";
import { createSeller, sdkFor, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Prometheus' text format, sample lines only. */
function parse(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split("\n")) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m?.[1] || m[3] === undefined) continue;
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) if (l[1]) labels[l[1]] = l[2] ?? "";
    samples.push({ name: m[1], labels, value: Number(m[3]) });
  }
  return samples;
}

const total = (samples: Sample[], name: string, where: (l: Record<string, string>) => boolean = () => true) =>
  samples.filter((s) => s.name === name && where(s.labels)).reduce((n, s) => n + s.value, 0);
const has = (samples: Sample[], name: string) => samples.some((s) => s.name === name);

describe("/metrics on a port of its own, /readyz", () => {
  let server: TestServer;
  let seller: Seller;
  let receiver: Receiver;
  let metricsUrl: string;
  const scrape = async () => {
    const res = await fetch(metricsUrl);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/plain");
    return parse(await res.text());
  };

  beforeAll(async () => {
    receiver = new Receiver();
    await receiver.start();
    server = await startServer({ TILL_WEBHOOKS_ALLOW_PRIVATE: "true", TILL_METRICS_PORT: "0" });
    const address = server.metrics.address();
    if (!address) throw new Error("the metrics port did not open");
    expect(address.address).toBe("127.0.0.1");
    metricsUrl = `http://127.0.0.1:${address.port}/metrics`;
    seller = await createSeller(server, "metrics");
    await seller.sdk.webhooks.createWebhookEndpoint({ url: `${receiver.url}/hooks`, format: "raw", events: ["order.paid"] });
  });
  afterAll(async () => {
    await server?.close().catch(() => {});
    await receiver?.stop();
  });

  it("is not served on the main port without a token", async () => {
    const res = await fetch(`${server.url}/metrics`);
    expect(res.status).toBe(404);
    expect(await res.text()).not.toContain("till_http_requests_total");
  });

  it("a purchase, usage events and a webhook delivery move their series; no label names an id or an email", async () => {
    const before = await scrape();
    const product = await createProduct(seller, "fixed");
    const checkout = await seller.sdk.checkouts.create({ products: [product.id] });
    // the worker is not running yet: the purchase's events wait in the outbox
    await pay(server, checkout);
    const waiting = await scrape();
    expect(total(waiting, "till_metrics_database_up")).toBe(1);
    expect(total(waiting, "till_outbox_backlog")).toBeGreaterThan(0);
    expect(total(waiting, "till_outbox_oldest_age_seconds")).toBeGreaterThanOrEqual(0);
    expect(has(waiting, "till_renewals_due")).toBe(true);

    const customer = await seller.sdk.customers.create({ email: `metrics-${Date.now()}@example.com`, externalId: `m-${Date.now()}` });
    const ingested = await seller.sdk.events.ingest({ events: [1, 2, 3].map(() => ({ name: "api_call", customerId: customer.id })) });
    expect(ingested.inserted).toBe(3);

    await server.worker.start();
    await eventually(async () => receiver.hits.length > 0);
    const after = await eventually(async () => {
      const s = await scrape();
      return total(s, "till_outbox_backlog") === 0 && total(s, "till_webhook_deliveries_total", (l) => l.outcome === "sent") > 0 ? s : null;
    });

    const moved = (name: string, where?: (l: Record<string, string>) => boolean) => total(after, name, where) - total(before, name, where);
    expect(moved("till_http_requests_total", (l) => l.route === "/v1/checkouts/" && l.method === "POST" && l.status === "201")).toBe(1);
    expect(moved("till_http_request_duration_seconds_count", (l) => l.route === "/v1/checkouts/" && l.method === "POST")).toBe(1);
    expect(moved("till_payments_total", (l) => l.processor === "test" && l.kind === "payment" && l.outcome === "succeeded")).toBe(1);
    expect(moved("till_events_ingested_total")).toBe(3);
    expect(moved("till_webhook_deliveries_total", (l) => l.outcome === "sent")).toBeGreaterThanOrEqual(1);
    expect(moved("till_webhook_delivery_duration_seconds_count")).toBeGreaterThanOrEqual(1);
    expect(total(after, "till_worker_loop_heartbeat_age_seconds", (l) => l.loop === "webhooks.fan-out")).toBeLessThan(30);
    expect(has(after, "nodejs_eventloop_lag_p99_seconds")).toBe(true);
    // declared, though nothing in this purchase renews or calls Stripe (a labelled counter shows no sample before)
    const text = await (await fetch(metricsUrl)).text();
    for (const name of ["till_renewals_total", "till_stripe_api_calls_total", "till_stripe_api_errors_total", "till_db_replica_lag_seconds"]) {
      expect(text).toContain(`# TYPE ${name} `);
    }
    if (server.database.driver === "postgres") {
      expect(total(after, "till_db_pool_max")).toBeGreaterThan(0);
      expect(has(after, "till_db_pool_waiting")).toBe(true);
      expect(total(after, "till_db_pool_connections", (l) => l.state === "active")).toBeGreaterThanOrEqual(0);
    }

    // labels: bounded sets only (route templates, methods, statuses, outcomes), never ids, emails or raw URLs
    const forbidden = [seller.organizationId, product.id, checkout.id, customer.id, customer.email, seller.user.email];
    for (const s of after) {
      for (const value of Object.values(s.labels)) {
        expect(value).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i);
        expect(value).not.toContain("@");
        expect(value).not.toContain("?");
        for (const f of forbidden) expect(value).not.toContain(f);
      }
    }
  });

  it("a renewal (a sandbox's test clock past the period's end) moves the renewals and the off-session charges", async () => {
    const key = await seller.createSandboxKey();
    const sdk = sdkFor(server, key);
    const product = await sdk.products.create({
      name: "Monthly",
      recurringInterval: "month",
      prices: [{ amountType: "fixed", priceAmount: 900, priceCurrency: "usd" }],
    });
    await pay(server, await sdk.checkouts.create({ products: [product.id] }));
    const before = await scrape();
    const advanced = await rawRequest(server.url, key, "POST", "/v1/test-clock/advance", { by: "32d" });
    expect(advanced.status, JSON.stringify(advanced.body)).toBe(200);
    const after = await scrape();
    const moved = (name: string, where: (l: Record<string, string>) => boolean) => total(after, name, where) - total(before, name, where);
    expect(moved("till_renewals_total", (l) => l.outcome === "done")).toBe(1);
    expect(moved("till_renewals_total", (l) => l.outcome === "failed")).toBe(0);
    expect(moved("till_payments_total", (l) => l.processor === "test" && l.kind === "charge" && l.outcome === "succeeded")).toBe(1);
  });

  it("/readyz: ready with the worker running; not ready without it, while draining, without a database", async () => {
    await server.worker.start();
    await eventually(async () => (await fetch(`${server.url}/readyz`)).status === 200);
    const ready = (await (await fetch(`${server.url}/readyz`)).json()) as { status: string; failed: string[] };
    expect(ready).toMatchObject({ status: "ready", failed: [] });

    await server.worker.stop();
    const idle = await fetch(`${server.url}/readyz`);
    expect(idle.status).toBe(503);
    expect(((await idle.json()) as { failed: string[] }).failed).toEqual(["worker"]);
    await server.worker.start();

    server.readiness.drain();
    const draining = await fetch(`${server.url}/readyz`);
    expect(draining.status).toBe(503);
    expect(((await draining.json()) as { failed: string[] }).failed).toEqual(["draining"]);
    // while draining, the other routes are still served
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);

    await server.worker.stop();
    await server.database.close();
    const down = await fetch(`${server.url}/readyz`);
    expect(down.status).toBe(503);
    const body = (await down.json()) as { failed: string[]; checks: Record<string, { ok: boolean; detail?: string }> };
    expect(body.failed).toEqual(expect.arrayContaining(["database", "migrations"]));
    // the scrape still answers, saying the database's gauges could not be read
    const s = await scrape();
    expect(total(s, "till_metrics_database_up")).toBe(0);
    expect(has(s, "till_http_requests_total")).toBe(true);
  });
});

describe("/metrics on the main port behind a token", () => {
  let server: TestServer;
  const token = "metrics-token-0123456789abcdef";
  beforeAll(async () => {
    server = await startServer({ TILL_METRICS_TOKEN: token });
  });
  afterAll(async () => {
    await server?.close();
  });

  it("answers 401 without the token or with a wrong one, and the metrics with it", async () => {
    expect(server.metrics.address()).toBeUndefined();
    expect((await fetch(`${server.url}/metrics`)).status).toBe(401);
    expect((await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${token}x` } })).status).toBe(401);
    const res = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toContain("till_http_requests_total");
    expect(text).toContain("nodejs_eventloop_lag_seconds");
    // an unmatched path is counted under one label, not its own
    await fetch(`${server.url}/v1/no-such-thing/${crypto.randomUUID()}`);
    const again = parse(await (await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${token}` } })).text());
    expect(again.some((s) => s.name === "till_http_requests_total" && s.labels.route === "unmatched")).toBe(true);
  });
});
