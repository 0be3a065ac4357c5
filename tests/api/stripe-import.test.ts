// Importing a Stripe Billing business in place, against the Stripe stand-in: the dry run plans every shape (what
// maps to what, what stays at Stripe and why) and writes nothing; the import brings the catalog, discounts and
// customers over and hands each subscription over at the end of its Stripe period; a rerun changes nothing; till's
// first renewal charges the same card once, off-session, and the Stripe subscription ends then.
import type { Subscription } from "@polar-sh/sdk/models/components/subscription.js";
import { beforeAll, describe, expect, it } from "vitest";
import type { StripeImportWire } from "../../shared/stripe-import.js";
import { rawRequest } from "../helpers/api.js";
import { importClient, itemOf } from "../helpers/stripe-import-client.js";
import { seedBusiness, type SeededBusiness } from "../helpers/stripe-billing-seed.js";
import { Receiver } from "../helpers/receiver.js";
import { until, useWebhookSandbox, type StripeSandbox } from "../helpers/stripe-sandbox.js";

let s: StripeSandbox;
let seeded: SeededBusiness;
const receiver = new Receiver();

useWebhookSandbox(receiver, "/imports", ["subscription.created"], (r) => {
  ({ s } = r);
});
beforeAll(async () => {
  seeded = await seedBusiness(s.peer, "imp");
}, 60_000);

const { api, settled, runImport, itemsOf } = importClient(() => s.server, () => s.key);
const item = itemOf;

describe("importing a Stripe Billing business", () => {
  let applied: StripeImportWire;

  it("runs one import at a time per organization", async () => {
    await s.server.worker.stop();
    const first = await api<StripeImportWire>("POST", "/stripe/imports", { dry_run: true });
    try {
      expect(first).toMatchObject({ status: "queued", dry_run: true, account: null });
      const second = await rawRequest(s.server.url, s.key, "POST", "/v1/stripe/imports", { dry_run: false });
      expect(second.status).toBe(409);
      expect(second.body).toMatchObject({ error: "ImportInProgress" });
      const undo = await rawRequest(s.server.url, s.key, "POST", `/v1/stripe/imports/${first.id}/undo`);
      expect(undo.status).toBe(409);
      expect(undo.body).toMatchObject({ error: "ImportNotUndoable", detail: expect.stringContaining("dry run") });
    } finally {
      await s.server.worker.start();
    }
    // the worker takes the queued run up: it plans, and the next one may start
    await settled(first.id, ["planned"]);
  });

  it("plans every shape in a dry run and writes nothing", async () => {
    const run = await runImport(true);
    expect(run.status, run.error ?? "").toBe("planned");
    expect(run.account).toEqual({ id: "acct_1TillPay", livemode: false });
    expect(run.read).toMatchObject({ customers: Object.keys(seeded.customers).length, subscriptions: Object.keys(seeded.moves).length + Object.keys(seeded.stays).length + 3 });
    const items = await itemsOf(run.id);
    const { moves, stays, prices, coupon } = seeded;
    for (const sub of Object.values(moves)) expect(item(items, "subscription", sub.id).action, JSON.stringify(item(items, "subscription", sub.id))).toBe("create");
    expect(item(items, "subscription", seeded.invoiced.id)).toMatchObject({ action: "create", becomes: expect.stringContaining("invoiced with 30 days to pay") });
    expect(item(items, "subscription", seeded.withAddOn.id)).toMatchObject({ action: "create" });
    expect(item(items, "subscription", stays.noEmail.id)).toMatchObject({ action: "blocked", reason: expect.stringContaining("customer") });
    expect(item(items, "subscription", stays.pastDue.id)).toMatchObject({ action: "waiting", reason: expect.stringContaining("past due") });
    expect(item(items, "subscription", seeded.ending.id)).toMatchObject({ action: "create", becomes: expect.stringContaining("as at Stripe") });
    expect(item(items, "subscription", stays.transformed.id)).toMatchObject({ action: "blocked", reason: expect.stringContaining("transform_quantity") });
    expect(item(items, "customer", seeded.customers.nameless?.id ?? "")).toMatchObject({ action: "blocked", reason: expect.stringContaining("no email") });
    expect(item(items, "meter", seeded.meter.id).action).toBe("create");
    expect(items.find((i) => i.kind === "meter" && i.label === "Seats in use")).toMatchObject({ action: "blocked", reason: expect.stringContaining("last") });
    expect(item(items, "price", `${prices.proMonthly.id}/eur`).becomes).toContain("EUR");
    expect(item(items, "price", `${prices.proOld.id}/usd`).becomes).toContain("archived");
    expect(item(items, "price", `${prices.seat.id}/usd`).becomes).toContain("seat_based");
    expect(item(items, "price", `${prices.apiUsage.id}/usd`).becomes).toContain("metered_unit");
    expect(item(items, "discount", coupon.id).action).toBe("create");
    expect(items.find((i) => i.kind === "discount" && i.label.startsWith("promotion code FIRST"))).toMatchObject({ action: "blocked", reason: expect.stringContaining("first-time") });
    expect(run.blocked).toBeGreaterThan(0);
    // nothing was written: no product, customer or subscription in till, no Stripe subscription touched
    expect((await s.sdk.products.list({})).result.items).toHaveLength(0);
    expect((await s.sdk.customers.list({})).result.items).toHaveLength(0);
    expect(s.peer.requests.filter((r) => r.method === "POST" && r.path.startsWith("/v1/subscriptions/"))).toHaveLength(0);
  }, 60_000);

  it("imports, and hands each subscription over at the end of its Stripe period", async () => {
    applied = await runImport(false);
    expect(applied.status, applied.error ?? "").toBe("succeeded");
    const items = await itemsOf(applied.id);
    const { moves } = seeded;
    for (const [name, sub] of Object.entries(moves)) {
      const it = item(items, "subscription", sub.id);
      expect(it.action, `${name}: ${JSON.stringify(it)}`).toBe("moved");
      const mine = await s.sdk.subscriptions.get({ id: it.till_id ?? "" });
      expect(mine.status).toBe(name === "fay" ? "trialing" : "active");
      expect(mine.metadata.stripe_subscription_id).toBe(sub.id);
      const period = sub.items.data[0]?.current_period_end ?? 0;
      expect(mine.currentPeriodEnd?.getTime()).toBe(period * 1000);
      const theirs = await seeded.stripe.subscriptions.retrieve(sub.id);
      expect(theirs.cancel_at_period_end).toBe(true);
      expect(theirs.metadata.till_subscription_id).toBe(mine.id);
    }
    const ada = await s.sdk.subscriptions.get({ id: item(items, "subscription", moves.ada.id).till_id ?? "" });
    expect(ada.customer.externalId).toBe(seeded.customers.ada?.id);
    expect(ada.customer.taxId?.[0]).toBe("DE123456789");
    expect(ada.discount?.name).toBe("Launch");
    expect(ada.amount).toBe(1200);
    const bob = await s.sdk.subscriptions.get({ id: item(items, "subscription", moves.bob.id).till_id ?? "" });
    expect(bob.seats).toBe(3);
    expect(bob.amount).toBe(1500);
    // the subscriptions left at Stripe were not touched
    for (const sub of Object.values(seeded.stays)) expect((await seeded.stripe.subscriptions.retrieve(sub.id)).metadata.till_subscription_id).toBeUndefined();
    // one canceled at Stripe to end with its period: till's ends then too, and Stripe's is left as it was
    const ending = await s.sdk.subscriptions.get({ id: item(items, "subscription", seeded.ending.id).till_id ?? "" });
    expect(ending).toMatchObject({ status: "active", cancelAtPeriodEnd: true });
    const theirs = await seeded.stripe.subscriptions.retrieve(seeded.ending.id);
    expect(theirs).toMatchObject({ cancel_at_period_end: true, status: "active" });
    expect(theirs.metadata.till_subscription_id).toBeUndefined();
    // one Stripe invoices (net 30, its customer has no card): till's keeps its terms
    const dee = item(items, "subscription", seeded.invoiced.id);
    expect(dee.action, JSON.stringify(dee)).toBe("moved");
    const terms = await rawRequest(s.server.url, s.key, "GET", `/v1/subscriptions/${dee.till_id ?? ""}`);
    expect(terms.body).toMatchObject({ status: "active", collection_method: "send_invoice", days_until_due: 30 });
    // one billing two products: the first is till's product, the other its add-on (offered by it from now on)
    const eve = item(items, "subscription", seeded.withAddOn.id);
    expect(eve.action, JSON.stringify(eve)).toBe("moved");
    const withAddOn = (await rawRequest(s.server.url, s.key, "GET", `/v1/subscriptions/${eve.till_id ?? ""}`)).body as {
      amount: number; product_id: string; items: Array<{ product_id: string; quantity: number; amount: number }>;
    };
    const addOnProduct = item(items, "product", `${seeded.prices.addon.product as string}/month/1`).till_id;
    expect(withAddOn.amount).toBe(1200 + 2 * 300);
    expect(withAddOn.items.map((i) => [i.product_id, i.quantity, i.amount])).toEqual([[addOnProduct, 2, 600]]);
    const offered = await rawRequest(s.server.url, s.key, "GET", `/v1/products/${withAddOn.product_id}`);
    expect((offered.body as { add_on_ids: string[] }).add_on_ids).toEqual([addOnProduct]);
  }, 60_000);

  it("changes nothing when run again", async () => {
    const before = { products: (await s.sdk.products.list({ limit: 100 })).result.items.length, customers: (await s.sdk.customers.list({ limit: 100 })).result.items.length };
    const again = await runImport(false);
    expect(again.status, again.error ?? "").toBe("succeeded");
    for (const kind of ["meter", "product", "price", "discount", "customer"] as const) {
      expect(again.counts[kind].create ?? 0, kind).toBe(0);
      expect(again.counts[kind].update ?? 0, kind).toBe(0);
    }
    expect(again.counts.subscription.moved).toBe(Object.keys(seeded.moves).length + 3);
    expect((await s.sdk.products.list({ limit: 100 })).result.items.length).toBe(before.products);
    expect((await s.sdk.customers.list({ limit: 100 })).result.items.length).toBe(before.customers);
  }, 60_000);

  it("matches Stripe Billing's own payments of imported customers when reconciling", async () => {
    // a charge Stripe Billing made of an imported customer (an invoice of hers before the hand-over)
    const ada = seeded.customers.ada;
    const intent = await seeded.stripe.paymentIntents.create({
      amount: 900, currency: "usd", customer: ada?.id ?? "", payment_method: String(ada?.invoice_settings.default_payment_method ?? ""),
      confirm: true, off_session: true, allowed_payment_method_types: ["card"],
    });
    expect(intent.status).toBe("succeeded");
    const res = await rawRequest(s.server.url, s.key, "POST", "/v1/stripe/reconcile", {});
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const body = res.body as { differences: Array<{ stripe_id: string }>; compared: { stripe_billing: number } };
    expect(body.differences.map((d) => d.stripe_id)).not.toContain(intent.id);
    expect(body.compared.stripe_billing).toBeGreaterThanOrEqual(1);
  });

  it("renews in till once at the period's end, on the same card, and the Stripe subscription ends", async () => {
    const items = await itemsOf(applied.id);
    const adaId = item(items, "subscription", seeded.moves.ada.id).till_id ?? "";
    const res = await rawRequest(s.server.url, s.key, "POST", "/v1/test-clock/advance", { by: "32d" });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const renewed = await until(async () => {
      const sub: Subscription = await s.sdk.subscriptions.get({ id: adaId });
      return sub.currentPeriodStart.getTime() >= (seeded.moves.ada.items.data[0]?.current_period_end ?? 0) * 1000 ? sub : undefined;
    }, "ada renewed in till");
    expect(renewed.status).toBe("active");
    const intents = [...s.peer.payments.intents.values()].filter((i) => i.object === "payment_intent" && i.metadata.subscription_id === adaId);
    expect(intents).toHaveLength(1);
    expect(intents[0]).toMatchObject({ customer: seeded.customers.ada?.id, payment_method: seeded.customers.ada?.invoice_settings.default_payment_method, amount: 900 });
    // Stripe's side reaches the same moment: it ends, and bills no new period
    s.peer.billing.advance("acct_1TillPay", Math.floor(renewed.currentPeriodStart.getTime() / 1000) + 60);
    expect((await seeded.stripe.subscriptions.retrieve(seeded.moves.ada.id)).status).toBe("canceled");
    expect(s.peer.billing.invoices.filter((i) => i.subscription === seeded.moves.ada.id && i.billing_reason === "subscription_cycle")).toHaveLength(0);

    // the one with an add-on renews with it: one charge for both
    const eveId = item(items, "subscription", seeded.withAddOn.id).till_id ?? "";
    const eveCharge = await until(async () => [...s.peer.payments.intents.values()].find((i) => i.metadata.subscription_id === eveId), "eve renewed in till");
    expect(eveCharge.amount).toBe(1200 + 2 * 300);

    // the invoiced one renews by an unpaid invoice due in its 30 days: nothing is charged
    const deeId = item(items, "subscription", seeded.invoiced.id).till_id ?? "";
    const order = await until(async () => {
      const orders = (await s.sdk.orders.list({ subscriptionId: deeId })).result.items;
      return orders.find((o) => o.billingReason === "subscription_cycle");
    }, "dee's renewal invoiced in till");
    const issued = await rawRequest(s.server.url, s.key, "GET", `/v1/orders/${order.id}`);
    expect(issued.body).toMatchObject({ status: "pending", billing_reason: "subscription_cycle" });
    const body = issued.body as { due_at: string; created_at: string };
    expect(new Date(body.due_at).getTime() - new Date(body.created_at).getTime()).toBe(30 * 86_400_000);
    expect([...s.peer.payments.intents.values()].filter((i) => i.metadata.subscription_id === deeId)).toHaveLength(0);
    expect((await s.sdk.subscriptions.get({ id: deeId })).status).toBe("active");
  }, 60_000);
});
