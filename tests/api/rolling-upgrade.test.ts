// A rolling upgrade: the previous release's server (ops/upgrade/previous-release, its sources unpacked from git)
// runs on a database migrated by today's migrations and serves a purchase, a renewal, ingest and webhook
// deliveries; then it and today's server serve together under load while the old one is taken out of rotation,
// stopped with SIGTERM and replaced by another of today's, and no request fails.
// The second part is PostgreSQL only: two processes cannot share the embedded database (PGlite lives inside one
// process), so an embedded install upgrades by stopping and starting. On it the first part runs the previous
// release's server on a data directory today's migrations upgraded (what a rollback after an upgrade finds).
import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Polar } from "@polar-sh/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawRequest } from "../helpers/api.js";
import { createProduct, pay } from "../helpers/checkout.js";
import { openDatabase } from "../../server/db/client.js";
import { freshDatabase, usingPostgres } from "../helpers/db.js";
import { previousRelease, ROOT, unpackPreviousRelease } from "../helpers/previous-release.js";
import { eventually, Receiver } from "../helpers/receiver.js";
import { createSeller, sdkFor, type Seller } from "../helpers/seller.js";
import { freePort, START_TIMEOUT_MS, startTill, type Till } from "../helpers/till-process.js";

interface Backend {
  name: string;
  url: string;
  till: Till;
  inRotation: boolean;
  inFlight: number;
  served: number;
}

/** Paid orders' webhooks seen by the receiver, by checkout id. */
const paidCheckouts = (receiver: Receiver) =>
  new Set(
    receiver
      .at("/hooks")
      .map((h) => JSON.parse(h.body) as { type: string; data: { checkout_id?: string } })
      .filter((p) => p.type === "order.paid")
      .map((p) => p.data.checkout_id),
  );

async function stopProcess(till: Till | undefined): Promise<void> {
  if (!till || till.child.exitCode !== null || till.child.signalCode !== null) return;
  till.child.kill("SIGKILL");
  await till.exited;
}

describe("a rolling upgrade from the previous release", () => {
  let database: Awaited<ReturnType<typeof freshDatabase>> | undefined;
  /** The embedded database's data directory, migrated by today's migrations (without DATABASE_URL). */
  let embeddedDir: string | undefined;
  let receiver: Receiver;
  const started: Till[] = [];
  let oldUrl: string;
  let seller: Seller;
  let key: string;
  const env = (port: number): Record<string, string> => ({
    ...(database?.url ? { DATABASE_URL: database.url } : {}),
    PORT: String(port),
    HOST: "127.0.0.1",
    TILL_BASE_URL: `http://127.0.0.1:${port}`,
    TILL_DATA_DIR: embeddedDir ?? mkdtempSync(path.join(os.tmpdir(), "till-upgrade-")),
    TILL_AUTH_SECRET: "upgrade-test-secret-".padEnd(40, "x"),
    TILL_WEBHOOKS_ALLOW_PRIVATE: "true",
    TILL_RATE_LIMIT: "false",
    TILL_LOG_LEVEL: "warn",
    // today's server answers not-ready this long on SIGTERM before closing (the previous release may ignore it)
    TILL_DRAIN_DELAY: "2s",
  });
  /** Starts a server from `dir` and says how long it took to listen. */
  const start = async (name: string, dir: string): Promise<{ till: Till; url: string }> => {
    const port = await freePort();
    const t0 = Date.now();
    const till = await startTill(env(port), dir);
    started.push(till);
    console.log(`[rolling-upgrade] ${name} listening after ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    return { till, url: `http://127.0.0.1:${port}` };
  };

  beforeAll(async () => {
    receiver = new Receiver();
    await receiver.start();
    // today's migrations, all of them: the upgrade's first step, before any of today's processes serves
    if (usingPostgres) database = await freshDatabase();
    else {
      embeddedDir = mkdtempSync(path.join(os.tmpdir(), "till-upgrade-"));
      await (await openDatabase({ dataDir: path.join(embeddedDir, "pglite") })).close();
    }
  });
  afterAll(async () => {
    for (const till of started) await stopProcess(till);
    await receiver?.stop();
    await database?.close();
  });

  let oldTill: Till;
  it("the previous release's server serves a purchase, a renewal, ingest and webhooks on today's schema", { timeout: START_TIMEOUT_MS + 90_000 }, async () => {
    const release = previousRelease();
    const t0 = Date.now();
    const dir = unpackPreviousRelease(release);
    console.log(`[rolling-upgrade] previous release ${release.slice(0, 12)} unpacked in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    const old = await start("previous release", dir);
    oldTill = old.till;
    oldUrl = old.url;

    seller = await createSeller({ url: oldUrl }, "upgrade");
    key = await seller.createKey();
    const sdk = sdkFor({ url: oldUrl }, key);
    await sdk.webhooks.createWebhookEndpoint({ url: `${receiver.url}/hooks`, format: "raw", events: ["order.paid"] });

    // checkout: a purchase with the test processor, paid, its webhook delivered
    const product = await createProduct(seller, "fixed");
    const checkout = await sdk.checkouts.create({ products: [product.id] });
    await pay({ url: oldUrl }, checkout);
    const [order] = (await sdk.orders.list({ checkoutId: checkout.id })).result.items;
    expect(order?.status).toBe("paid");
    await eventually(async () => paidCheckouts(receiver).has(checkout.id), 30_000);

    // a renewal: the sandbox's test clock past the period's end renews and charges off-session
    const sandboxKey = await seller.createSandboxKey();
    const sandbox = sdkFor({ url: oldUrl }, sandboxKey);
    const monthly = await sandbox.products.create({
      name: "Monthly",
      recurringInterval: "month",
      prices: [{ amountType: "fixed", priceAmount: 900, priceCurrency: "usd" }],
    });
    await pay({ url: oldUrl }, await sandbox.checkouts.create({ products: [monthly.id] }));
    const advanced = await rawRequest(oldUrl, sandboxKey, "POST", "/v1/test-clock/advance", { by: "32d" });
    expect(advanced.status, JSON.stringify(advanced.body)).toBe(200);
    const orders = (await sandbox.orders.list({ productId: monthly.id })).result.items;
    expect(orders.map((o) => [o.billingReason, o.status]).sort()).toEqual([
      ["subscription_create", "paid"],
      ["subscription_cycle", "paid"],
    ]);

    // ingest
    const externalId = `upgrade-${Date.now()}`;
    await sdk.customers.create({ email: `${externalId}@example.com`, externalId });
    const ingested = await sdk.events.ingest({ events: [1, 2, 3].map((n) => ({ name: "api_call", externalCustomerId: externalId, metadata: { n } })) });
    expect(ingested.inserted).toBe(3);
    const listed = await sdk.events.list({ externalCustomerId: externalId, name: "api_call" });
    expect(listed.items).toHaveLength(3);
  });

  it.skipIf(!usingPostgres)("the old process and today's serve together; the old one is replaced under load and no request fails", { timeout: 2 * START_TIMEOUT_MS + 60_000 }, async () => {
    expect(oldTill, "the previous release's server did not start").toBeDefined();
    const fresh = await start("today's server", ROOT);
    const backends: Backend[] = [
      { name: "previous", url: oldUrl, till: oldTill, inRotation: true, inFlight: 0, served: 0 },
      { name: "today-1", url: fresh.url, till: fresh.till, inRotation: true, inFlight: 0, served: 0 },
    ];
    const product = await createProduct(seller, "fixed");
    const externalId = `load-${Date.now()}`;
    await sdkFor({ url: fresh.url }, key).customers.create({ email: `${externalId}@example.com`, externalId });
    const sdks = new Map<string, Polar>();
    const sdkOf = (b: Backend) => {
      const found = sdks.get(b.url) ?? sdkFor({ url: b.url }, key);
      sdks.set(b.url, found);
      return found;
    };

    // the load: four clients, round-robin over the processes in rotation, as a load balancer sends them
    const failures: string[] = [];
    const purchased: string[] = [];
    let next = 0;
    let stop = false;
    const one = async (i: number) => {
      const inRotation = backends.filter((b) => b.inRotation);
      const b = inRotation[i % inRotation.length];
      if (!b) throw new Error("no process in rotation");
      b.inFlight++;
      const op = ["ingest", "products", "purchase"][i % 3];
      try {
        const sdk = sdkOf(b);
        if (op === "ingest") {
          const res = await sdk.events.ingest({ events: [{ name: "api_call", externalCustomerId: externalId, metadata: { i } }] });
          if (res.inserted !== 1) throw new Error(`inserted ${res.inserted}`);
        } else if (op === "products") {
          await sdk.products.list({});
        } else {
          const checkout = await sdk.checkouts.create({ products: [product.id] });
          const confirmed = await pay({ url: b.url }, checkout);
          if (confirmed.status !== "confirmed" && confirmed.status !== "succeeded") throw new Error(`checkout ${confirmed.status}`);
          purchased.push(checkout.id);
        }
        b.served++;
      } catch (err) {
        failures.push(`${b.name} ${op}: ${err instanceof Error ? err.message : String(err)}`);
      } finally {
        b.inFlight--;
      }
    };
    // while a process starts (tsx compiling the tree: CPU the load would share on a small machine), one client
    let clients = 4;
    let resume = () => {};
    let resumed = Promise.resolve();
    const load = Promise.all(
      Array.from({ length: 4 }, async (_, c) => {
        while (!stop && next < 5_000) {
          if (c < clients) await one(next++);
          else await resumed;
        }
      }),
    );
    const servedBy = (name: string, n: number) => eventually(async () => (backends.find((b) => b.name === name)?.served ?? 0) >= n, 60_000);

    try {
      await servedBy("previous", 15);
      await servedBy("today-1", 15);
      // as docs/operations.md says: the replacement first, in rotation once ready, then the old one out
      clients = 1;
      resumed = new Promise((resolve) => (resume = resolve));
      const replacement = await start("today's replacement", ROOT);
      clients = 4;
      resume();
      await eventually(async () => (await fetch(`${replacement.url}/readyz`)).status === 200, 30_000);
      backends.push({ name: "today-2", url: replacement.url, till: replacement.till, inRotation: true, inFlight: 0, served: 0 });
      await servedBy("today-2", 5);

      const old = backends[0] as Backend;
      const exitCode = new Promise<number | null>((resolve) => old.till.child.once("exit", (code) => resolve(code)));
      // a release with /readyz answers not-ready on SIGTERM while it still serves: the balancer takes it out on
      // seeing that. One without it (404) is taken out first, its requests in flight finish, then it is stopped.
      const hasReadyz = (await fetch(`${old.url}/readyz`)).status !== 404;
      console.log(`[rolling-upgrade] the previous release ${hasReadyz ? "drains on SIGTERM" : "has no /readyz: taken out of rotation first"}`);
      if (hasReadyz) {
        old.till.child.kill("SIGTERM");
        await eventually(async () => (await fetch(`${old.url}/readyz`)).status === 503, 10_000);
        old.inRotation = false;
      } else {
        old.inRotation = false;
        await eventually(async () => old.inFlight === 0, 30_000);
        old.till.child.kill("SIGTERM");
      }
      expect(await exitCode).toBe(0);
      // and the two of today's serve on after it left
      const after = backends.map((b) => b.served);
      await eventually(async () => backends.every((b, i) => b === old || b.served >= (after[i] ?? 0) + 10), 60_000);
    } finally {
      stop = true;
      resume();
      await load;
    }
    console.log(`[rolling-upgrade] served: ${backends.map((b) => `${b.name} ${b.served}`).join(", ")}; failed ${failures.length}`);
    expect(failures).toEqual([]);

    // every purchase's order.paid delivered, whichever process's worker took it
    await eventually(async () => {
      const seen = paidCheckouts(receiver);
      return purchased.every((id) => seen.has(id));
    }, 60_000);
  });
});
