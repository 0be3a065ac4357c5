// The test clock end to end, in a sandbox organization through a `till_test_` key: a usage-based
// seller's plan — a $0 base price and four metered prices (compute, memory, storage, egress) per month —
// bought by customers mapped by external_id, usage ingested daily at the clock's now, and the clock advanced
// day by day over three billing periods in seconds. Each renewal order has one line per dimension with the
// period's usage at its unit price; a downgrade that cancels at period end takes effect on the clock; every
// webhook delivered is validated by `validateEvent` of SDK 0.47.1 and 0.49.0; each renewal's invoice PDF is read
// back. The route's rules: test-clock-route.test.ts.
import type { Meter } from "@polar-sh/sdk/models/components/meter.js";
import { validateEvent } from "@polar-sh/sdk/webhooks";
import { validateEvent as validateEvent049 } from "polar-sdk-049/webhooks";
import { describe, expect, it } from "vitest";
import { pdfTextOf } from "../helpers/pdf.js";
import { sdk049For } from "../helpers/seller.js";
import { clockFixture, DAY } from "./test-clock-fixtures.js";

const fx = clockFixture();

const formatUsd = (cents: number) => new Intl.NumberFormat("en-US", { style: "currency", currency: "USD" }).format(cents / 100);

async function eventually<T>(fn: () => Promise<T | null>, ms = 60_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== null) return v;
    if (Date.now() > deadline) throw new Error("not ready in time");
    await new Promise((r) => setTimeout(r, 200));
  }
}

const DIMENSIONS = ["compute", "memory", "storage", "egress"] as const;
type Dimension = (typeof DIMENSIONS)[number];
/** Unit prices in cents (decimal strings, as Polar's metered_unit takes them). */
const UNIT: Record<Dimension, string> = { compute: "1.5", memory: "0.25", storage: "3", egress: "0.9" };
/** Day `d`'s usage of a customer (`k` tells customers apart). */
const usageOf = (dim: Dimension, d: number, k: number) => ({ compute: 10 + (d % 5) + k, memory: 33 + (d % 3), storage: 2, egress: 7 + (d % 4) * k })[dim];

describe("a usage-based plan over three billing periods on the test clock", () => {
  it("renews period by period with one line per dimension, cancels at period end on the clock, every webhook valid for both SDKs", async () => {
    const path = "/clock";
    const endpoint = await fx.sdk.webhooks.createWebhookEndpoint({
      url: `${fx.receiver.url}${path}`,
      format: "raw",
      events: ["order.created", "order.paid", "subscription.created", "subscription.updated", "subscription.canceled", "subscription.revoked"],
    });

    const meters = {} as Record<Dimension, Meter>;
    for (const dim of DIMENSIONS) {
      meters[dim] = await fx.sdk.meters.create({
        name: dim,
        filter: { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: dim }] },
        aggregation: { func: "sum", property: "units" },
      });
    }
    const product = await fx.sdk.products.create({
      name: "Cloud",
      recurringInterval: "month",
      // no static price at all: the plan is its four metered prices (the $0 base as a fixed price of 0, 0.49's
      // free price, runs in tests/e2e/usage-plan-clock.test.ts)
      prices: [
        ...DIMENSIONS.map((dim) => ({ amountType: "metered_unit" as const, meterId: meters[dim].id, unitAmount: UNIT[dim], priceCurrency: "usd" as const })),
      ],
    });

    const subs = [await fx.subscribe(product, "acme-1"), await fx.subscribe(product, "acme-2")];
    // usage is pushed from the clock's now on, after both subscriptions started
    const started = await fx.clock();
    for (const s of subs) expect(s).toMatchObject({ status: "active", amount: 0 });
    expect(Date.parse(started.now) - subs[1]!.currentPeriodStart.getTime()).toBeGreaterThanOrEqual(0);
    expect(Date.parse(started.now) - subs[0]!.currentPeriodStart.getTime()).toBeLessThan(60_000);

    // usage per customer and period (a period: the subscription's renewals before the event), each subscription's
    // period ends as the clock passed them
    const expected = subs.map(() => [0, 1, 2, 3].map(() => ({ compute: 0, memory: 0, storage: 0, egress: 0 }) as Record<Dimension, number>));
    const ends = subs.map((s) => [s.currentPeriodEnd.getTime()]);
    const periodEnds = ends[0]!;
    const wallStart = Date.now();
    let day = 0;
    let downgraded = false;
    let now = Date.parse(started.now);
    // three periods: day by day, the usage of each day pushed at the clock's now, then a day on
    while (periodEnds.length < 4) {
      const events = subs.flatMap((s, k) => {
        const period = ends[k]!.filter((end) => end <= now).length;
        if (k === 1 && period >= 2) return []; // the second customer's subscription ended with its second period
        return DIMENSIONS.map((dim) => {
          const units = usageOf(dim, day, k);
          expected[k]![period]![dim] += units;
          return { name: dim, external_customer_id: `acme-${k + 1}`, timestamp: new Date(now).toISOString(), metadata: { units } };
        });
      });
      if (events.length > 0) {
        const res = await fx.raw("POST", "/v1/events/ingest", { events });
        expect(res.status, JSON.stringify(res.body)).toBe(200);
      }
      // a downgrade in the middle of the second period: the second customer cancels at its end
      if (!downgraded && now > periodEnds[0]! + 10 * DAY) {
        const canceled = await fx.sdk.subscriptions.update({ id: subs[1]!.id, subscriptionUpdate: { cancelAtPeriodEnd: true } });
        expect(canceled).toMatchObject({ status: "active", cancelAtPeriodEnd: true });
        expect(canceled.endsAt?.getTime()).toBe(canceled.currentPeriodEnd.getTime());
        downgraded = true;
      }
      const moved = await fx.advance({ by: "1d" });
      now = Date.parse(moved.now);
      day += 1;
      for (const [k, s] of subs.entries()) {
        const current = await fx.sdk.subscriptions.get({ id: s.id });
        const mine = ends[k]!;
        if (current.status !== "canceled" && current.currentPeriodEnd.getTime() > mine.at(-1)!) mine.push(current.currentPeriodEnd.getTime());
      }
      expect(day).toBeLessThan(100);
    }
    // three periods of about a month, advanced in seconds of wall time
    expect(periodEnds).toHaveLength(4);
    expect(Date.now() - wallStart).toBeLessThan(10 * 60_000);
    // 89 to 92 days by the calendar from the day the test runs, less the real time it took: the clock is compared
    // with the third period's end (the fourth's is the last of periodEnds), its offset only roughly
    const clock = await fx.clock();
    expect(Date.parse(clock.now)).toBeGreaterThanOrEqual(periodEnds[2]!);
    expect(clock.offset_ms).toBeGreaterThan(85 * DAY);

    // the first customer: three renewal orders, in time order, each dated at its period's end, one line per dimension
    const orders = (await fx.sdk.orders.list({ subscriptionId: subs[0]!.id, sorting: ["created_at"], limit: 10 })).result.items;
    expect(orders.map((o) => o.billingReason)).toEqual(["subscription_create", "subscription_cycle", "subscription_cycle", "subscription_cycle"]);
    const renewals = orders.slice(1);
    renewals.forEach((order, i) => {
      const end = periodEnds[i]!;
      expect(order.createdAt.getTime()).toBeGreaterThanOrEqual(end);
      expect(order.createdAt.getTime() - end).toBeLessThan(60_000);
      const lines = DIMENSIONS.map((dim) => Math.round(expected[0]![i]![dim] * Number(UNIT[dim])));
      expect(order.items.map((item) => item.label)).toEqual(DIMENSIONS.map((dim) => `Cloud — ${dim}`));
      expect(order.items.map((item) => item.amount)).toEqual(lines);
      expect(order).toMatchObject({ status: "paid", subtotalAmount: lines.reduce((a, b) => a + b, 0), totalAmount: lines.reduce((a, b) => a + b, 0) });
      expect(lines.every((l) => l > 0)).toBe(true);
    });

    // the downgrade: the second customer's subscription ended at the end of its second period, on the clock
    const ended = await fx.sdk.subscriptions.get({ id: subs[1]!.id });
    expect(ended).toMatchObject({ status: "canceled", cancelAtPeriodEnd: true });
    expect(ended.endedAt?.getTime()).toBeGreaterThanOrEqual(ends[1]![1]!);
    expect(ended.endedAt!.getTime() - ends[1]![1]!).toBeLessThan(60_000);
    const second = (await fx.sdk.orders.list({ subscriptionId: subs[1]!.id, sorting: ["created_at"], limit: 10 })).result.items;
    expect(second.map((o) => o.billingReason)).toEqual(["subscription_create", "subscription_cycle"]);
    expect(second[1]!.items.map((item) => item.amount)).toEqual([...DIMENSIONS.map((dim) => Math.round(expected[1]![0]![dim] * Number(UNIT[dim])))]);

    // every webhook, validated by both SDKs
    const orderIds = [...orders, ...second].map((o) => o.id);
    // deliveries arrive in their own time (later on a loaded machine): wait for every one counted below
    const hits = await fx.receiver
      .until((all) => {
        const mine = all.filter((h) => h.path === path);
        const paid = mine.filter((h) => h.body.includes('"order.paid"')).length;
        const cycled = mine.filter((h) => h.body.includes('"order.created"') && h.body.includes('"subscription_cycle"')).length;
        const revoked = mine.some((h) => h.body.includes('"subscription.revoked"'));
        return paid >= orderIds.length && cycled >= 4 && revoked && mine;
      }, 120_000)
      .catch(() => fx.receiver.hits.filter((h) => h.path === path));
    const events = hits.map((hit) => {
      const event = validateEvent(hit.body, hit.headers, endpoint.secret);
      validateEvent049(hit.body, hit.headers, endpoint.secret);
      return event;
    });
    const paidIds = events.flatMap((e) => (e.type === "order.paid" ? [e.data.id] : []));
    expect(new Set(paidIds)).toEqual(new Set(orderIds));
    const cycles = events.flatMap((e) => (e.type === "order.created" && e.data.billingReason === "subscription_cycle" ? [e.data] : []));
    expect(cycles).toHaveLength(4);
    for (const c of cycles) expect(c.items).toHaveLength(4);
    const revoked = events.filter((e) => e.type === "subscription.revoked");
    expect(revoked.map((e) => e.data.id)).toEqual([subs[1]!.id]);

    // the 0.49 SDK reads the same orders
    const sdk049 = sdk049For(fx.server, fx.key);
    const via049 = await sdk049.orders.get({ id: renewals[2]!.id });
    expect(via049.items.map((i) => i.amount)).toEqual(renewals[2]!.items.map((i) => i.amount));

    // each renewal's invoice, read back through both SDKs: one line per dimension, the order's total
    for (const order of renewals) {
      // the address keeps the country (and state) the checkout recorded; the API refuses to change them
      const country = (order.billingAddress?.country ?? "US") as "US";
      const state = order.billingAddress?.state ?? null;
      await fx.sdk.orders.update({ id: order.id, orderUpdate: { billingName: "Acme One", billingAddress: { country, state, line1: "1 Main St", city: "Austin", postalCode: "73301" } } });
      await fx.sdk.orders.generateInvoice({ id: order.id });
      // made again by the worker with the new details (a paid order's first invoice may already exist)
      const text = await eventually(async () => {
        const res = await fx.raw("GET", `/v1/orders/${order.id}/invoice`);
        if (res.status !== 200) return null;
        const pdf = await fetch((res.body as { url: string }).url);
        expect(pdf.headers.get("content-type")).toBe("application/pdf");
        const t = await pdfTextOf(new Uint8Array(await pdf.arrayBuffer()));
        return t.includes("Acme One") ? t : null;
      });
      expect((await sdk049.orders.invoice({ id: order.id })).url).toMatch(/\/pdf\?expires=/);
      expect(text).toContain(`Invoice number: ${order.invoiceNumber}`);
      expect(text).toContain("Bill to Acme One 1 Main St");
      for (const dim of DIMENSIONS) expect(text).toContain(`Cloud — ${dim}`);
      expect(text).toContain(`Total ${formatUsd(order.totalAmount)}`);
    }
  }, 300_000);
});
