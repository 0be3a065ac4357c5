// Rules for checkout links: the seller's create, list, get, update and (soft) delete, and the customer's visit,
// which opens a fresh checkout of the link's products with the link's settings (discount, success URL,
// metadata, trial, seats) through the checkouts service. The link itself records no events: Polar sends no
// webhook for links; each checkout it opens sends checkout.created as any other.
import { randomBytes } from "node:crypto";
import type { Db, Queryable } from "../../db/client.js";
import { CheckoutCreateInput } from "../checkouts/input.js";
import { createCheckout } from "../checkouts/create.js";
import type { CheckoutDeps } from "../checkouts/service.js";
import { findDiscountByCode, getDiscount, loadDiscountBases } from "../discounts/service.js";
import { parseWith } from "../http.js";
import { ApiError, notFound, validationError, type ValidationIssue } from "../errors.js";
import type { SortKey } from "../listing.js";
import { loadPrices, loadProducts } from "../products/service.js";
import type { ProductWire } from "../products/wire.js";
import { METADATA_KEYS, type CheckoutLinkCreateInput, type CheckoutLinkUpdateInput, type Prefill } from "./input.js";
import * as repo from "./repository.js";
import { toCheckoutLinkWire, type CheckoutLinkRow, type CheckoutLinkWire } from "./wire.js";

const CLIENT_SECRET_PREFIX = "till_cl_";
const NOT_FOUND = "Checkout link not found";

export interface CheckoutLinkDeps {
  db: Db;
  baseURL: string;
}

const issue = (loc: Array<string | number>, msg: string, input?: unknown): ValidationIssue => ({
  loc,
  msg,
  type: "value_error",
  ...(input === undefined ? {} : { input }),
});

// ---- reading ----------------------------------------------------------------------------------------

async function toWires(deps: CheckoutLinkDeps, organizationId: string, rows: CheckoutLinkRow[]): Promise<CheckoutLinkWire[]> {
  const [products, discounts] = await Promise.all([
    loadProducts(deps.db, organizationId, [...new Set(rows.flatMap((r) => r.productIds))], deps.baseURL),
    loadDiscountBases(deps.db, organizationId, rows.flatMap((r) => (r.discountId ? [r.discountId] : []))),
  ]);
  return rows.map((row) =>
    toCheckoutLinkWire(
      row,
      row.productIds.flatMap((id) => products.get(id) ?? []),
      row.discountId ? (discounts.get(row.discountId) ?? null) : null,
      deps.baseURL,
    ),
  );
}

async function toWire(deps: CheckoutLinkDeps, row: CheckoutLinkRow): Promise<CheckoutLinkWire> {
  const [wire] = await toWires(deps, row.organizationId, [row]);
  if (!wire) throw new Error("checkout link wire missing");
  return wire;
}

export async function getCheckoutLink(deps: CheckoutLinkDeps, organizationId: string, id: string): Promise<CheckoutLinkWire> {
  const row = await repo.findCheckoutLink(deps.db, organizationId, id);
  if (!row) throw notFound(NOT_FOUND);
  return toWire(deps, row);
}

export async function listCheckoutLinks(
  deps: CheckoutLinkDeps,
  organizationId: string,
  filter: { productIds?: string[] | undefined },
  sorting: Array<SortKey<repo.CheckoutLinkSort>>,
  pageNo: number,
  limit: number,
) {
  const { rows, total } = await repo.listCheckoutLinks(deps.db, organizationId, filter, sorting, pageNo, limit);
  return { items: await toWires(deps, organizationId, rows), total };
}

// ---- checks shared by create and update ---------------------------------------------------------------

/** The products a link may offer: the organization's, on sale (not archived, not a draft, with a price). */
async function checkProducts(db: Queryable, organizationId: string, ids: string[], field: string): Promise<ProductWire[]> {
  const wanted = ids.map((id) => id.toLowerCase());
  const loaded = await loadProducts(db, organizationId, wanted);
  const issues: ValidationIssue[] = [];
  wanted.forEach((id, i) => {
    const p = loaded.get(id);
    const loc = field === "products" ? ["body", "products", i] : ["body", field];
    if (!p) issues.push(issue(loc, "Product does not exist.", ids[i]));
    else if (p.is_archived) issues.push(issue(loc, "Product is archived.", ids[i]));
    else if (p.visibility === "draft") issues.push(issue(loc, "Product is a draft.", ids[i]));
    else if (p.prices.length === 0) issues.push(issue(loc, "Product has no price.", ids[i]));
    else if (wanted.indexOf(id) !== i) issues.push(issue(loc, "Product is listed twice.", ids[i]));
  });
  if (issues.length > 0) throw validationError(issues);
  return wanted.flatMap((id) => loaded.get(id) ?? []);
}

/** The deprecated create variant: the price names its product. */
async function productOfPrice(db: Queryable, organizationId: string, priceId: string): Promise<string> {
  const price = (await loadPrices(db, organizationId, [priceId])).get(priceId.toLowerCase());
  if (!price) throw validationError([issue(["body", "product_price_id"], "Price does not exist.", priceId)]);
  if (price.is_archived === true) throw validationError([issue(["body", "product_price_id"], "Price is archived.", priceId)]);
  return price.product_id;
}

async function checkDiscount(db: Queryable, organizationId: string, discountId: string, products: ProductWire[]): Promise<string> {
  const refused = issue(["body", "discount_id"], "Discount does not exist or is not applicable to this product.", discountId);
  const discount = await getDiscount(db, organizationId, discountId.toLowerCase()).catch((err: unknown) => {
    if (err instanceof ApiError && err.status === 404) throw validationError([refused]);
    throw err;
  });
  const restricted = discount.products.map((p) => p.id);
  if (restricted.length > 0 && !products.some((p) => restricted.includes(p.id))) throw validationError([refused]);
  return discount.id;
}

function checkSeats(seats: number | null | undefined, products: ProductWire[]): void {
  if (seats == null) return;
  if (!products.some((p) => p.prices.some((price) => price.amount_type === "seat_based"))) {
    throw validationError([issue(["body", "seats"], "Seats can only be set for seat-based pricing.", seats)]);
  }
}

// ---- writing ------------------------------------------------------------------------------------------

export async function createCheckoutLink(deps: CheckoutLinkDeps, organizationId: string, input: CheckoutLinkCreateInput): Promise<CheckoutLinkWire> {
  const { db } = deps;
  const ids = input.products ?? [input.product_id ?? (await productOfPrice(db, organizationId, input.product_price_id ?? ""))];
  const field = input.products ? "products" : input.product_id ? "product_id" : "product_price_id";
  const products = await checkProducts(db, organizationId, ids, field);
  const discountId = input.discount_id ? await checkDiscount(db, organizationId, input.discount_id, products) : null;
  checkSeats(input.seats, products);
  const row = await repo.insertCheckoutLink(db, {
    organizationId,
    clientSecret: `${CLIENT_SECRET_PREFIX}${randomBytes(24).toString("base64url")}`,
    paymentProcessor: input.payment_processor,
    label: input.label ?? null,
    productIds: products.map((p) => p.id),
    allowDiscountCodes: input.allow_discount_codes ?? true,
    requireBillingAddress: input.require_billing_address ?? false,
    discountId,
    successUrl: input.success_url ?? null,
    returnUrl: input.return_url ?? null,
    trialInterval: input.trial_interval ?? null,
    trialIntervalCount: input.trial_interval_count ?? null,
    seats: input.seats ?? null,
    metadata: input.metadata ?? {},
  });
  return toWire(deps, row);
}

/** undefined keeps a value, null clears it (where the field may be null). */
const keep = <T>(v: T | null | undefined, clear: T | null): T | null | undefined => (v === undefined ? undefined : v === null ? clear : v);

export async function updateCheckoutLink(
  deps: CheckoutLinkDeps,
  organizationId: string,
  id: string,
  input: CheckoutLinkUpdateInput,
): Promise<CheckoutLinkWire> {
  const { db } = deps;
  const current = await repo.findCheckoutLink(db, organizationId, id);
  if (!current) throw notFound(NOT_FOUND);
  const products = input.products
    ? await checkProducts(db, organizationId, input.products, "products")
    : [...(await loadProducts(db, organizationId, current.productIds)).values()];
  const discountId =
    input.discount_id === undefined ? undefined : input.discount_id === null ? null : await checkDiscount(db, organizationId, input.discount_id, products);
  checkSeats(input.seats === undefined ? current.seats : input.seats, products);
  // a trial only means something on a recurring product (Polar clears it when the products change)
  const noTrial = input.products && !products.some((p) => p.is_recurring);
  const values: Partial<repo.CheckoutLinkValues> = {
    productIds: input.products ? products.map((p) => p.id) : undefined,
    label: keep(input.label, null),
    allowDiscountCodes: input.allow_discount_codes ?? undefined,
    requireBillingAddress: input.require_billing_address ?? undefined,
    discountId,
    successUrl: keep(input.success_url, null),
    returnUrl: keep(input.return_url, null),
    trialInterval: noTrial ? null : keep(input.trial_interval, null),
    trialIntervalCount: noTrial ? null : keep(input.trial_interval_count, null),
    seats: keep(input.seats, null),
    metadata: input.metadata,
  };
  const defined = Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined)) as Partial<repo.CheckoutLinkValues>;
  const row = await repo.updateCheckoutLink(db, organizationId, id, defined);
  if (!row) throw notFound(NOT_FOUND);
  return toWire(deps, row);
}

/** Soft delete: the link's URL answers 404 from now on; checkouts it opened stay as they are. */
export async function deleteCheckoutLink(db: Db, organizationId: string, id: string): Promise<void> {
  const row = await repo.updateCheckoutLink(db, organizationId, id, { deletedAt: new Date() });
  if (!row) throw notFound(NOT_FOUND);
}

// ---- the customer's visit -----------------------------------------------------------------------------

/** Metadata holds at most 50 keys (the API's rule): tracking values from the URL only fill what is left. */
const MAX_METADATA_KEYS = 50;
const OPTIONAL_KEYS = new Set(["discount_id", "seats", "amount", "customer_email", "customer_name", "embed_origin", "trial_interval", "trial_interval_count"]);

/** Tries the checkout's input, leaving out the optional fields a 422 names once (the link must still open). */
function parseLenient(raw: Record<string, unknown>): CheckoutCreateInput {
  const first = CheckoutCreateInput.safeParse(raw);
  if (first.success) return first.data;
  const bad = new Set(first.error.issues.map((i) => String(i.path[0])));
  return parseWith(CheckoutCreateInput, Object.fromEntries(Object.entries(raw).filter(([k]) => !(bad.has(k) && OPTIONAL_KEYS.has(k)))), "query");
}

/**
 * Opens a fresh checkout for a link's visitor and returns its URL. The link's archived products are left out
 * (none left: 404); a discount that no longer applies is dropped, as is any prefill the checkout refuses.
 */
export async function openCheckout(
  deps: CheckoutLinkDeps & CheckoutDeps,
  clientSecret: string,
  prefill: Prefill,
  ipAddress: string | undefined,
): Promise<string> {
  const { db } = deps;
  const link = clientSecret.length <= 128 ? await repo.findBySecret(db, clientSecret) : null;
  if (!link) throw notFound(NOT_FOUND);
  const organizationId = link.organizationId;
  const loaded = await loadProducts(db, organizationId, link.productIds);
  let products = link.productIds.flatMap((id) => loaded.get(id) ?? []).filter((p) => !p.is_archived && p.prices.length > 0);
  if (products.length === 0) throw notFound("No product of this checkout link is on sale.");
  // ?product_id= selects one of the link's products
  const chosen = products.find((p) => p.id === prefill.product_id?.toLowerCase());
  if (chosen) products = [chosen, ...products.filter((p) => p !== chosen)];
  let discountId = link.discountId;
  if (!discountId && link.allowDiscountCodes && prefill.discount_code) {
    discountId = (await findDiscountByCode(db, organizationId, prefill.discount_code.trim()))?.id ?? null;
  }
  // tracking values from the URL join the link's metadata, never replacing a key the seller set
  const metadata: Record<string, string | number | boolean> = { ...link.metadata };
  for (const key of METADATA_KEYS) {
    const value = prefill[key];
    if (value !== undefined && !(key in metadata) && Object.keys(metadata).length < MAX_METADATA_KEYS) metadata[key] = value.slice(0, 500);
  }
  const amount = prefill.amount && /^\d{1,9}$/.test(prefill.amount) ? Number(prefill.amount) : undefined;
  const raw: Record<string, unknown> = {
    products: products.map((p) => p.id),
    discount_id: discountId ?? undefined,
    allow_discount_codes: link.allowDiscountCodes,
    require_billing_address: link.requireBillingAddress,
    success_url: link.successUrl ?? undefined,
    return_url: link.returnUrl ?? undefined,
    trial_interval: link.trialInterval ?? undefined,
    trial_interval_count: link.trialIntervalCount ?? undefined,
    seats: link.seats ?? undefined,
    metadata,
    amount,
    customer_email: prefill.customer_email,
    customer_name: prefill.customer_name,
    embed_origin: prefill.embed_origin,
  };
  const input = parseLenient(raw);
  try {
    return (await createCheckout(deps, organizationId, input, { ipAddress })).url;
  } catch (err) {
    if (!(err instanceof ApiError) || err.status !== 422) throw err;
    const detail = (err.body as { detail?: Array<{ loc?: unknown[] }> }).detail ?? [];
    const refused = new Set(detail.map((d) => String(d.loc?.[1])));
    const kept = Object.fromEntries(Object.entries(input).filter(([k]) => !(refused.has(k) && OPTIONAL_KEYS.has(k))));
    if (Object.keys(kept).length === Object.keys(input).length) throw err;
    return (await createCheckout(deps, organizationId, kept as CheckoutCreateInput, { ipAddress })).url;
  }
}
