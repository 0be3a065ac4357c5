// A plan change's proration lines in the customer's language. A German customer's upgrade billed now
// (`invoice`) and a seat change carried to the renewal (`prorate`): the invoice PDFs (read back as text) and the
// renewal's receipt email say "Nicht genutzte Zeit für …" / "Verbleibende Zeit für …" with the prorated span as the
// service period, from the facts kept on the order item; the API's labels stay the English ones Polar's wire has.
import type { Product } from "@polar-sh/sdk/models/components/product.js";
import type { Subscription } from "@polar-sh/sdk/models/components/subscription.js";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatMoney } from "../../shared/money.js";
import { orderItem, subscription, subscriptionProration } from "../../server/db/schema/index.js";
import { rawRequest } from "../helpers/api.js";
import { createProduct, pay, uniqueBuyer } from "../helpers/checkout.js";
import { invoiceTextOf } from "../helpers/pdf.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";

let server: TestServer;
let seller: Seller;
let basic: Product;
let pro: Product;

const DAY = 86_400_000;
const flat = (s: string) => s.replace(/\s+/g, " ").trim();
const raw = (method: string, path: string, body?: unknown) => rawRequest(server.url, seller.token, method, path, body);
const deDate = (d: Date) => new Intl.DateTimeFormat("de", { dateStyle: "long", timeZone: "UTC" }).format(d);
const de = (minor: number) => flat(formatMoney(minor, "usd", "de"));

/** The order's invoice PDF as text once the worker made it. */
const invoiceText = (orderId: string) => invoiceTextOf(server, seller.token, orderId);

/** A subscription bought in German (the checkout's `locale`, kept on the customer). */
async function subscribeInGerman(product: Product, extra: Record<string, unknown> = {}): Promise<{ sub: Subscription; email: string }> {
  const email = uniqueBuyer("proration-de");
  const checkout = await seller.sdk.checkouts.create({ products: [product.id], locale: "de", ...extra });
  await pay(server, checkout, { customerEmail: email });
  const [sub] = (await seller.sdk.subscriptions.list({ productId: product.id, limit: 100 })).result.items.filter((x) => x.checkoutId === checkout.id);
  if (!sub) throw new Error("no subscription");
  // its first email (the confirmation) out of the way
  await server.mailbox.waitFor(email, /./, 20_000);
  return { sub, email };
}

/** Puts the subscription 10 days into a 30-day period; the period's end. */
async function midPeriod(id: string): Promise<Date> {
  const start = new Date(Date.now() - 10 * DAY);
  const end = new Date(start.getTime() + 30 * DAY);
  await server.database.db.update(subscription).set({ currentPeriodStart: start, currentPeriodEnd: end, startedAt: start }).where(eq(subscription.id, id));
  return end;
}

const ordersOf = async (subscriptionId: string) => (await seller.sdk.orders.list({ subscriptionId, sorting: ["created_at"], limit: 100 })).result.items;

beforeAll(async () => {
  server = await startServer();
  await server.worker.start();
  seller = await createSeller(server, "proration-de");
  basic = await seller.sdk.products.create({ name: "Basic", recurringInterval: "month", prices: [{ amountType: "fixed", priceAmount: 1000, priceCurrency: "usd" }] });
  pro = await seller.sdk.products.create({ name: "Pro", recurringInterval: "month", prices: [{ amountType: "fixed", priceAmount: 4000, priceCurrency: "usd" }] });
}, 60_000);
afterAll(async () => server?.close());

describe("proration lines in the customer's language", () => {
  it("an upgrade billed now: the German invoice says the lines and their span in German; the API keeps the English labels", async () => {
    const { sub } = await subscribeInGerman(basic);
    const end = await midPeriod(sub.id);
    await seller.sdk.subscriptions.update({ id: sub.id, subscriptionUpdate: { productId: pro.id, prorationBehavior: "invoice" } });
    const update = (await ordersOf(sub.id))[1]!;
    expect(update.billingReason).toBe("subscription_update");
    // the wire is Polar's: English labels, through both SDKs
    expect(update.items.map((i) => i.label)).toEqual(["Unused time on Basic", "Remaining time on Pro"]);
    const same = await seller.sdk049.orders.get({ id: update.id });
    expect(same.items.map((i) => i.label)).toEqual(["Unused time on Basic", "Remaining time on Pro"]);
    const [credit, charge] = update.items;

    const text = await invoiceText(update.id);
    expect(text).toContain("Rechnung");
    expect(text).toContain(`Nicht genutzte Zeit für Basic`);
    expect(text).toContain(`Verbleibende Zeit für Pro`);
    // the prorated span, from the change to the period's end, is each line's service period
    expect(text).toContain(`Leistungszeitraum: ${deDate(update.createdAt)} – ${deDate(end)}`);
    expect(text).toContain(de(credit!.amount));
    expect(text).toContain(de(charge!.amount));
    expect(text).not.toContain("Unused time");
    expect(text).not.toContain("Remaining time");
  }, 60_000);

  it("a seat change carried to the renewal: the renewal's invoice and receipt email say the seats in German", async () => {
    const seats = await createProduct(seller, "seats", { name: "Team" });
    const { sub, email } = await subscribeInGerman(seats, { seats: 3 });
    await midPeriod(sub.id);
    // 3 × 1000 → 6 × 800, the difference carried to the renewal
    await seller.sdk.subscriptions.update({ id: sub.id, subscriptionUpdate: { seats: 6, prorationBehavior: "prorate" } });
    // a line carried from before 0066 has no facts: its documents print its stored label, as before
    await server.database.db
      .insert(subscriptionProration)
      .values({ organizationId: seller.organizationId, subscriptionId: sub.id, label: "Unused time on Legacy", amount: -100, productPriceId: null, position: 9 });
    const current = await raw("GET", `/v1/subscriptions/${sub.id}`);
    expect((await raw("POST", `/v1/subscriptions/${sub.id}/renew`, { current_period_start: current.body.current_period_start })).status).toBe(200);
    const cycle = (await ordersOf(sub.id)).find((o) => o.billingReason === "subscription_cycle")!;
    expect(cycle.items.map((i) => i.label)).toEqual(["Team", "Unused time on 3 seats", "Remaining time on 6 seats", "Unused time on Legacy"]);
    const items = await server.database.db.select().from(orderItem).where(eq(orderItem.orderId, cycle.id)).orderBy(orderItem.position);
    expect(items.map((i) => i.prorationFacts && [i.prorationFacts.kind, i.prorationFacts.product, i.prorationFacts.seats])).toEqual([
      null,
      ["unused", "Team", 3],
      ["remaining", "Team", 6],
      null,
    ]);

    const text = await invoiceText(cycle.id);
    expect(text).toContain("Nicht genutzte Zeit für Team (3 Plätze)");
    expect(text).toContain("Verbleibende Zeit für Team (6 Plätze)");
    expect(text).toContain("Unused time on Legacy");
    expect(text).not.toContain("seats");

    const mail = await server.mailbox.waitFor(email, /Verlängerungsbeleg/, 20_000);
    const body = flat(mail.text);
    expect(body).toContain(`Nicht genutzte Zeit für Team (3 Plätze) ${de(cycle.items[1]!.amount)}`);
    expect(body).toContain(`Verbleibende Zeit für Team (6 Plätze) ${de(cycle.items[2]!.amount)}`);
    expect(body).toContain(`Unused time on Legacy ${de(-100)}`);
    expect(body).not.toContain("seats");
  }, 60_000);
});
