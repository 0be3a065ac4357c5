// Orders a seller makes by the API (SDK 0.49.0's orders.create / orders.finalize): a draft order of one of the
// organization's one-time products for one of its customers — the product's price in the order's currency, or
// the body's `amount` — taxed as a checkout would be, with no invoice number yet; then `finalize` charges the
// customer's default saved payment method off-session (the payments domain records the attempt): paid, the
// order takes its invoice number, its benefits are granted and order.created / order.paid and the grants' events
// go through the outbox, all in one transaction; declined, or no method on file, the order stays a draft (402).
import type { Db } from "../../db/client.js";
import { withCallTurn } from "../../db/call-turns.js";
import { customerStateChanged, enqueue, type OutboxEvent } from "../../db/outbox.js";
import { createPaymentProcessor, type PaymentProcessor } from "../../payments/index.js";
import { z } from "zod";
import { grantBenefits } from "../benefits/service.js";
import { findCustomerRow, loadCustomers } from "../customers/service.js";
import { isUuid, metadataInput } from "../http.js";
import { invalid, notFound } from "../errors.js";
import { orderNotDraft } from "./errors.js";
import { getOrganization } from "../organizations/service.js";
import { paymentFailed } from "../payments/errors.js";
import { chargeSaved, findPaymentMethod, recordCharge } from "../payments/service.js";
import { loadProducts } from "../products/service.js";
import { isStatic } from "../products/pricing.js";
import type { MeteredUnitPriceWire, PriceWire } from "../products/wire.js";
import { assertNever } from "../../../shared/kinds.js";
import { inclusiveOf, sellerTaxOf, taxOf } from "../tax/service.js";
import * as repo from "./repository.js";
import { getOrder, planOrderFromCheckout } from "./service.js";
import { invoicePrefix } from "../invoice-numbers/service.js";

const MAX_AMOUNT = 99_999_999;

export const OrderCreateInput = z.object({
  customer_id: z.string().refine(isUuid, { message: "Input should be a valid UUID" }),
  product_id: z.string().refine(isUuid, { message: "Input should be a valid UUID" }),
  currency: z.string().regex(/^[a-z]{3}$/, "Input should be a lower-case ISO 4217 currency code").nullish(),
  amount: z.int().min(0).max(MAX_AMOUNT).nullish(),
  description: z.string().trim().max(1000).nullish(),
  metadata: metadataInput.optional(),
  custom_field_data: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])).optional(),
  organization_id: z.string().nullish(),
});
export type OrderCreateInput = z.output<typeof OrderCreateInput>;

/** OrderFinalize: the customer's saved method to charge (else their default one). */
export const OrderFinalizeInput = z.object({ payment_method_id: z.string().refine(isUuid, { message: "Input should be a valid UUID" }).nullish() });

let defaultProcessor: PaymentProcessor | undefined;
const processorOf = (p?: PaymentProcessor) => p ?? (defaultProcessor ??= createPaymentProcessor());

const taxIdOf = (taxId: ReadonlyArray<string | null> | null | undefined): [string, string] | null => {
  const [value, format] = taxId ?? [];
  return value && format ? [value, format] : null;
};

/** The amount a manual order charges when the request names none: the price's own, if it has one. */
function setAmount(price: Exclude<PriceWire, MeteredUnitPriceWire>): number | null {
  switch (price.amount_type) {
    case "fixed":
      return typeof price.price_amount === "number" ? price.price_amount : 0;
    case "custom":
      return typeof price.preset_amount === "number" ? price.preset_amount : typeof price.minimum_amount === "number" ? price.minimum_amount : null;
    case "free":
    case "seat_based":
      return null;
    default:
      return assertNever(price, "price kind");
  }
}

/**
 * A draft order (201): refused (422) for a product or customer that is not this organization's, or a product that is
 * not one-time.
 */
export async function createDraftOrder(db: Db, organizationId: string, input: OrderCreateInput) {
  const customerId = input.customer_id.toLowerCase();
  const productId = input.product_id.toLowerCase();
  return db.transaction(async (tx) => {
    const [customers, products, organization] = await Promise.all([
      loadCustomers(tx, organizationId, { ids: [customerId], externalIds: [] }),
      loadProducts(tx, organizationId, [productId], ""),
      getOrganization(tx, organizationId),
    ]);
    const customer = customers.byId.get(customerId);
    if (!customer || customer.deleted_at) throw invalid(["body", "customer_id"], "Customer does not exist.");
    const product = products.get(productId);
    if (!product || product.is_archived) throw invalid(["body", "product_id"], "Product does not exist.");
    if (product.is_recurring) throw invalid(["body", "product_id"], "Only a one-time product can be ordered this way.");
    const currency = input.currency ?? organization.default_presentment_currency ?? "usd";
    const price = product.prices.filter(isStatic).find((p) => !p.is_archived && p.price_currency === currency);
    if (!price) throw invalid(["body", input.currency ? "currency" : "product_id"], `Product has no price in ${currency}.`);
    const amount = input.amount ?? setAmount(price);
    if (amount === null) throw invalid(["body", "amount"], "This product's price has no set amount: send the amount.");
    const now = new Date();
    const tax = taxOf(
      sellerTaxOf(organization),
      { address: customer.billing_address, business: customer.tax_id !== null, taxId: taxIdOf(customer.tax_id) },
      [{ amount, inclusive: inclusiveOf(price) }],
      now,
    );
    const planned = planOrderFromCheckout(
      {
        organizationId,
        checkoutId: "",
        customerId,
        productId,
        subscriptionId: null,
        billingReason: "purchase",
        currency,
        discountId: null,
        subtotalAmount: amount,
        discountAmount: 0,
        tax,
        seats: null,
        billingName: customer.name,
        billingAddress: customer.billing_address as Record<string, string | null> | null,
        billingTaxId: taxIdOf(customer.tax_id),
        metadata: input.metadata ?? {},
        customFieldData: input.custom_field_data ?? {},
        items: [{ label: input.description || product.name, amount, productPriceId: price.id }],
      },
      now,
    );
    await repo.insertUnnumberedOrder(tx, { ...planned.row, checkoutId: null, status: "draft" }, planned.items);
    return getOrder(tx, organizationId, planned.row.id);
  });
}

/**
 * Charges a draft order to the customer's default saved method. 404: not this organization's; 412 OrderNotDraft;
 * 402 PaymentFailed: declined or no method (the attempt recorded, the order still a draft).
 */
export async function finalizeOrder(db: Db, organizationId: string, id: string, paymentMethodId: string | null, processor?: PaymentProcessor) {
  const charging = processorOf(processor);
  // the charge is made under the order's lock: in one of the pool's turns (db/call-turns.ts)
  const outcome = await withCallTurn(db, () => db.transaction(async (tx) => {
    const row = await repo.lockOrder(tx, organizationId, id);
    if (!row) throw notFound("Order not found");
    if (row.status !== "draft") throw orderNotDraft();
    const customer = await findCustomerRow(tx, organizationId, { id: row.customerId }).catch(() => null);
    if (!customer || customer.deletedAt) return { declined: "The order's customer was deleted." };
    let method: Awaited<ReturnType<typeof findPaymentMethod>>;
    if (paymentMethodId) {
      method = await findPaymentMethod(tx, organizationId, row.customerId, paymentMethodId.toLowerCase());
      if (!method) throw invalid(["body", "payment_method_id"], "Payment method not found for this order's customer.");
    }
    const attempt =
      row.totalAmount > 0
        ? await chargeSaved(
            tx,
            charging,
            organizationId,
            row.customerId,
            { amount: row.totalAmount, currency: row.currency, description: `Order ${row.id}`, metadata: { order_id: row.id } },
            method,
          )
        : null;
    const now = new Date();
    if (attempt) {
      const at = { organizationId, customerId: row.customerId, orderId: row.id, checkoutId: null, amount: row.totalAmount, currency: row.currency };
      await recordCharge(tx, charging, attempt, { ...at, attempt: "manual" }, now);
      if (!attempt.result.ok) return { declined: attempt.result.message };
    }
    const organization = await getOrganization(tx, organizationId);
    await repo.updateOrder(tx, organizationId, row.id, { status: "paid" });
    await repo.numberOrders(tx, organizationId, [row.id], invoicePrefix(organization.slug));
    const products = row.productId ? await loadProducts(tx, organizationId, [row.productId], "") : new Map();
    const product = row.productId ? products.get(row.productId) : undefined;
    const granted = product ? await grantBenefits(tx, organizationId, { benefits: product.benefits, customer, orderId: row.id, subscriptionId: null }, now) : [];
    const wire = await getOrder(tx, organizationId, row.id);
    const events: OutboxEvent[] = [
      { type: "order.created", organizationId, data: { ...wire } },
      { type: "order.paid", organizationId, data: { ...wire } },
      ...granted.map((g) => ({ type: "benefit_grant.created" as const, organizationId, data: { ...g } })),
      customerStateChanged(organizationId, row.customerId),
    ];
    await enqueue(tx, events);
    return { wire };
  }));
  // the attempt stays recorded; the order stays a draft
  if ("declined" in outcome) throw paymentFailed(outcome.declined ?? "The payment failed.");
  return outcome.wire;
}

