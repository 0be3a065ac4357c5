// The stand-in's coupons and promotion codes (https://docs.stripe.com/api/coupons, /api/promotion_codes): a coupon
// takes a percent or an amount off (in its currency and others), once, forever or for some months, up to a number of
// redemptions or a date, on some products; a promotion code is a customer-facing code for one coupon
// (`promotion.coupon` in this API version), with its own restrictions. A coupon's `applies_to` and
// `currency_options` are shown only when expanded. A subscription's discount redeems them (`redeem`).
import type { Authed, Params, PeerRoute } from "./stripe-peer.js";
import { StripeFailure } from "./stripe-peer.js";
import type { BillingCtx, BillingObjects } from "./stripe-peer-billing.js";
import { missing, str } from "./stripe-peer-instruments.js";
import { expandOf, mergeMetadata, visible, type Json, type Stored } from "./stripe-peer-store.js";
import { newId, noSuch } from "./stripe-peer-util.js";

const idOf = (req: { params: unknown }) => (req.params as { id: string }).id;
const int = (v: unknown) => (v === undefined || v === "" ? null : Number(v));
const bool = (v: unknown, otherwise: boolean) => (v === undefined ? otherwise : v === "true" || v === true);
const randomCode = (n: number) => Array.from({ length: n }, () => "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"[Math.floor(Math.random() * 32)]).join("");
const invalid = (message: string, param?: string) => new StripeFailure(400, { type: "invalid_request_error", ...(param ? { param } : {}), message });

/** Whether a coupon can still be redeemed at `at`: before its redeem_by, under its max_redemptions. */
const couponValid = (c: Stored, at: number) =>
  !c.deleted && (c.redeem_by === null || Number(c.redeem_by) > at) && (c.max_redemptions === null || Number(c.times_redeemed) < Number(c.max_redemptions));

/**
 * A subscription's discount redeems its coupon (and promotion code): one more redemption, refused like Stripe when
 * the coupon or the code can no longer be redeemed.
 */
export function redeem(b: BillingObjects, auth: Authed, d: { coupon?: string | undefined; promotion_code?: string | undefined }, at: number): { coupon: Stored; promotion: Stored | null } {
  let promotion: Stored | null = null;
  let couponId = d.coupon;
  if (d.promotion_code) {
    promotion = b.promotionCodes.own(auth, d.promotion_code, "promotion code", "promotion_code");
    const usable = promotion.active && (promotion.expires_at === null || Number(promotion.expires_at) > at) &&
      (promotion.max_redemptions === null || Number(promotion.times_redeemed) < Number(promotion.max_redemptions));
    if (!usable) throw invalid(`This promotion code cannot be redeemed because the associated customer has prior transactions or it is inactive or expired.`, "promotion_code");
    couponId = String((promotion.promotion as Json).coupon);
  }
  if (!couponId) throw missing("discounts[0][coupon]");
  const coupon = b.coupons.own(auth, couponId, "coupon", "coupon");
  if (!couponValid(coupon, at)) throw invalid(`Coupon expired: ${coupon.id}`, "coupon");
  coupon.times_redeemed = Number(coupon.times_redeemed) + 1;
  if (promotion) promotion.times_redeemed = Number(promotion.times_redeemed) + 1;
  return { coupon, promotion };
}

function registerKinds({ b }: BillingCtx): void {
  const mine = (map: Map<string, Stored>) => (auth: Authed, id: string) => {
    const o = map.get(id);
    return o && o.account === auth.account.id && o.livemode === auth.livemode ? o : undefined;
  };
  b.expander.kinds.set("coupon", {
    show: (o, includes) => ({ ...visible(o, ["applies_to", "currency_options"], includes), valid: couponValid(o, b.now(o)) }),
    find: mine(b.coupons.map),
    includable: (path) => path === "applies_to" || path === "currency_options",
  });
  b.expander.kinds.set("promotion_code", {
    show: (o) => visible(o), find: mine(b.promotionCodes.map), links: { customer: "customer", "promotion.coupon": "coupon" },
  });
}

export function registerCoupons(ctx: BillingCtx, route: PeerRoute): void {
  const { peer, b, nowOf } = ctx;
  registerKinds(ctx);
  const show = (auth: Authed, kind: string, o: Stored, p: Params) => b.expander.show(auth, kind, o, expandOf(p));
  route("POST", "/v1/coupons", "coupon_write", (auth, req) => {
    const p = peer.params(req);
    if (p.percent_off === undefined && p.amount_off === undefined) throw invalid("You must pass either `percent_off` or `amount_off`.");
    if (p.amount_off !== undefined && !str(p.currency)) throw invalid("You must pass currency when passing amount_off", "currency");
    const duration = str(p.duration) ?? "once";
    if (duration === "repeating" && p.duration_in_months === undefined) throw missing("duration_in_months");
    const id = str(p.id) ?? randomCode(8);
    if (b.coupons.map.has(id)) throw new StripeFailure(400, { type: "invalid_request_error", code: "resource_already_exists", param: "id", message: "Coupon already exists." });
    const currency = str(p.currency) ?? null;
    const options = Object.fromEntries(Object.entries((p.currency_options ?? {}) as Record<string, Params>).map(([cur, o]) => [cur, { amount_off: Number(o.amount_off) }]));
    const coupon = b.coupons.add({
      id, object: "coupon", amount_off: int(p.amount_off),
      applies_to: { products: Array.isArray((p.applies_to as Params | undefined)?.products) ? ((p.applies_to as Params).products as unknown[]).map(String) : [] },
      created: nowOf(auth), currency, currency_options: currency && p.amount_off !== undefined ? { [currency]: { amount_off: Number(p.amount_off) }, ...options } : options,
      duration, duration_in_months: duration === "repeating" ? int(p.duration_in_months) : null, livemode: auth.livemode,
      max_redemptions: int(p.max_redemptions), metadata: mergeMetadata({}, p.metadata), name: str(p.name) ?? null,
      percent_off: p.percent_off === undefined ? null : Number(p.percent_off), redeem_by: int(p.redeem_by), times_redeemed: 0,
      valid: true, account: auth.account.id,
    });
    return show(auth, "coupon", coupon, p);
  });
  route("GET", "/v1/coupons/:id", "coupon_read", (auth, req) => show(auth, "coupon", liveCoupon(ctx, auth, idOf(req)), peer.params(req)));
  route("POST", "/v1/coupons/:id", "coupon_write", (auth, req) => {
    const p = peer.params(req);
    const coupon = liveCoupon(ctx, auth, idOf(req));
    if (p.name !== undefined) coupon.name = str(p.name) || null;
    coupon.metadata = mergeMetadata(coupon.metadata as Record<string, string>, p.metadata);
    for (const [cur, o] of Object.entries((p.currency_options ?? {}) as Record<string, Params>)) (coupon.currency_options as Json)[cur] = { amount_off: Number(o.amount_off) };
    return show(auth, "coupon", coupon, p);
  });
  route("DELETE", "/v1/coupons/:id", "coupon_write", (auth, req) => {
    const coupon = liveCoupon(ctx, auth, idOf(req));
    // a deleted coupon stays on the discounts that hold it, and is no longer listed or redeemed
    coupon.deleted = true;
    return { id: coupon.id, object: "coupon", deleted: true };
  });
  route("GET", "/v1/coupons", "coupon_read", (auth, req) => {
    const p = peer.params(req);
    return b.expander.list(auth, "coupon", b.coupons.page(auth, p, "coupon", { keep: (o) => !o.deleted }), "/v1/coupons", p);
  });
  promotionCodeRoutes(ctx, route);
}

const liveCoupon = ({ b }: BillingCtx, auth: Authed, id: string) => {
  const coupon = b.coupons.own(auth, id, "coupon");
  if (coupon.deleted) throw noSuch("coupon", id);
  return coupon;
};

function promotionCodeRoutes({ peer, b, nowOf }: BillingCtx, route: PeerRoute): void {
  const show = (auth: Authed, o: Stored, p: Params) => b.expander.show(auth, "promotion_code", o, expandOf(p));
  route("POST", "/v1/promotion_codes", "promotion_code_write", (auth, req) => {
    const p = peer.params(req);
    const couponId = str((p.promotion as Params | undefined)?.coupon);
    if (!couponId) throw missing("promotion[coupon]");
    b.coupons.own(auth, couponId, "coupon", "promotion[coupon]");
    const code = str(p.code) ?? randomCode(8);
    for (const other of b.promotionCodes.all({ account: auth.account.id, livemode: auth.livemode })) {
      if (other.active && String(other.code).toLowerCase() === code.toLowerCase()) throw invalid(`An active promotion code with \`code: ${code}\` already exists.`, "code");
    }
    if (p.customer !== undefined) b.customers.own(auth, String(p.customer), "customer", "customer");
    const r = (p.restrictions ?? {}) as Params;
    const promo = b.promotionCodes.add({
      id: newId("promo"), object: "promotion_code", active: bool(p.active, true), code, created: nowOf(auth),
      customer: str(p.customer) ?? null, customer_account: null, expires_at: int(p.expires_at), livemode: auth.livemode,
      max_redemptions: int(p.max_redemptions), metadata: mergeMetadata({}, p.metadata), promotion: { coupon: couponId, type: "coupon" },
      restrictions: {
        ...(r.currency_options ? { currency_options: r.currency_options } : {}),
        first_time_transaction: bool(r.first_time_transaction, false), minimum_amount: int(r.minimum_amount),
        minimum_amount_currency: str(r.minimum_amount_currency) ?? null,
      },
      times_redeemed: 0, account: auth.account.id,
    });
    return show(auth, promo, p);
  });
  route("GET", "/v1/promotion_codes/:id", "promotion_code_read", (auth, req) => show(auth, b.promotionCodes.own(auth, idOf(req), "promotion code"), peer.params(req)));
  route("POST", "/v1/promotion_codes/:id", "promotion_code_write", (auth, req) => {
    const p = peer.params(req);
    const promo = b.promotionCodes.own(auth, idOf(req), "promotion code");
    if (p.active !== undefined) promo.active = bool(p.active, true);
    promo.metadata = mergeMetadata(promo.metadata as Record<string, string>, p.metadata);
    return show(auth, promo, p);
  });
  route("GET", "/v1/promotion_codes", "promotion_code_read", (auth, req) => {
    const p = peer.params(req);
    const keep = (o: Stored) => (p.active === undefined || o.active === bool(p.active, true)) && (p.code === undefined || o.code === p.code) &&
      (p.coupon === undefined || (o.promotion as Json).coupon === p.coupon) && (p.customer === undefined || o.customer === p.customer);
    return b.expander.list(auth, "promotion_code", b.promotionCodes.page(auth, p, "promotion code", { keep }), "/v1/promotion_codes", p);
  });
}
