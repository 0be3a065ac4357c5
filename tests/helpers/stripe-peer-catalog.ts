// The stand-in's catalog (https://docs.stripe.com/api/products, /api/prices, /api/billing/meter): products (a
// default price made with `default_price_data`), prices (per unit or tiered, graduated or volume; in other
// currencies with their own tiers; recurring, licensed or metered by a Billing Meter; customer-chosen amounts;
// transform_quantity), and meters (sum, count or last of an event's value). A price's `tiers` and
// `currency_options` (and a currency's tiers: `currency_options.<cur>.tiers`) are shown only when expanded.
import type { Authed, Params, PeerRoute } from "./stripe-peer.js";
import { StripeFailure } from "./stripe-peer.js";
import type { BillingCtx } from "./stripe-peer-billing.js";
import { missing, str } from "./stripe-peer-instruments.js";
import { expandOf, mergeMetadata, visible, type Json, type Stored } from "./stripe-peer-store.js";
import { newId } from "./stripe-peer-util.js";

const idOf = (req: { params: unknown }) => (req.params as { id: string }).id;
const bool = (v: unknown, otherwise: boolean) => (v === undefined ? otherwise : v === "true" || v === true);
const int = (v: unknown) => (v === undefined || v === "" ? null : Number(v));
const owner = (auth: Authed) => ({ account: auth.account.id, livemode: auth.livemode });
const meta = (v: unknown) => mergeMetadata({}, v);

/** A tier as sent (`up_to` a number or "inf") → as Stripe shows it. */
const tierOf = (t: Params) => ({
  flat_amount: int(t.flat_amount),
  flat_amount_decimal: t.flat_amount_decimal !== undefined ? String(t.flat_amount_decimal) : t.flat_amount !== undefined ? String(t.flat_amount) : null,
  unit_amount: int(t.unit_amount),
  unit_amount_decimal: t.unit_amount_decimal !== undefined ? String(t.unit_amount_decimal) : t.unit_amount !== undefined ? String(t.unit_amount) : null,
  up_to: t.up_to === "inf" ? null : Number(t.up_to),
});
const tiersOf = (v: unknown) => (Array.isArray(v) ? (v as Params[]).map(tierOf) : undefined);

const customAmountOf = (v: unknown) => {
  const c = v as Params | undefined;
  return c && bool(c.enabled, false) ? { maximum: int(c.maximum), minimum: int(c.minimum), preset: int(c.preset) } : null;
};

/** One currency's amount (the price's own, or one of `currency_options`). */
function amountOf(p: Params, taxBehavior: unknown) {
  const tiers = tiersOf(p.tiers);
  const unitDecimal = p.unit_amount_decimal !== undefined ? String(p.unit_amount_decimal) : p.unit_amount !== undefined ? String(p.unit_amount) : null;
  return {
    custom_unit_amount: customAmountOf(p.custom_unit_amount),
    tax_behavior: str(p.tax_behavior) ?? str(taxBehavior) ?? "unspecified",
    ...(tiers ? { tiers } : {}),
    unit_amount: unitDecimal !== null && Number.isInteger(Number(unitDecimal)) ? Number(unitDecimal) : null,
    unit_amount_decimal: unitDecimal,
  };
}

function makePrice({ b, nowOf }: BillingCtx, auth: Authed, p: Params, product: string): Stored {
  const currency = str(p.currency);
  if (!currency) throw missing("currency");
  const scheme = str(p.billing_scheme) ?? "per_unit";
  if (scheme === "tiered" && (!Array.isArray(p.tiers) || !p.tiers_mode)) throw missing(Array.isArray(p.tiers) ? "tiers_mode" : "tiers");
  if (scheme === "per_unit" && p.unit_amount === undefined && p.unit_amount_decimal === undefined && !customAmountOf(p.custom_unit_amount)) throw missing("unit_amount");
  const r = p.recurring as Params | undefined;
  const usage = str(r?.usage_type) ?? "licensed";
  if (r && usage === "metered" && !str(r.meter)) {
    throw new StripeFailure(400, { type: "invalid_request_error", param: "recurring[meter]", message: "A meter is required for prices with `recurring.usage_type=metered`." });
  }
  if (r?.meter !== undefined) b.meters.own(auth, String(r.meter), "billing meter", "recurring[meter]");
  const own = amountOf(p, p.tax_behavior);
  const options = Object.fromEntries(Object.entries((p.currency_options ?? {}) as Record<string, Params>).map(([cur, o]) => [cur, amountOf(o, p.tax_behavior)]));
  const t = p.transform_quantity as Params | undefined;
  return b.prices.add({
    id: newId("price"), object: "price", active: bool(p.active, true), billing_scheme: scheme, created: nowOf(auth), currency,
    currency_options: { [currency]: own, ...options }, custom_unit_amount: own.custom_unit_amount, livemode: auth.livemode,
    lookup_key: str(p.lookup_key) ?? null, metadata: meta(p.metadata), nickname: str(p.nickname) ?? null, product,
    recurring: r ? {
      interval: String(r.interval), interval_count: Number(r.interval_count ?? 1), meter: str(r.meter) ?? null,
      trial_period_days: int(r.trial_period_days), usage_type: usage,
    } : null,
    tax_behavior: own.tax_behavior, ...(own.tiers ? { tiers: own.tiers } : {}), tiers_mode: str(p.tiers_mode) ?? null,
    transform_quantity: t ? { divide_by: Number(t.divide_by), round: String(t.round) } : null,
    type: r ? "recurring" : "one_time", unit_amount: own.unit_amount, unit_amount_decimal: own.unit_amount_decimal,
    account: auth.account.id,
  });
}

/** A price as shown: `tiers`, `currency_options` and each currency's tiers only where expanded. */
function showPrice(o: Stored, includes: Set<string>): Json {
  const json = visible(o, ["tiers", "currency_options"], includes);
  const options = json.currency_options as Record<string, Json> | undefined;
  for (const [cur, option] of Object.entries(options ?? {})) if (!includes.has(`currency_options.${cur}.tiers`)) delete option.tiers;
  return json;
}

function registerKinds({ b }: BillingCtx): void {
  const find = (ordered: typeof b.prices) => (auth: Authed, id: string) => {
    const o = ordered.map.get(id);
    return o && o.account === auth.account.id && o.livemode === auth.livemode ? o : undefined;
  };
  b.expander.kinds.set("product", { show: (o) => visible(o), find: find(b.products), links: { default_price: "price" } });
  b.expander.kinds.set("price", {
    show: showPrice, find: find(b.prices), links: { product: "product" },
    includable: (path) => path === "tiers" || path === "currency_options" || /^currency_options\.[a-z]{3}\.tiers$/.test(path),
  });
  b.expander.kinds.set("billing.meter", { show: (o) => visible(o), find: find(b.meters) });
}

export function registerCatalog(ctx: BillingCtx, route: PeerRoute): void {
  const { peer, b, nowOf } = ctx;
  registerKinds(ctx);
  const show = (auth: Authed, kind: string, o: Stored, p: Params) => b.expander.show(auth, kind, o, expandOf(p));
  route("POST", "/v1/products", "product_write", (auth, req) => {
    const p = peer.params(req);
    if (!str(p.name)) throw missing("name");
    const id = str(p.id) ?? newId("prod");
    if (b.products.map.has(id)) throw new StripeFailure(400, { type: "invalid_request_error", code: "resource_already_exists", param: "id", message: "Product already exists." });
    const product = b.products.add({
      id, object: "product", active: bool(p.active, true), created: nowOf(auth), default_price: null,
      description: str(p.description) ?? null, images: Array.isArray(p.images) ? p.images : [], livemode: auth.livemode,
      marketing_features: [], metadata: meta(p.metadata), name: String(p.name), package_dimensions: null, shippable: null,
      statement_descriptor: null, tax_code: str(p.tax_code) ?? null, tax_details: null, type: "service",
      unit_label: str(p.unit_label) ?? null, updated: nowOf(auth), url: str(p.url) ?? null, account: auth.account.id,
    });
    if (p.default_price_data) product.default_price = makePrice(ctx, auth, p.default_price_data as Params, product.id).id;
    return show(auth, "product", product, p);
  });
  route("GET", "/v1/products/:id", "product_read", (auth, req) => show(auth, "product", b.products.own(auth, idOf(req), "product"), peer.params(req)));
  route("POST", "/v1/products/:id", "product_write", (auth, req) => {
    const p = peer.params(req);
    const product = b.products.own(auth, idOf(req), "product");
    if (p.default_price !== undefined) product.default_price = b.prices.own(auth, String(p.default_price), "price", "default_price").id;
    if (p.active !== undefined) product.active = bool(p.active, true);
    for (const f of ["name", "description", "url", "unit_label"] as const) if (p[f] !== undefined) product[f] = str(p[f]) || null;
    product.metadata = mergeMetadata(product.metadata as Record<string, string>, p.metadata);
    product.updated = nowOf(auth);
    return show(auth, "product", product, p);
  });
  route("GET", "/v1/products", "product_read", (auth, req) => {
    const p = peer.params(req);
    const ids = Array.isArray(p.ids) ? new Set(p.ids.map(String)) : undefined;
    const keep = (o: Stored) => (p.active === undefined || o.active === bool(p.active, true)) && (!ids || ids.has(o.id));
    return b.expander.list(auth, "product", b.products.page(auth, p, "product", { keep }), "/v1/products", p);
  });

  route("POST", "/v1/prices", "price_write", (auth, req) => {
    const p = peer.params(req);
    let product = str(p.product);
    if (product) b.products.own(auth, product, "product", "product");
    else if (p.product_data) {
      const data = p.product_data as Params;
      product = b.products.add({
        id: str(data.id) ?? newId("prod"), object: "product", active: true, created: nowOf(auth), default_price: null, description: null,
        images: [], livemode: auth.livemode, marketing_features: [], metadata: meta(data.metadata), name: String(data.name),
        package_dimensions: null, shippable: null, statement_descriptor: null, tax_code: null, tax_details: null, type: "service",
        unit_label: null, updated: nowOf(auth), url: null, account: auth.account.id,
      }).id;
    } else throw missing("product");
    return show(auth, "price", makePrice(ctx, auth, p, product), p);
  });
  route("GET", "/v1/prices/:id", "price_read", (auth, req) => show(auth, "price", b.prices.own(auth, idOf(req), "price"), peer.params(req)));
  route("POST", "/v1/prices/:id", "price_write", (auth, req) => {
    const p = peer.params(req);
    const price = b.prices.own(auth, idOf(req), "price");
    if (p.active !== undefined) price.active = bool(p.active, true);
    if (p.nickname !== undefined) price.nickname = str(p.nickname) || null;
    if (p.lookup_key !== undefined) price.lookup_key = str(p.lookup_key) || null;
    if (p.tax_behavior !== undefined) price.tax_behavior = String(p.tax_behavior);
    if (p.currency_options && typeof p.currency_options === "object") {
      const options = price.currency_options as Record<string, unknown>;
      for (const [cur, o] of Object.entries(p.currency_options as Record<string, Params>)) options[cur] = amountOf(o, price.tax_behavior);
    }
    price.metadata = mergeMetadata(price.metadata as Record<string, string>, p.metadata);
    return show(auth, "price", price, p);
  });
  route("GET", "/v1/prices", "price_read", (auth, req) => {
    const p = peer.params(req);
    const r = (p.recurring ?? {}) as Params;
    const lookupKeys = Array.isArray(p.lookup_keys) ? p.lookup_keys.map(String) : undefined;
    const keep = (o: Stored) => {
      const rec = o.recurring as Params | null;
      return (p.active === undefined || o.active === bool(p.active, true)) && (p.currency === undefined || o.currency === p.currency) &&
        (p.type === undefined || o.type === p.type) && (!lookupKeys || lookupKeys.includes(String(o.lookup_key))) &&
        (r.interval === undefined || rec?.interval === r.interval) && (r.usage_type === undefined || rec?.usage_type === r.usage_type) &&
        (r.meter === undefined || rec?.meter === r.meter);
    };
    const key = typeof p.product === "string" ? `product:${p.product}` : undefined;
    return b.expander.list(auth, "price", b.prices.page(auth, p, "price", { key, keep }), "/v1/prices", p);
  });
  meterRoutes(ctx, route);
}

function meterRoutes({ peer, b, nowOf }: BillingCtx, route: PeerRoute): void {
  const show = (auth: Authed, o: Stored, p: Params) => b.expander.show(auth, "billing.meter", o, expandOf(p));
  route("POST", "/v1/billing/meters", "billing_meter_write", (auth, req) => {
    const p = peer.params(req);
    for (const name of ["display_name", "event_name"]) if (!str(p[name])) throw missing(name);
    const formula = str((p.default_aggregation as Params | undefined)?.formula);
    if (!formula) throw missing("default_aggregation[formula]");
    const mapping = (p.customer_mapping ?? {}) as Params;
    const meter = b.meters.add({
      id: newId("mtr"), object: "billing.meter", created: nowOf(auth),
      customer_mapping: { event_payload_key: str(mapping.event_payload_key) ?? "stripe_customer_id", type: "by_id" },
      default_aggregation: { formula }, display_name: String(p.display_name), event_name: String(p.event_name),
      event_time_window: str(p.event_time_window) ?? null, status: "active",
      status_transitions: { deactivated_at: null }, updated: nowOf(auth),
      value_settings: { event_payload_key: str((p.value_settings as Params | undefined)?.event_payload_key) ?? "value" },
      ...owner(auth),
    });
    return show(auth, meter, p);
  });
  route("GET", "/v1/billing/meters/:id", "billing_meter_read", (auth, req) => show(auth, b.meters.own(auth, idOf(req), "billing meter"), peer.params(req)));
  route("POST", "/v1/billing/meters/:id", "billing_meter_write", (auth, req) => {
    const p = peer.params(req);
    const meter = b.meters.own(auth, idOf(req), "billing meter");
    if (str(p.display_name)) meter.display_name = p.display_name;
    meter.updated = nowOf(auth);
    return show(auth, meter, p);
  });
  for (const [action, status] of [["deactivate", "inactive"], ["reactivate", "active"]] as const) {
    route("POST", `/v1/billing/meters/:id/${action}`, "billing_meter_write", (auth, req) => {
      const meter = b.meters.own(auth, idOf(req), "billing meter");
      meter.status = status;
      meter.status_transitions = { deactivated_at: status === "inactive" ? nowOf(auth) : null };
      meter.updated = nowOf(auth);
      return show(auth, meter, peer.params(req));
    });
  }
  route("GET", "/v1/billing/meters", "billing_meter_read", (auth, req) => {
    const p = peer.params(req);
    const keep = (o: Stored) => p.status === undefined || o.status === p.status;
    return b.expander.list(auth, "billing.meter", b.meters.page(auth, p, "billing meter", { keep }), "/v1/billing/meters", p);
  });
}
