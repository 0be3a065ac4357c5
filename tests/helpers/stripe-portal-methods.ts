// The portal's payment methods in a Stripe sandbox, as the tests of its setups call them: a customer with a card
// saved by a trial's checkout (their Stripe customer made there), the portal's raw requests under that customer's
// session, the methods it lists, and a wait for Stripe events till has processed.
import { and, eq } from "drizzle-orm";
import { expect } from "vitest";
import { stripeEvent } from "../../server/db/schema/index.js";
import { rawRequest } from "./api.js";
import { createProduct, publicRequest, uniqueBuyer } from "./checkout.js";
import type { Seller } from "./seller.js";
import { confirmationToken, STRIPE_CARDS, until, type StripeSandbox } from "./stripe-sandbox.js";

export type PortalMethod = { id: string; is_default: boolean; method_metadata: { brand: string; last4: string } };

export const PAYMENT_METHODS = "/v1/customer-portal/customers/me/payment-methods";

/** `sandbox` and `seller` are read when a helper runs (a test file makes them in its beforeAll). */
export function portalMethods(sandbox: () => StripeSandbox, seller: () => Seller) {
  const sessionOf = async (customerId: string) => (await sandbox().sdk.customerSessions.create({ customerId })).token;
  const portal = async (customerId: string, method: string, path: string, body?: unknown) =>
    rawRequest(sandbox().server.url, await sessionOf(customerId), method, path, body);
  return {
    sessionOf,
    portal,
    methodsOf: async (customerId: string) => ((await portal(customerId, "GET", PAYMENT_METHODS)).body as { items: PortalMethod[] }).items,
    /** Waits until `count` Stripe events of `type` about `intentId` are recorded and processed. */
    processed: (intentId: string, type: string, count = 1) => {
      const s = sandbox();
      return until(async () => {
        const rows = await s.server.database.db.select().from(stripeEvent).where(and(eq(stripeEvent.objectId, intentId), eq(stripeEvent.type, type)));
        return rows.length >= count && rows.every((r) => r.processedAt) ? rows : undefined;
      }, `${type} processed`);
    },
    /** A customer with a card saved by a trial's checkout (their Stripe customer made there). */
    async customer(tag: string): Promise<string> {
      const s = sandbox();
      const product = await createProduct(seller(), "trial");
      const checkout = await s.sdk.checkouts.create({ products: [product.id] });
      const res = await publicRequest(s.server, "POST", `/v1/checkouts/client/${checkout.clientSecret}/confirm`, {
        customer_email: uniqueBuyer(tag),
        customer_name: "Ada Buyer",
        customer_billing_address: { country: "FR" },
        confirmation_token_id: await confirmationToken(s.peer, STRIPE_CARDS.visa, "off_session"),
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return (res.body as { customer_id: string }).customer_id;
    },
  };
}
