// The import's cut-over when things break, against the Stripe stand-in. A hand-over whose update Stripe applied but
// whose answer was lost, or which Stripe refused (500) or throttled (429), is tried again and reads back what Stripe
// did: each subscription ends up till's once. And the real server killed with SIGKILL while 200 subscriptions are
// being handed over: at that moment none renews on both sides, none is marked at Stripe for another of till's than
// its own; restarted on the same database, the run finishes, and a rerun changes nothing. Killed while the run still
// writes till's side (importing), the restart stages no subscription twice.
// The kill is PostgreSQL only: PGlite lives inside the killed process.
import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { eq, sql } from "drizzle-orm";
import type Stripe from "stripe";
import { afterAll, describe, expect, it } from "vitest";
import { billingImport, outbox, subscriptionHandover } from "../../server/db/schema/index.js";
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
    const [lost, refused, throttled, plain, changed, updated] = await subscribers(stripe, "fault", 6, price.id, 1);
    if (!lost || !refused || !throttled || !plain || !changed || !updated) throw new Error("seeding failed");
    const ids = [lost, refused, throttled, plain].map((x) => x.id);
    // every try of the stripe client within one attempt (its two retries, the connection's extra one): it fails
    s.faults.dropAfterProcessing("POST", `/v1/subscriptions/${lost.id}`, { times: 3 });
    s.faults.serverError("POST", `/v1/subscriptions/${refused.id}`, { times: 3 });
    // refused too, then canceled at Stripe before the next attempt: it stays Stripe's, and the plan says why
    s.faults.serverError("POST", `/v1/subscriptions/${changed.id}`, { times: 3 });
    // …and one given a coupon at Stripe meanwhile (an update of what till's was made from)
    s.faults.serverError("POST", `/v1/subscriptions/${updated.id}`, { times: 3 });
    // fewer than the pace waits out: the same attempt goes on after the pause
    s.faults.rateLimit("POST", `/v1/subscriptions/${throttled.id}`, { times: 2 });
    const { api, settled } = importClient(() => s.server, () => s.key);
    const run = await api<StripeImportWire>("POST", "/stripe/imports", { dry_run: false });
    const db = s.server.database.db;
    const byStripe = async () => new Map((await handovers(db)).map((h) => [h.sourceSubscriptionId, h]));
    await until(async () => {
      const h = await byStripe();
      const tried = [lost, refused, changed, updated].every((x) => (h.get(x.id)?.attempts ?? 0) >= 1);
      return tried && [throttled, plain].every((x) => h.get(x.id)?.state === "moved") ? true : undefined;
    }, "the first attempts", 60_000);
    expect(s.faults.pending()).toBe(0);
    expect(s.faults.injected.map((f) => f.kind).sort()).toEqual([...Array(9).fill("api_error"), ...Array(3).fill("drop_after_processing"), "rate_limit", "rate_limit"].sort());

    // the lost answer: Stripe ends its subscription, marked for till's, which still waits; the refused one is untouched
    const first = new Map((await readSides(db, stripe, ids)).map((x) => [x.stripeId, x]));
    const h = await byStripe();
    expect(breaches([...first.values()])).toEqual([]);
    expect(first.get(lost.id)).toMatchObject({ endsAtStripe: true, mark: h.get(lost.id)?.subscriptionId, till: [{ status: "incomplete" }] });
    expect(first.get(refused.id)).toMatchObject({ endsAtStripe: false, mark: undefined, till: [{ status: "incomplete" }] });
    for (const x of [lost, refused]) expect(h.get(x.id)).toMatchObject({ state: "pending", attempts: 1, detail: expect.stringContaining("Stripe") });
    expect((await api<StripeImportWire>("GET", `/stripe/imports/${run.id}`)).status).toBe("moving");

    // the next attempt is due a minute or two later: brought forward, once one of them was canceled at Stripe
    await stripe.subscriptions.cancel(changed.id);
    const coupon = await stripe.coupons.create({ percent_off: 10, duration: "forever" });
    await stripe.subscriptions.update(updated.id, { discounts: [{ coupon: coupon.id }] });
    await db.update(subscriptionHandover).set({ nextAttemptAt: sql`now()` }).where(sql`${subscriptionHandover.state} = 'pending'`);
    const done = await settled(run.id, ["succeeded", "failed"]);
    expect(done.status, done.error ?? "").toBe("succeeded");
    expect(done.counts.subscription).toEqual({ moved: 4, blocked: 2 });
    const { itemsOf } = importClient(() => s.server, () => s.key);
    const items = await itemsOf(run.id);
    expect(items.find((i) => i.stripe_id === changed.id)).toMatchObject({ action: "blocked", reason: expect.stringContaining("It is canceled at Stripe now. It stays Stripe's") });
    expect(items.find((i) => i.stripe_id === updated.id)).toMatchObject({ action: "blocked", reason: expect.stringContaining("Its coupon changed at Stripe since the plan.") });
    for (const gone of await readSides(db, stripe, [changed.id, updated.id])) {
      expect(gone, gone.stripeId).toMatchObject({ endsAtStripe: false, mark: undefined, till: [{ status: "incomplete_expired" }] });
    }
    const after = await readSides(db, stripe, ids);
    expect(breaches(after)).toEqual([]);
    for (const x of after) {
      expect(x.till, x.stripeId).toHaveLength(1);
      expect(x, x.stripeId).toMatchObject({ endsAtStripe: true, mark: x.till[0]?.id, till: [{ status: "active" }] });
    }
    // announced once each, the retried ones included (the outbox holds every event written), the canceled one never
    const created = await db.select({ payload: outbox.payload }).from(outbox).where(eq(outbox.type, "subscription.created"));
    const announced = created.map((row) => String(row.payload.id)).sort();
    expect(announced).toEqual(after.map((x) => x.till[0]?.id).sort());
    const delivered = await receiver.until((hits) => (hits.length >= 4 ? hits : undefined));
    expect(delivered.map((x) => (JSON.parse(x.body) as { data: { id: string } }).data.id).sort()).toEqual(announced);
  }, 120_000);
});

/** Subscriptions the kill test hands over, and the pace that keeps their hand-overs in flight for several seconds. */
const SUBSCRIPTIONS = 200;
const RATE = 50;

interface World {
  peer: StripePeer;
  database: Awaited<ReturnType<typeof freshDatabase>>;
  env: Record<string, string>;
  till: Till;
  stripe: Stripe;
  /** The Stripe subscriptions to hand over. */
  ids: string[];
  client: ReturnType<typeof importClient>;
}

const killed = async (till: Till | undefined) => {
  if (!till || till.child.exitCode !== null || till.child.signalCode !== null) return;
  till.child.kill("SIGKILL");
  await till.exited;
};

describe.skipIf(!usingPostgres)("kill -9 of the server while 200 subscriptions are imported (PostgreSQL only)", () => {
  const worlds: World[] = [];
  afterAll(async () => {
    for (const w of worlds) {
      await killed(w.till);
      await w.peer.stop();
      await w.database.close();
    }
  });

  /** A stand-in with 200 subscriptions, and till as its own process on a fresh database, connected to it. */
  async function world(tag: string): Promise<World> {
    const peer = new StripePeer([{ id: "acct_1TillPay", keys: [{ secret: STRIPE_KEYS.secret }, { secret: STRIPE_KEYS.publishable }] }]);
    const stripeUrl = await peer.start();
    const database = await freshDatabase();
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const env = {
      DATABASE_URL: database.url ?? "",
      HOST: "127.0.0.1",
      PORT: String(port),
      // Stripe registers only a public URL for its events; the stand-in reaches it at the process (as the sandbox does)
      TILL_BASE_URL: "https://till.example.com",
      TILL_TRUSTED_ORIGINS: url,
      TILL_DATA_DIR: mkdtempSync(path.join(os.tmpdir(), "till-import-kill-")),
      TILL_AUTH_SECRET: "import-kill-secret-".padEnd(40, "x"),
      TILL_STRIPE_API_URL: stripeUrl,
      TILL_STRIPE_IMPORT_RATE: String(RATE),
      TILL_RATE_LIMIT: "false",
      TILL_LOG_LEVEL: "warn",
    };
    peer.rewriteUrl = (to) => `${url}${new URL(to).pathname}`;
    const w: World = { peer, database, env, till: await startTill(env), stripe: peerClient(peer), ids: [], client: importClient(() => ({ url }), () => key) };
    worlds.push(w);
    const seller = await createSeller({ url }, tag);
    const key = await seller.createSandboxKey();
    const connected = await fetch(`${url}/v1/stripe/connection`, {
      method: "PUT",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ secret_key: STRIPE_KEYS.secret, publishable_key: STRIPE_KEYS.publishable }),
    });
    expect(connected.status, await connected.text()).toBe(200);
    const price = await monthly(w.stripe, "Plan of many");
    w.ids = (await subscribers(w.stripe, tag, SUBSCRIPTIONS, price.id)).map((x) => x.id);
    return w;
  }

  /** Restarted on the same database, after moving the dead process's leases (a minute) past rather than waiting. */
  async function restart(w: World): Promise<void> {
    const db = w.database.db;
    await db.update(subscriptionHandover).set({ lockedUntil: sql`now() - interval '1 second'` }).where(sql`${subscriptionHandover.lockedUntil} > now()`);
    await db.update(billingImport).set({ lockedUntil: sql`now() - interval '1 second'` }).where(sql`${billingImport.lockedUntil} > now()`);
    w.till = await startTill(w.env);
  }

  /** The run succeeds with every subscription moved once; a rerun changes nothing. */
  async function finishes(w: World, runId: string): Promise<void> {
    const { settled, runImport } = w.client;
    const done = await settled(runId, ["succeeded", "failed"], 180_000);
    expect(done.status, done.error ?? "").toBe("succeeded");
    expect(done.counts.subscription).toEqual({ moved: SUBSCRIPTIONS });
    const after = await readSides(w.database.db, w.stripe, w.ids);
    expect(breaches(after)).toEqual([]);
    for (const x of after) {
      expect(x.till, x.stripeId).toHaveLength(1);
      expect(x, x.stripeId).toMatchObject({ endsAtStripe: true, mark: x.till[0]?.id, till: [{ status: "active" }] });
    }
    expect(new Set(after.map((x) => x.till[0]?.id)).size).toBe(SUBSCRIPTIONS);

    const again = await runImport(false, 180_000);
    expect(again.status, again.error ?? "").toBe("succeeded");
    for (const kind of ["product", "price", "customer"] as const) {
      expect(again.counts[kind].create ?? 0, kind).toBe(0);
      expect(again.counts[kind].update ?? 0, kind).toBe(0);
    }
    expect(again.counts.subscription).toEqual({ moved: SUBSCRIPTIONS });
    expect((await readSides(w.database.db, w.stripe, w.ids)).map((x) => x.till)).toEqual(after.map((x) => x.till));
  }

  it("never renews on both sides when killed while moving, and finishes after a restart", { timeout: 240_000 + 2 * START_TIMEOUT_MS }, async () => {
    const w = await world("kill-moving");
    const { api } = w.client;
    const run = await api<StripeImportWire>("POST", "/stripe/imports", { dry_run: false });
    // kill once the run is moving and a quarter of its subscriptions moved (the hand-overs well under way), not all
    const moving = await until(async () => {
      const now = await api<StripeImportWire>("GET", `/stripe/imports/${run.id}`);
      const moved = now.counts.subscription.moved ?? 0;
      if (now.status === "succeeded" || now.status === "failed") throw new Error(`the run ended before the kill: ${JSON.stringify(now)}`);
      return now.status === "moving" && moved >= SUBSCRIPTIONS / 4 && moved < SUBSCRIPTIONS ? now : undefined;
    }, "some of the subscriptions moved", 120_000);
    await killed(w.till);
    expect(moving.counts.subscription.moved).toBeLessThan(SUBSCRIPTIONS);

    // at the kill: never both renewing, never marked for another; some still waiting (the restart's work)
    const atKill = await readSides(w.database.db, w.stripe, w.ids);
    expect(breaches(atKill)).toEqual([]);
    expect(atKill.every((x) => x.till.length === 1)).toBe(true);
    const waiting = atKill.filter((x) => x.till[0]?.status === "incomplete");
    expect(waiting.length).toBeGreaterThan(0);
    expect(atKill.filter((x) => x.till[0]?.status === "active").length).toBeGreaterThan(0);
    expect((await handovers(w.database.db)).filter((h) => h.state === "pending").length).toBe(waiting.length);

    await restart(w);
    await finishes(w, run.id);
  });

  it("stages each subscription once when killed while importing, and finishes after a restart", { timeout: 240_000 + 2 * START_TIMEOUT_MS }, async () => {
    const w = await world("kill-importing");
    const db = w.database.db;
    const run = await w.client.api<StripeImportWire>("POST", "/stripe/imports", { dry_run: false });
    // kill once some of till's waiting subscriptions are written, not all
    await until(async () => {
      const staged = (await handovers(db)).length;
      return staged > 0 && staged < SUBSCRIPTIONS ? true : undefined;
    }, "some subscriptions staged", 120_000);
    await killed(w.till);
    expect((await db.select({ status: billingImport.status }).from(billingImport).where(sql`${billingImport.id} = ${run.id}`))[0]?.status).toBe("importing");
    const atKill = await readSides(db, w.stripe, w.ids);
    expect(breaches(atKill)).toEqual([]);
    const staged = atKill.filter((x) => x.till.length > 0);
    expect(staged.length).toBeGreaterThan(0);
    expect(staged.length).toBeLessThan(SUBSCRIPTIONS);

    await restart(w);
    await finishes(w, run.id);
    // the ones staged before the kill moved as they were, none staged again
    const after = new Map((await readSides(db, w.stripe, w.ids)).map((x) => [x.stripeId, x.till[0]?.id]));
    for (const x of staged) expect(after.get(x.stripeId), x.stripeId).toBe(x.till[0]?.id);
  });
});
