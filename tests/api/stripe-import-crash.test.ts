// The import's cut-over when things break, against the Stripe stand-in. A hand-over whose update Stripe applied but
// whose answer was lost, or which Stripe refused (500) or throttled (429), is tried again and reads back what Stripe
// did: each subscription ends up till's once. And the real server killed with SIGKILL while 200 subscriptions are
// being handed over: at that moment none renews on both sides, none is marked at Stripe for another of till's than
// its own; restarted on the same database, the run finishes, and a rerun changes nothing.
// The kill is PostgreSQL only: PGlite lives inside the killed process.
import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { sql } from "drizzle-orm";
import type Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { subscriptionHandover } from "../../server/db/schema/index.js";
import type { StripeImportWire } from "../../shared/stripe-import.js";
import { freshDatabase, usingPostgres } from "../helpers/db.js";
import { Receiver } from "../helpers/receiver.js";
import { createSeller } from "../helpers/seller.js";
import { peerClient } from "../helpers/stripe-billing-seed.js";
import { importClient } from "../helpers/stripe-import-client.js";
import { breaches, handovers, readSides } from "../helpers/stripe-import-sides.js";
import { StripePeer } from "../helpers/stripe-peer.js";
import { STRIPE_KEYS, until, useWebhookSandbox, type StripeSandbox } from "../helpers/stripe-sandbox.js";
import { freePort, START_TIMEOUT_MS, startTill, type Till } from "../helpers/till-process.js";

/** `count` customers with a card, each subscribed to `price`, made `width` at a time. */
async function subscribers(stripe: Stripe, tag: string, count: number, price: string, width = 10): Promise<Stripe.Subscription[]> {
  const out: Stripe.Subscription[] = [];
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < count) {
      const i = next++;
      const customer = await stripe.customers.create({ email: `${tag}-${i}@buyers.example.com`, name: `Buyer ${i}` });
      const pm = await stripe.paymentMethods.attach("pm_card_visa", { customer: customer.id });
      await stripe.customers.update(customer.id, { invoice_settings: { default_payment_method: pm.id } });
      out.push(await stripe.subscriptions.create({ customer: customer.id, items: [{ price }] }));
    }
  }));
  return out;
}

const monthly = (stripe: Stripe, name: string) =>
  stripe.prices.create({ product_data: { name }, currency: "usd", unit_amount: 1200, recurring: { interval: "month" } });

describe("a hand-over whose update is lost, refused or throttled", () => {
  let s: StripeSandbox;
  const receiver = new Receiver();
  useWebhookSandbox(receiver, "/crash", ["subscription.created"], (r) => {
    ({ s } = r);
  });

  it("is tried again, reads back what Stripe did, and moves each subscription once", async () => {
    const stripe = peerClient(s.peer);
    const price = await monthly(stripe, "Faulty plan");
    const [lost, refused, throttled, plain] = await subscribers(stripe, "fault", 4, price.id, 1);
    if (!lost || !refused || !throttled || !plain) throw new Error("seeding failed");
    const ids = [lost, refused, throttled, plain].map((x) => x.id);
    // every try of the stripe client within one attempt (its two retries, the connection's extra one): the attempt fails
    s.faults.dropAfterProcessing("POST", `/v1/subscriptions/${lost.id}`, { times: 3 });
    s.faults.serverError("POST", `/v1/subscriptions/${refused.id}`, { times: 3 });
    // fewer than the pace waits out: the same attempt goes on after the pause
    s.faults.rateLimit("POST", `/v1/subscriptions/${throttled.id}`, { times: 2 });
    const { api, settled } = importClient(() => s.server, () => s.key);
    const run = await api<StripeImportWire>("POST", "/stripe/imports", { dry_run: false });
    const db = s.server.database.db;
    const byStripe = async () => new Map((await handovers(db)).map((h) => [h.sourceSubscriptionId, h]));
    await until(async () => {
      const h = await byStripe();
      const tried = [lost, refused].every((x) => (h.get(x.id)?.attempts ?? 0) >= 1);
      return tried && [throttled, plain].every((x) => h.get(x.id)?.state === "moved") ? true : undefined;
    }, "the first attempts", 60_000);
    expect(s.faults.pending()).toBe(0);
    expect(s.faults.injected.map((f) => f.kind).sort()).toEqual([...Array(3).fill("api_error"), ...Array(3).fill("drop_after_processing"), "rate_limit", "rate_limit"].sort());

    // the lost answer: Stripe ends its subscription, marked for till's, which still waits; the refused one is untouched
    const first = new Map((await readSides(db, stripe, ids)).map((x) => [x.stripeId, x]));
    const h = await byStripe();
    expect(breaches([...first.values()])).toEqual([]);
    expect(first.get(lost.id)).toMatchObject({ endsAtStripe: true, mark: h.get(lost.id)?.subscriptionId, till: [{ status: "incomplete" }] });
    expect(first.get(refused.id)).toMatchObject({ endsAtStripe: false, mark: undefined, till: [{ status: "incomplete" }] });
    for (const x of [lost, refused]) expect(h.get(x.id)).toMatchObject({ state: "pending", attempts: 1, detail: expect.stringContaining("Stripe") });
    expect((await api<StripeImportWire>("GET", `/stripe/imports/${run.id}`)).status).toBe("moving");

    // the next attempt is due a minute or two later: brought forward
    await db.update(subscriptionHandover).set({ nextAttemptAt: sql`now()` }).where(sql`${subscriptionHandover.state} = 'pending'`);
    const done = await settled(run.id, ["succeeded", "failed"]);
    expect(done.status, done.error ?? "").toBe("succeeded");
    expect(done.counts.subscription).toEqual({ moved: 4 });
    const after = await readSides(db, stripe, ids);
    expect(breaches(after)).toEqual([]);
    for (const x of after) {
      expect(x.till, x.stripeId).toHaveLength(1);
      expect(x, x.stripeId).toMatchObject({ endsAtStripe: true, mark: x.till[0]?.id, till: [{ status: "active" }] });
    }
    // announced once each, the retried ones included
    const created = await receiver.until((hits) => (hits.length >= 4 ? hits : undefined));
    await new Promise((r) => setTimeout(r, 1_000));
    expect(receiver.hits).toHaveLength(created.length);
    const announced = receiver.hits.map((x) => (JSON.parse(x.body) as { data: { id: string } }).data.id).sort();
    expect(announced).toEqual(after.map((x) => x.till[0]?.id).sort());
  }, 120_000);
});

/** Subscriptions the kill test hands over, and the pace that keeps their hand-overs in flight for several seconds. */
const SUBSCRIPTIONS = 200;
const RATE = 50;

describe.skipIf(!usingPostgres)("kill -9 of the server while 200 subscriptions are handed over (PostgreSQL only)", () => {
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let peer: StripePeer;
  let till: Till | undefined;
  let env: Record<string, string>;

  const stop = async () => {
    if (!till || till.child.exitCode !== null || till.child.signalCode !== null) return;
    till.child.kill("SIGKILL");
    await till.exited;
  };

  beforeAll(async () => {
    peer = new StripePeer([{ id: "acct_1TillPay", keys: [{ secret: STRIPE_KEYS.secret }, { secret: STRIPE_KEYS.publishable }] }]);
    const stripeUrl = await peer.start();
    database = await freshDatabase();
    env = {
      DATABASE_URL: database.url ?? "",
      HOST: "127.0.0.1",
      TILL_DATA_DIR: mkdtempSync(path.join(os.tmpdir(), "till-import-kill-")),
      TILL_AUTH_SECRET: "import-kill-secret-".padEnd(40, "x"),
      TILL_STRIPE_API_URL: stripeUrl,
      TILL_STRIPE_IMPORT_RATE: String(RATE),
      TILL_RATE_LIMIT: "false",
      TILL_LOG_LEVEL: "warn",
    };
  });
  afterAll(async () => {
    await stop();
    await peer?.stop();
    await database?.close();
  });

  it("never renews on both sides at the kill, and finishes after a restart", { timeout: 240_000 + 2 * START_TIMEOUT_MS }, async () => {
    await stop();
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    // Stripe registers only a public URL for its events; the stand-in reaches it at the process (as the sandbox does)
    env = { ...env, PORT: String(port), TILL_BASE_URL: "https://till.example.com", TILL_TRUSTED_ORIGINS: url };
    peer.rewriteUrl = (to) => `${url}${new URL(to).pathname}`;
    till = await startTill(env);
    const seller = await createSeller({ url }, "import-kill");
    const key = await seller.createSandboxKey();
    const connected = await fetch(`${url}/v1/stripe/connection`, {
      method: "PUT",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ secret_key: STRIPE_KEYS.secret, publishable_key: STRIPE_KEYS.publishable }),
    });
    expect(connected.status, await connected.text()).toBe(200);
    const stripe = peerClient(peer);
    const price = await monthly(stripe, "Plan of many");
    const ids = (await subscribers(stripe, "kill", SUBSCRIPTIONS, price.id)).map((x) => x.id);
    const { api, settled, runImport } = importClient(() => ({ url }), () => key);
    const db = database.db;

    const run = await api<StripeImportWire>("POST", "/stripe/imports", { dry_run: false });
    // kill once the run is moving and a quarter of its subscriptions moved (the hand-overs well under way), not all
    const moving = await until(async () => {
      const now = await api<StripeImportWire>("GET", `/stripe/imports/${run.id}`);
      const moved = now.counts.subscription.moved ?? 0;
      if (now.status === "succeeded" || now.status === "failed") throw new Error(`the run ended before the kill: ${JSON.stringify(now)}`);
      return now.status === "moving" && moved >= SUBSCRIPTIONS / 4 && moved < SUBSCRIPTIONS ? now : undefined;
    }, "some of the subscriptions moved", 120_000);
    till.child.kill("SIGKILL");
    await till.exited;
    expect(moving.counts.subscription.moved).toBeLessThan(SUBSCRIPTIONS);

    // at the kill: never both renewing, never marked for another; some still waiting (the restart's work)
    const atKill = await readSides(db, stripe, ids);
    expect(breaches(atKill)).toEqual([]);
    expect(atKill.every((x) => x.till.length === 1)).toBe(true);
    const waiting = atKill.filter((x) => x.till[0]?.status === "incomplete");
    expect(waiting.length).toBeGreaterThan(0);
    expect(atKill.filter((x) => x.till[0]?.status === "active").length).toBeGreaterThan(0);
    expect((await handovers(db)).filter((h) => h.state === "pending").length).toBe(waiting.length);

    // the dead process's leases run a minute; move the clock past them rather than wait (what a later restart sees)
    await db.update(subscriptionHandover).set({ lockedUntil: sql`now() - interval '1 second'` }).where(sql`${subscriptionHandover.lockedUntil} > now()`);
    till = await startTill(env);
    const done = await settled(run.id, ["succeeded", "failed"], 180_000);
    expect(done.status, done.error ?? "").toBe("succeeded");
    expect(done.counts.subscription).toEqual({ moved: SUBSCRIPTIONS });
    const after = await readSides(db, stripe, ids);
    expect(breaches(after)).toEqual([]);
    for (const x of after) {
      expect(x.till, x.stripeId).toHaveLength(1);
      expect(x, x.stripeId).toMatchObject({ endsAtStripe: true, mark: x.till[0]?.id, till: [{ status: "active" }] });
    }
    expect(new Set(after.map((x) => x.till[0]?.id)).size).toBe(SUBSCRIPTIONS);

    // a rerun changes nothing
    const again = await runImport(false, 180_000);
    expect(again.status, again.error ?? "").toBe("succeeded");
    for (const kind of ["product", "price", "customer"] as const) {
      expect(again.counts[kind].create ?? 0, kind).toBe(0);
      expect(again.counts[kind].update ?? 0, kind).toBe(0);
    }
    expect(again.counts.subscription).toEqual({ moved: SUBSCRIPTIONS });
    const rerun = await readSides(db, stripe, ids);
    expect(rerun.map((x) => x.till)).toEqual(after.map((x) => x.till));
  });
});
