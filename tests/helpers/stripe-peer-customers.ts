// The stand-in's customers (https://docs.stripe.com/api/customers) and their tax ids
// (https://docs.stripe.com/api/tax_ids): create, retrieve, update, list (by email, newest first), the invoice
// settings' default payment method (expandable), the address; a customer's `tax_ids` (made with `tax_id_data`
// or /v1/customers/{id}/tax_ids) are shown only when expanded, as Stripe's list. A deleted customer
// (stripe-peer-removals.ts) retrieves as `deleted: true` and is no longer listed.
import type { FastifyRequest } from "fastify";
import type { Authed, Params, PeerRoute } from "./stripe-peer.js";
import type { BillingCtx } from "./stripe-peer-billing.js";
import { missing, str } from "./stripe-peer-instruments.js";
import { expandOf, mergeMetadata, visible, type Json, type Stored } from "./stripe-peer-store.js";
import { newId, noSuch } from "./stripe-peer-util.js";

const params = (req: FastifyRequest) => req.params as { id: string; tax_id?: string };

/** Stripe's address as sent (any field absent: null). */
const addressOf = (v: unknown) => {
  if (v === undefined || v === "") return null;
  const a = v as Params;
  return Object.fromEntries(["city", "country", "line1", "line2", "postal_code", "state"].map((k) => [k, str(a[k]) ?? null]));
};

function registerKinds({ peer, b }: BillingCtx): void {
  const mine = (map: Map<string, Stored>) => (auth: Authed, id: string) => {
    const o = map.get(id);
    return o && o.account === auth.account.id && o.livemode === auth.livemode ? o : undefined;
  };
  b.expander.kinds.set("customer", {
    show: (o, includes) => {
      const json = visible(o);
      if (includes.has("tax_ids")) {
        const data = [...b.taxIds.all(o, `customer:${o.id}`)].filter((t) => !t.deleted).reverse().map((t) => visible(t));
        json.tax_ids = { object: "list", data, has_more: false, total_count: data.length, url: `/v1/customers/${o.id}/tax_ids` };
      }
      return json;
    },
    find: mine(b.customers.map),
    includable: (path) => path === "tax_ids",
    // default_source: a legacy source (a Card); the stand-in makes none, so it stays null when expanded
    links: { "invoice_settings.default_payment_method": "payment_method", default_source: "payment_method" },
  });
  b.expander.kinds.set("tax_id", { show: (o) => visible(o), find: mine(b.taxIds.map), links: { customer: "customer" } });
  b.expander.kinds.set("payment_method", {
    show: (o) => visible(o, [], new Set(), ["behaviour", "setUp", "unverified"]),
    find: (auth, id) => mine(peer.payments.paymentMethods as unknown as Map<string, Stored>)(auth, id),
    links: { customer: "customer" },
  });
}

/** A tax id of a customer, as Stripe makes it (its country read from an EU VAT number's prefix). */
function makeTaxId({ b, nowOf }: BillingCtx, auth: Authed, customer: string, t: Params): Stored {
  const type = str(t.type);
  const value = str(t.value);
  if (!type) throw missing("type");
  if (!value) throw missing("value");
  const prefix = type.split("_")[0] ?? "";
  const country = type === "eu_vat" ? value.slice(0, 2).toUpperCase().replace("EL", "GR") : prefix.length === 2 ? prefix.toUpperCase() : null;
  return b.taxIds.add({
    id: newId("txi"), object: "tax_id", country, created: nowOf(auth), customer, customer_account: null, livemode: auth.livemode,
    owner: { customer, customer_account: null, type: "customer" }, type, value,
    verification: { status: "pending", verified_address: null, verified_name: null }, account: auth.account.id,
  });
}

export function registerCustomers(ctx: BillingCtx, route: PeerRoute): void {
  const { peer, b, nowOf } = ctx;
  registerKinds(ctx);
  const show = (auth: Authed, o: Stored, p: Params) => b.expander.show(auth, "customer", o, expandOf(p));
  route("POST", "/v1/customers", "customer_write", (auth, req) => {
    const p = peer.params(req);
    const settings = (p.invoice_settings ?? {}) as Params;
    const c = b.customers.add({
      id: newId("cus"), object: "customer", address: addressOf(p.address), balance: 0, created: nowOf(auth), currency: null,
      default_source: null, delinquent: false, description: str(p.description) ?? null, discount: null, email: str(p.email) ?? null,
      invoice_prefix: newId("x").slice(2, 10).toUpperCase(),
      invoice_settings: { custom_fields: null, default_payment_method: str(settings.default_payment_method) ?? null, footer: null, rendering_options: null },
      livemode: auth.livemode, metadata: mergeMetadata({}, p.metadata), name: str(p.name) ?? null, next_invoice_sequence: 1,
      phone: str(p.phone) ?? null, preferred_locales: Array.isArray(p.preferred_locales) ? p.preferred_locales : [], shipping: null,
      tax_exempt: str(p.tax_exempt) ?? "none", test_clock: null, account: auth.account.id,
    });
    for (const t of Array.isArray(p.tax_id_data) ? (p.tax_id_data as Params[]) : []) makeTaxId(ctx, auth, c.id, t);
    return show(auth, c, p);
  });
  route("GET", "/v1/customers/:id", "customer_read", (auth, req) => {
    const gone = peer.payments.deletedCustomer(auth, params(req).id);
    return gone ?? show(auth, b.customers.own(auth, params(req).id, "customer"), peer.params(req));
  });
  route("POST", "/v1/customers/:id", "customer_write", (auth, req) => {
    const p = peer.params(req);
    const c = b.customers.own(auth, params(req).id, "customer");
    const settings = (p.invoice_settings ?? {}) as Params;
    if (settings.default_payment_method !== undefined) (c.invoice_settings as Json).default_payment_method = str(settings.default_payment_method) || null;
    for (const f of ["email", "name", "phone", "description"] as const) if (p[f] !== undefined) c[f] = str(p[f]) || null;
    if (p.address !== undefined) c.address = addressOf(p.address);
    c.metadata = mergeMetadata(c.metadata as Record<string, string>, p.metadata);
    return show(auth, c, p);
  });
  route("GET", "/v1/customers", "customer_read", (auth, req) => {
    const p = peer.params(req);
    const keep = (o: Stored) => p.email === undefined || o.email === p.email;
    return b.expander.list(auth, "customer", b.customers.page(auth, p, "customer", { keep }), "/v1/customers", p);
  });
  taxIdRoutes(ctx, route);
}

function taxIdRoutes(ctx: BillingCtx, route: PeerRoute): void {
  const { peer, b } = ctx;
  const customerOf = (auth: Authed, req: FastifyRequest) => b.customers.own(auth, params(req).id, "customer");
  const taxIdOf = (auth: Authed, req: FastifyRequest) => {
    const customer = customerOf(auth, req);
    const t = b.taxIds.map.get(params(req).tax_id ?? "");
    if (!t || t.customer !== customer.id || t.deleted) throw noSuch("tax id", params(req).tax_id ?? "");
    return t;
  };
  const show = (auth: Authed, o: Stored, p: Params) => b.expander.show(auth, "tax_id", o, expandOf(p));
  route("POST", "/v1/customers/:id/tax_ids", "customer_write", (auth, req) => {
    const p = peer.params(req);
    return show(auth, makeTaxId(ctx, auth, customerOf(auth, req).id, p), p);
  });
  route("GET", "/v1/customers/:id/tax_ids/:tax_id", "customer_read", (auth, req) => show(auth, taxIdOf(auth, req), peer.params(req)));
  route("DELETE", "/v1/customers/:id/tax_ids/:tax_id", "customer_write", (auth, req) => {
    const t = taxIdOf(auth, req);
    t.deleted = true;
    return { id: t.id, object: "tax_id", deleted: true };
  });
  route("GET", "/v1/customers/:id/tax_ids", "customer_read", (auth, req) => {
    const p = peer.params(req);
    const customer = customerOf(auth, req);
    const page = b.taxIds.page(auth, p, "tax id", { key: `customer:${customer.id}`, keep: (o) => !o.deleted });
    return b.expander.list(auth, "tax_id", page, `/v1/customers/${customer.id}/tax_ids`, p);
  });
}
