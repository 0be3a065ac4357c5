// The pay link of an unpaid order everywhere it is promised, and the reminder after the due date: an invoice with terms
// still owed a week after its due date is reminded once more (the "overdue" reminder, with its pay link) beside the
// organization's dunning; the portal's order (one, as the list) and the API's carry the same pay link while it is owed.
import { describe, expect, it } from "vitest";
import { OVERDUE_REMINDER_DAYS, runInvoiceReminders } from "../../server/billing/dunning/invoices.js";
import { createPaymentProcessor } from "../../server/payments/index.js";
import { dunningFixture, DAY } from "./dunning-fixtures.js";

const fx = dunningFixture();

describe("an invoice with terms' pay link", () => {
  it("is in the portal's order as in its list, and the overdue invoice is reminded once a week after its due date", async () => {
    const product = await fx.trialProduct(fx.seller);
    const { sub, email, session } = await fx.subscribe(fx.seller, product, "4242 4242 4242 4242");
    await fx.raw(fx.seller.token, "PATCH", `/v1/subscriptions/${sub.id}/terms`, { collection_method: "send_invoice", days_until_due: 10 });
    await fx.renew(fx.seller, sub.id);
    const order = await fx.pendingOrder(fx.seller, sub.id);
    const got = (await fx.raw(fx.seller.token, "GET", `/v1/orders/${order.id}`)).body;
    expect(got.pay_url).toMatch(/\/pay\//);

    // the portal: one order as the list gives it, with the pay link while it is owed
    const one = await fx.raw(session, "GET", `/v1/customer-portal/orders/${order.id}`);
    expect(one.status).toBe(200);
    expect(one.body.pay_url).toMatch(/\/pay\//);
    const listed = (await fx.raw(session, "GET", `/v1/customer-portal/orders/?limit=100`)).body.items as Array<{ id: string; pay_url: string | null }>;
    expect(listed.find((o) => o.id === order.id)?.pay_url).toMatch(/\/pay\//);
    expect((await fx.portal.customerPortal.orders.get({ customerSession: session }, { id: order.id })).id).toBe(order.id);

    const due = new Date(got.due_at as string);
    const run = (now: Date) => runInvoiceReminders({ db: fx.db(), processor: createPaymentProcessor(), baseURL: fx.server.url, now, organizationId: fx.seller.organizationId });
    // a pass skips an order another transaction holds (the worker's jobs, busy with what the last step sent) and
    // leaves it for the next pass: a step that must happen is run again until it did
    const handled = (now: Date) => expect.poll(() => run(now)).toBe(1);
    await fx.server.worker.start();
    try {
      await handled(new Date(due.getTime() - 2 * DAY));
      await handled(new Date(due.getTime() + 3600_000));
      expect((await fx.seller.sdk.subscriptions.get({ id: sub.id })).status).toBe("past_due");
      // within the week: nothing more; a week after the due date: the overdue reminder, once
      expect(await run(new Date(due.getTime() + (OVERDUE_REMINDER_DAYS - 1) * DAY))).toBe(0);
      await handled(new Date(due.getTime() + OVERDUE_REMINDER_DAYS * DAY + 3600_000));
      expect(await run(new Date(due.getTime() + (OVERDUE_REMINDER_DAYS + 1) * DAY))).toBe(0);
      const overdue = await fx.server.mailbox.waitFor(email, /^Overdue: invoice/, 15_000);
      expect(overdue.subject).toContain(got.invoice_number as string);
      const link = overdue.links.find((l) => /\/pay\//.test(l));
      expect(link, JSON.stringify(overdue.links)).toBeDefined();
      expect(overdue.text).toContain("still unpaid");
      // the link pays that order
      const page = await fetch(`${fx.server.url}/v1/pay/${link?.split("/pay/")[1] ?? ""}`);
      expect(((await page.json()) as { order: { id: string } }).order.id).toBe(order.id);
    } finally {
      await fx.server.worker.stop();
    }

    // paid: the portal's order has no pay link any more
    await fx.raw(fx.seller.token, "POST", `/v1/orders/${order.id}/mark-paid`, {});
    expect((await fx.raw(session, "GET", `/v1/customer-portal/orders/${order.id}`)).body.pay_url).toBeNull();
  });
});
