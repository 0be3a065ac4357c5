// Undoing an import against the Stripe stand-in: each subscription the run moved is announced (subscription.created
// with its Stripe id in metadata) and granted its benefits; after till renewed one of them, the undo hands the others
// back (revoked in till with their benefits, renewing at Stripe again with no mark of till's) and keeps the renewed
// one till's (Stripe's side still ending). An undo runs once, and a dry run has nothing to undo. Run again, the import
// moves what was handed back; an undo while a hand-over still waits calls it off (never renewed in till).
import type Stripe from "stripe";
import { beforeAll, describe, expect, it } from "vitest";
import type { StripeImportWire } from "../../shared/stripe-import.js";
import { rawRequest } from "../helpers/api.js";
import { Receiver } from "../helpers/receiver.js";
import { peerClient } from "../helpers/stripe-billing-seed.js";
import { importClient, itemOf } from "../helpers/stripe-import-client.js";
import { handovers } from "../helpers/stripe-import-sides.js";
import { until, useWebhookSandbox, type StripeSandbox } from "../helpers/stripe-sandbox.js";

let s: StripeSandbox;
let stripe: Stripe;
const receiver = new Receiver();
const EVENTS = ["subscription.created", "subscription.revoked", "benefit_grant.created", "benefit_grant.revoked"] as const;

useWebhookSandbox(receiver, "/undo", [...EVENTS], (r) => {
  ({ s } = r);
});

const { api, runImport, itemsOf, settled } = importClient(() => s.server, () => s.key);

interface Event {
  type: string;
  data: { id: string; metadata?: Record<string, unknown>; subscription_id?: string | null };
}
const events = () => receiver.at("/undo").map((h) => JSON.parse(h.body) as Event);

interface Grant {
  subscription_id: string | null;
  is_granted: boolean;
  is_revoked: boolean;
}
const grantsOf = async (subscriptionId: string) =>
  (await api<{ items: Grant[] }>("GET", "/benefit-grants/?limit=100")).items.filter((g) => g.subscription_id === subscriptionId);

const undo = (id: string) => rawRequest(s.server.url, s.key, "POST", `/v1/stripe/imports/${id}/undo`);

/** Stripe's side of a subscription: whether it ends with its period, and till's mark. */
async function atStripe(id: string) {
  const sub = await stripe.subscriptions.retrieve(id);
  return { status: sub.status, cancelAtPeriodEnd: sub.cancel_at_period_end, mark: sub.metadata.till_subscription_id };
}

async function customerWithCard(email: string): Promise<Stripe.Customer> {
  const customer = await stripe.customers.create({ email, name: email.split("@")[0] });
  const pm = await stripe.paymentMethods.attach("pm_card_visa", { customer: customer.id });
  return stripe.customers.update(customer.id, { invoice_settings: { default_payment_method: pm.id } });
}

describe("undoing an import", () => {
  const customers: Record<"ann" | "ben" | "cat", Stripe.Customer | undefined> = { ann: undefined, ben: undefined, cat: undefined };
  const prices: { monthly?: Stripe.Price; yearly?: Stripe.Price } = {};
  const subs: Partial<Record<"ann" | "ben" | "cat", Stripe.Subscription>> = {};
  /** till's subscription of each, after the import. */
  const mine: Record<string, string> = {};
  let applied: StripeImportWire;

  beforeAll(async () => {
    stripe = peerClient(s.peer);
    for (const name of ["ann", "ben", "cat"] as const) customers[name] = await customerWithCard(`${name}-undo@buyers.example.com`);
    prices.monthly = await stripe.prices.create({ product_data: { name: "Monthly plan" }, currency: "usd", unit_amount: 1200, recurring: { interval: "month" } });
    prices.yearly = await stripe.prices.create({ product_data: { name: "Yearly plan" }, currency: "usd", unit_amount: 12000, recurring: { interval: "year" } });
  }, 60_000);

  it("answers 409 to the undo of a dry run", async () => {
    const dry = await runImport(true);
    expect(dry.status, dry.error ?? "").toBe("planned");
    const res = await undo(dry.id);
    expect(res.status, JSON.stringify(res.body)).toBe(409);
    expect((await api<StripeImportWire>("GET", `/stripe/imports/${dry.id}`)).status).toBe("planned");
  }, 60_000);

  it("moves each subscription over with its benefits, announced with its Stripe id", async () => {
    // the catalog first, so that its products carry a benefit in till before any subscription moves
    const catalog = await runImport(false);
    expect(catalog.status, catalog.error ?? "").toBe("succeeded");
    const benefit = await s.sdk.benefits.create({ type: "custom", description: "Priority support", properties: { note: "thanks" } });
    const products = (await s.sdk.products.list({ limit: 100 })).result.items;
    expect(products).toHaveLength(2);
    for (const p of products) await s.sdk.products.updateBenefits({ id: p.id, productBenefitsUpdate: { benefits: [benefit.id] } });

    subs.ann = await stripe.subscriptions.create({ customer: customers.ann?.id ?? "", items: [{ price: prices.monthly?.id ?? "" }] });
    subs.ben = await stripe.subscriptions.create({ customer: customers.ben?.id ?? "", items: [{ price: prices.yearly?.id ?? "" }] });
    subs.cat = await stripe.subscriptions.create({ customer: customers.cat?.id ?? "", items: [{ price: prices.yearly?.id ?? "" }] });
    applied = await runImport(false);
    expect(applied.status, applied.error ?? "").toBe("succeeded");
    const items = await itemsOf(applied.id);
    for (const [name, sub] of Object.entries(subs)) {
      const it = itemOf(items, "subscription", sub.id);
      expect(it.action, `${name}: ${JSON.stringify(it)}`).toBe("moved");
      mine[name] = it.till_id ?? "";
      expect((await s.sdk.subscriptions.get({ id: mine[name] })).status).toBe("active");
      expect(await atStripe(sub.id)).toEqual({ status: "active", cancelAtPeriodEnd: true, mark: mine[name] });
    }
    // one subscription.created per subscription moved, naming its Stripe subscription; its benefit granted
    const created = await until(async () => {
      const got = events().filter((e) => e.type === "subscription.created");
      return got.length >= 3 ? got : undefined;
    }, "subscription.created for each subscription moved");
    expect(created.map((e) => [e.data.id, e.data.metadata?.stripe_subscription_id]).sort()).toEqual(Object.entries(subs).map(([name, sub]) => [mine[name], sub.id]).sort());
    for (const name of Object.keys(subs)) expect(await grantsOf(mine[name] ?? "")).toMatchObject([{ is_granted: true, is_revoked: false }]);
  }, 90_000);

  it("hands back what till has not renewed, keeps what it has, and runs once", async () => {
    // ann's monthly period ends in till; ben's and cat's yearly ones are far off
    const advanced = await rawRequest(s.server.url, s.key, "POST", "/v1/test-clock/advance", { by: "32d" });
    expect(advanced.status, JSON.stringify(advanced.body)).toBe(200);
    const stripeEnd = (subs.ann?.items.data[0]?.current_period_end ?? 0) * 1000;
    await until(async () => {
      const sub = await s.sdk.subscriptions.get({ id: mine.ann ?? "" });
      return sub.currentPeriodStart.getTime() >= stripeEnd ? sub : undefined;
    }, "ann renewed in till", 30_000);
    for (const name of ["ben", "cat"]) expect((await s.sdk.subscriptions.get({ id: mine[name] ?? "" })).status).toBe("active");

    const res = await undo(applied.id);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(["undoing", "undone"]).toContain((res.body as unknown as StripeImportWire).status);
    const undone = await settled(applied.id, ["undone"]);
    expect(undone.counts.subscription).toEqual({ handed_back: 2, moved: 1 });
    const items = await itemsOf(applied.id);
    expect(itemOf(items, "subscription", subs.ann?.id ?? "")).toMatchObject({ action: "moved", till_id: mine.ann });
    for (const name of ["ben", "cat"] as const) {
      expect(itemOf(items, "subscription", subs[name]?.id ?? "")).toMatchObject({ action: "handed_back", till_id: mine[name] });
      // revoked in till, its benefit with it; renewing at Stripe again, with no mark of till's
      const theirs = await s.sdk.subscriptions.get({ id: mine[name] ?? "" });
      expect(theirs.status, name).toBe("canceled");
      expect(theirs.endedAt, name).not.toBeNull();
      expect(await grantsOf(mine[name] ?? "")).toMatchObject([{ is_granted: false, is_revoked: true }]);
      expect(await atStripe(subs[name]?.id ?? "")).toEqual({ status: "active", cancelAtPeriodEnd: false, mark: undefined });
    }
    // the renewed one stays till's, and Stripe's still ends with its period
    expect((await s.sdk.subscriptions.get({ id: mine.ann ?? "" })).status).toBe("active");
    expect(await grantsOf(mine.ann ?? "")).toMatchObject([{ is_granted: true, is_revoked: false }]);
    expect(await atStripe(subs.ann?.id ?? "")).toEqual({ status: "active", cancelAtPeriodEnd: true, mark: mine.ann });
    const revoked = await until(async () => {
      const got = events().filter((e) => e.type === "subscription.revoked");
      return got.length >= 2 ? got : undefined;
    }, "subscription.revoked of the ones handed back");
    expect(revoked.map((e) => e.data.id).sort()).toEqual([mine.ben, mine.cat].sort());

    const again = await undo(applied.id);
    expect(again.status, JSON.stringify(again.body)).toBe(409);
    expect((await api<StripeImportWire>("GET", `/stripe/imports/${applied.id}`)).status).toBe("undone");
  }, 90_000);

  it("moves what was handed back again when run again, and an undo calls off a hand-over still pending", async () => {
    // ben's hand-over fails at Stripe (500 on each try) and waits its next attempt; cat's goes through
    s.faults.serverError("POST", `/v1/subscriptions/${subs.ben?.id ?? ""}`, { times: 3 });
    const started = await api<StripeImportWire>("POST", "/stripe/imports", { dry_run: false });
    const db = s.server.database.db;
    const ofRun = async () => new Map((await handovers(db)).filter((h) => h.importId === started.id).map((h) => [h.sourceSubscriptionId, h]));
    const waiting = await until(async () => {
      const h = await ofRun();
      const ben = h.get(subs.ben?.id ?? "");
      return ben && ben.attempts >= 1 && h.get(subs.cat?.id ?? "")?.state === "moved" ? h : undefined;
    }, "cat moved again, ben's hand-over waiting", 60_000);
    expect(s.faults.pending()).toBe(0);
    const again = { ben: waiting.get(subs.ben?.id ?? "")?.subscriptionId ?? "", cat: waiting.get(subs.cat?.id ?? "")?.subscriptionId ?? "" };
    expect([again.ben, again.cat]).not.toContain(mine.ben);
    expect([again.ben, again.cat]).not.toContain(mine.cat);
    expect(waiting.get(subs.ben?.id ?? "")?.state).toBe("pending");
    expect((await api<StripeImportWire>("GET", `/stripe/imports/${started.id}`)).status).toBe("moving");
    const items = await itemsOf(started.id);
    // ann stays as the first run left it
    expect(itemOf(items, "subscription", subs.ann?.id ?? "")).toMatchObject({ action: "moved", till_id: mine.ann });
    expect(await atStripe(subs.cat?.id ?? "")).toEqual({ status: "active", cancelAtPeriodEnd: true, mark: again.cat });
    expect(await atStripe(subs.ben?.id ?? "")).toEqual({ status: "active", cancelAtPeriodEnd: false, mark: undefined });
    expect((await s.sdk.subscriptions.get({ id: again.ben })).status).toBe("incomplete");

    const res = await undo(started.id);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const undone = await settled(started.id, ["undone"]);
    expect(undone.counts.subscription).toEqual({ handed_back: 2, moved: 1 });
    // the pending one never renews in till, and was never marked at Stripe; the moved one is revoked and unmarked
    expect((await s.sdk.subscriptions.get({ id: again.ben })).status).toBe("incomplete_expired");
    expect((await s.sdk.subscriptions.get({ id: again.cat })).status).toBe("canceled");
    for (const name of ["ben", "cat"] as const) expect(await atStripe(subs[name]?.id ?? "")).toEqual({ status: "active", cancelAtPeriodEnd: false, mark: undefined });
    // only the one that moved was announced
    const created = events().filter((e) => e.type === "subscription.created").map((e) => e.data.id);
    expect(created).toContain(again.cat);
    expect(created).not.toContain(again.ben);
    expect((await s.sdk.subscriptions.get({ id: mine.ann ?? "" })).status).toBe("active");
  }, 90_000);

  it("hands back promptly a subscription whose hand-over was at Stripe when the undo came", async () => {
    // Stripe applies ben's hand-over but holds its answer until the undo is in
    let release = () => {};
    const held = new Promise<void>((r) => (release = r));
    let asked = false;
    s.peer.holdAnswer = async (req) => {
      if (req.method !== "POST" || req.path !== `/v1/subscriptions/${subs.ben?.id ?? ""}`) return;
      asked = true;
      await held;
    };
    const started = await api<StripeImportWire>("POST", "/stripe/imports", { dry_run: false });
    const db = s.server.database.db;
    const ofRun = async () => new Map((await handovers(db)).filter((h) => h.importId === started.id).map((h) => [h.sourceSubscriptionId, h.subscriptionId]));
    await until(async () => (asked ? true : undefined), "ben's hand-over sent to Stripe", 60_000);
    const ben = (await ofRun()).get(subs.ben?.id ?? "") ?? "";
    expect(await atStripe(subs.ben?.id ?? "")).toEqual({ status: "active", cancelAtPeriodEnd: true, mark: ben });
    const res = await undo(started.id);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    release();
    s.peer.holdAnswer = undefined;
    // well within the lease the hand-over's worker took (a minute): it lets go once Stripe answered
    const undone = await settled(started.id, ["undone"], 20_000);
    expect(undone.counts.subscription?.handed_back).toBe(2);
    expect((await s.sdk.subscriptions.get({ id: ben })).status).toBe("incomplete_expired");
    for (const name of ["ben", "cat"] as const) expect(await atStripe(subs[name]?.id ?? "")).toEqual({ status: "active", cancelAtPeriodEnd: false, mark: undefined });
    expect(events().filter((e) => e.type === "subscription.created").map((e) => e.data.id)).not.toContain(ben);
  }, 90_000);
});
