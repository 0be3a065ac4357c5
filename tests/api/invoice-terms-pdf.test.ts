// An invoice with terms as a document: a send_invoice renewal's PDF is made when the order is issued (unpaid: "Due"),
// with its due date and the buyer's purchase order number, and made again once paid; the seller may generate it while
// it is owed. A plain failed renewal (no terms) is still no invoice until paid.
import { describe, expect, it } from "vitest";
import { pay, uniqueBuyer } from "../helpers/checkout.js";
import { pdfTextOf, untilWorked } from "../helpers/pdf.js";
import { dunningFixture } from "./dunning-fixtures.js";

const fx = dunningFixture();

/** The order's invoice PDF text once it says `expected` (the worker makes it, and makes it again once paid). */
async function invoiceSaying(orderId: string, expected: string): Promise<string> {
  return untilWorked(fx.server, `the invoice of ${orderId} saying ${expected}`, async () => {
    const res = await fx.raw(fx.seller.token, "GET", `/v1/orders/${orderId}/invoice`);
    if (res.status !== 200) return null;
    const text = await pdfTextOf(new Uint8Array(await (await fetch(res.body.url as string)).arrayBuffer()));
    return text.includes(expected) ? text : null;
  });
}

describe("an invoice with terms' PDF", () => {
  it("prints the due date and the PO when issued unpaid, and again once paid", async () => {
    const product = await fx.trialProduct(fx.seller);
    const checkout = await fx.seller.sdk.checkouts.create({ products: [product.id] });
    await fx.raw("", "PATCH", `/v1/checkouts/client/${checkout.clientSecret}`, { purchase_order: "PO-2026-0042" });
    await pay(fx.server, checkout, { customerEmail: uniqueBuyer("terms-pdf") });
    const [sub] = (await fx.seller.sdk.subscriptions.list({ productId: product.id, limit: 100 })).result.items.filter((x) => x.checkoutId === checkout.id);
    if (!sub) throw new Error("no subscription");
    const terms = await fx.raw(fx.seller.token, "PATCH", `/v1/subscriptions/${sub.id}/terms`, { collection_method: "send_invoice", days_until_due: 30 });
    expect(terms.status, JSON.stringify(terms.body)).toBe(200);

    await fx.server.worker.start();
    try {
      await fx.renew(fx.seller, sub.id);
      const order = await fx.pendingOrder(fx.seller, sub.id);
      const got = (await fx.raw(fx.seller.token, "GET", `/v1/orders/${order.id}`)).body;
      expect(got.status).toBe("pending");
      const due = new Intl.DateTimeFormat("en", { dateStyle: "long", timeZone: "UTC" }).format(new Date(got.due_at as string));

      const issued = await invoiceSaying(order.id, "Status: Due");
      expect(issued).toContain(`Invoice number: ${got.invoice_number as string}`);
      expect(issued).toContain(`Due date: ${due}`);
      expect(issued).toContain("Purchase order: PO-2026-0042");

      // the seller may make it again while it is owed (202); another organization's order is 404
      const again = await fx.raw(fx.seller.token, "POST", `/v1/orders/${order.id}/invoice`);
      expect(again.status, JSON.stringify(again.body)).toBe(202);
      expect((await fx.raw(fx.other.token, "POST", `/v1/orders/${order.id}/invoice`)).status).toBe(404);

      const marked = await fx.raw(fx.seller.token, "POST", `/v1/orders/${order.id}/mark-paid`, { note: "wire" });
      expect(marked.status, JSON.stringify(marked.body)).toBe(200);
      const paid = await invoiceSaying(order.id, "Status: Paid");
      expect(paid).toContain(`Due date: ${due}`);
      expect(paid).toContain("Purchase order: PO-2026-0042");
    } finally {
      await fx.server.worker.stop();
    }
  });

  it("is no invoice for a declined renewal without terms until it is paid (409)", async () => {
    const product = await fx.trialProduct(fx.seller);
    const { sub } = await fx.subscribe(fx.seller, product, "4000 0000 0000 0341");
    await fx.renew(fx.seller, sub.id);
    const order = await fx.pendingOrder(fx.seller, sub.id);
    expect(order.status).toBe("pending");
    expect((await fx.raw(fx.seller.token, "POST", `/v1/orders/${order.id}/invoice`)).status).toBe(409);
  });
});
