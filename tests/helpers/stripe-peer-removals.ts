// What the Stripe stand-in's dashboard removes: customers deleted and confirmation tokens expired (test controls),
// and how Stripe answers for them afterwards.
import { type Authed, type PeerRoute } from "./stripe-peer.js";
import type { Ctx, PaymentObjects } from "./stripe-peer-payments.js";
import { now } from "./stripe-peer-util.js";

export function deletedCustomer({ removed }: Ctx, auth: Authed, id: string) {
  const gone = removed.customers.get(id);
  return gone && gone.account === auth.account.id && gone.livemode === auth.livemode ? { id, object: "customer", deleted: true } : undefined;
}

/**
 * Deleting a customer (https://docs.stripe.com/api/customers/delete): permanent; its payment methods are detached
 * (never usable again), a request naming it afterwards is answered 404 resource_missing with `param: "customer"`,
 * its retrieve answers `deleted: true`; `customer.deleted` is sent. Expiring a confirmation token is a test's
 * control over time (Stripe's expire 12 hours after creation).
 */
export function removalRoutes(ctx: Ctx, route: PeerRoute): Pick<PaymentObjects, "deleteCustomer" | "expireToken"> {
  const { peer, o, params, own, idOf, removed } = ctx;
  const remove = (auth: Authed, id: string) => {
    const customer = own(o.customers, auth, id, "customer");
    o.customers.delete(id);
    removed.customers.set(id, customer);
    for (const pm of o.paymentMethods.values()) {
      if (pm.customer !== id) continue;
      pm.customer = null;
      removed.methods.add(pm.id);
    }
    const { account: _a, ...visible } = customer;
    peer.emit(auth, "customer.deleted", { ...visible, deleted: true });
    return { id, object: "customer", deleted: true };
  };
  route("DELETE", "/v1/customers/:id", "customer_write", (auth, req) => (params(req), remove(auth, idOf(req))));
  return {
    deleteCustomer: (customerId) => {
      const customer = o.customers.get(customerId);
      if (!customer) throw new Error(`no customer ${customerId}`);
      remove(peer.authOf(customer.account, customer.livemode), customerId);
    },
    expireToken: (tokenId) => {
      const token = o.tokens.get(tokenId);
      if (!token) throw new Error(`no confirmation token ${tokenId}`);
      token.expires_at = now() - 1;
    },
  };
}
