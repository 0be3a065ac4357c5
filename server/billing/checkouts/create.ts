// Creating a checkout: by the seller (POST /v1/checkouts/, a checkout link) or by the app's checkout request
// (POST /api/auth/checkout, whose products name their organization) for one or more products; one transaction
// that inserts it and records its webhook event in the outbox.
import { randomBytes, randomUUID } from "node:crypto";
import type { Db } from "../../db/client.js";
import { enqueue } from "../../db/outbox.js";
import { processorFor, type PaymentProcessor } from "../../payments/processor.js";
import { storedAddress } from "../customers/input.js";
import type { CustomerWire } from "../customers/wire.js";
import { loadCustomers } from "../customers/service.js";
import { isUuid } from "../http.js";
import { validationError, type ValidationIssue } from "../errors.js";
import { getOrganization } from "../organizations/service.js";
import { liveOrganizationOf } from "../organizations/sandbox.js";
import { statusReport } from "../organizations/status.js";
import type { PriceWire } from "../products/wire.js";
import { loadProducts, productOrganizations } from "../products/service.js";
import type { CheckoutCreateInput } from "./input.js";
import { applyPatch } from "./patch.js";
import { loadAddOnProducts } from "./state.js";
import { assertMinimumCharge } from "./minimum.js";
import { applyTax } from "./tax.js";
import { defaultPrice, isFree } from "../products/pricing.js";
import * as repo from "./repository.js";
import { orgNow } from "../clock.js";
import type { CheckoutDeps } from "./service.js";
import { paymentNotReady } from "./errors.js";
import { CLIENT_SECRET_TEMPLATE, storedClientSecret, toCheckoutWire, type CheckoutRow, type CheckoutView, type CheckoutWire } from "./wire.js";

/** How long a checkout stays open (Polar's default). */
export const CHECKOUT_TTL_SECONDS = 24 * 60 * 60;
const CLIENT_SECRET_PREFIX = "till_c_";

export interface CreateContext {
  /** The request's client address when the customer's own browser creates the checkout. */
  ipAddress?: string | undefined;
}

const issueAt = (loc: Array<string | number>, msg: string, input?: unknown): ValidationIssue => ({
  loc,
  msg,
  type: "value_error",
  ...(input === undefined ? {} : { input }),
});

/** A price the customer may be charged for (now or later): anything but a free or zero fixed price. */
function mayCharge(price: PriceWire): boolean {
  return price.is_archived !== true && !isFree(price);
}

/** Has the address more than a country (or a state outside US/CA)? Then the seller wants a full address. */
function hasFullAddressParts(a: CheckoutCreateInput["customer_billing_address"]): boolean {
  if (!a) return false;
  return Boolean(a.line1 || a.line2 || a.city || a.postal_code || (a.state && a.country !== "US" && a.country !== "CA"));
}

/** What a new checkout is opened with. */
interface Opening {
  ids: string[];
  customer: CustomerWire | undefined;
  processor: PaymentProcessor;
  baseURL: string;
  now: Date;
  ipAddress: string | undefined;
}

/** The row of a new open checkout: what the seller set at create; what the customer fills stays empty. */
function newCheckoutRow(organizationId: string, input: CheckoutCreateInput, opened: Opening): CheckoutRow {
  const clientSecret = `${CLIENT_SECRET_PREFIX}${randomBytes(24).toString("base64url")}`;
  return {
    id: randomUUID(),
    organizationId,
    status: "open",
    ...storedClientSecret(clientSecret),
    expiresAt: new Date(opened.now.getTime() + CHECKOUT_TTL_SECONDS * 1000),
    paymentProcessor: opened.processor.wireName,
    paymentProcessorMetadata: opened.processor.checkoutMetadata({ clientSecret: CLIENT_SECRET_TEMPLATE, baseURL: opened.baseURL }),
    confirmationHash: null,
    successUrl: null,
    returnUrl: null,
    embedOrigin: null,
    locale: null,
    allowDiscountCodes: input.allow_discount_codes,
    requireBillingAddress: input.require_billing_address || hasFullAddressParts(input.customer_billing_address),
    allowTrial: input.allow_trial,
    trialInterval: null,
    trialIntervalCount: null,
    trialEnd: null,
    amount: 0,
    currency: "usd",
    seats: null,
    minSeats: input.min_seats ?? null,
    maxSeats: input.max_seats ?? null,
    taxAmount: null,
    taxInclusive: false,
    productIds: opened.ids,
    productId: null,
    productPriceId: null,
    discountId: null,
    customerId: opened.customer?.id ?? null,
    subscriptionId: null,
    isBusinessCustomer: input.is_business_customer ?? false,
    externalCustomerId: input.external_customer_id ?? opened.customer?.external_id ?? null,
    customerName: null,
    customerEmail: null,
    customerIpAddress: opened.ipAddress ?? null,
    customerBillingName: null,
    customerBillingAddress: null,
    customerTaxId: null,
    customerMetadata: {},
    customFieldData: {},
    purchaseOrder: null,
    addOns: [],
    metadata: {},
    createdAt: opened.now,
    modifiedAt: null,
  };
}

export async function createCheckout(
  deps: CheckoutDeps,
  organizationId: string,
  input: CheckoutCreateInput,
  ctx: CreateContext = {},
): Promise<CheckoutWire> {
  const { db, baseURL } = deps;
  // expires_at and the dates it stamps follow the organization's clock (a sandbox's test clock); its
  // processor is its Stripe account when connected
  const [now, processor] = await Promise.all([orgNow(db, organizationId), processorFor(deps.processor, db, organizationId)]);
  const issues: ValidationIssue[] = [];
  if (input.prices && Object.keys(input.prices).length > 0) {
    issues.push(issueAt(["body", "prices"], "Ad-hoc prices are not supported: the checkout offers the products' own prices."));
  }
  if (input.subscription_id) {
    issues.push(issueAt(["body", "subscription_id"], "Upgrading a subscription through a checkout is not supported yet.", input.subscription_id));
  }
  if (input.min_seats != null && input.max_seats != null && input.min_seats > input.max_seats) {
    issues.push(issueAt(["body", "max_seats"], "max_seats must be at least min_seats.", input.max_seats));
  }
  // what the checkout refers to is read before the transaction, in parallel on the pool
  const ids = input.products.map((id) => id.toLowerCase());
  const customerId = input.customer_id?.toLowerCase() ?? null;
  const [loaded, customers, organization, liveTwin] = await Promise.all([
    loadProducts(db, organizationId, ids, baseURL),
    loadCustomers(db, organizationId, {
      ids: customerId ? [customerId] : [],
      externalIds: !customerId && input.external_customer_id ? [input.external_customer_id] : [],
    }),
    // the seller's tax settings, for the tax of a checkout created with an address
    getOrganization(db, organizationId),
    // a sandbox twin names its live organization; a live organization names none (unneeded while the test
    // processor serves every organization: TILL_TEST_PAYMENTS=live)
    deps.processor.servesLive ? null : liveOrganizationOf(db, organizationId),
  ]);
  ids.forEach((id, i) => {
    const p = loaded.get(id);
    if (!p) issues.push(issueAt(["body", "products", i], "Product does not exist.", input.products[i]));
    else if (p.is_archived) issues.push(issueAt(["body", "products", i], "Product is archived.", input.products[i]));
    else if (p.prices.length === 0) issues.push(issueAt(["body", "products", i], "Product has no price.", input.products[i]));
    else if (ids.indexOf(id) !== i) issues.push(issueAt(["body", "products", i], "Product is listed twice.", input.products[i]));
  });
  // the customer it is opened for: by id, else by external id (created at confirm when unknown)
  const customer = customerId ? customers.byId.get(customerId) : input.external_customer_id ? customers.byExternalId.get(input.external_customer_id) : undefined;
  if (customerId && (!customer || customer.deleted_at !== null)) issues.push(issueAt(["body", "customer_id"], "Customer does not exist.", input.customer_id));
  if (issues.length > 0) throw validationError(issues);
  // a live organization takes money once it is active (details submitted, reviewed where required, Stripe
  // connected for real money); a free checkout needs none of it
  const isLive = !deps.processor.servesLive && liveTwin === null;
  const ready = organization.status === "active" && processor.servesLive;
  if (isLive && !ready && ids.some((id) => loaded.get(id)?.prices.some(mayCharge))) {
    throw paymentNotReady(await statusReport(db, organizationId, { testInLive: false, reviewRequired: deps.reviewRequired ?? false }));
  }

  const view = await db.transaction(async (tx) => {
    const products = ids.flatMap((id) => loaded.get(id) ?? []);
    const product = products[0] ?? null;
    const addOnProducts = await loadAddOnProducts(tx, organizationId, products, baseURL);
    const draft = newCheckoutRow(organizationId, input, { ids, customer, processor, baseURL, now, ipAddress: ctx.ipAddress });
    const initial: CheckoutView = {
      row: draft,
      products,
      product,
      price: product ? defaultPrice(product, input.currency) : null,
      discount: null,
      organization,
      baseURL,
      ...(addOnProducts ? { addOnProducts } : {}),
    };
    const patched = await applyPatch(tx, initial, input, "create", now);
    const row = patched.row;
    // what the customer is already known by fills what the seller left empty
    if (customer) {
      row.customerEmail ??= customer.email;
      row.customerName ??= customer.name;
      row.customerBillingName ??= customer.billing_name;
      row.customerBillingAddress ??= customer.billing_address ? storedAddress(customer.billing_address) : null;
      const taxId = customer.tax_id?.[0];
      const format = customer.tax_id?.[1];
      if (!row.customerTaxId && taxId && format) row.customerTaxId = [taxId, format];
      applyTax(patched, row, now);
    }
    assertMinimumCharge({ ...patched, row }, {}, (c) => processor.minimumCharge(c), now);
    const { createdAt: _created, modifiedAt: _modified, ...values } = row;
    const inserted = await repo.insertCheckout(tx, values, now);
    const created = { ...patched, row: inserted };
    await enqueue(tx, { type: "checkout.created", organizationId, data: toCheckoutWire(created, now) });
    return created;
  });
  return toCheckoutWire(view, now);
}

/**
 * The app's checkout request (POST /api/auth/checkout) names products, not an organization: the products
 * name their seller, and must all have the same one. Unknown products → 422 like the API's create.
 */
export async function organizationOfProducts(db: Db, productIds: string[]): Promise<string> {
  const owners = await productOrganizations(db, productIds);
  const issues = productIds.flatMap((id, i) => (isUuid(id) && owners.has(id.toLowerCase()) ? [] : [issueAt(["body", "products", i], "Product does not exist.", id)]));
  if (issues.length > 0) throw validationError(issues);
  const orgs = new Set(owners.values());
  if (orgs.size !== 1) throw validationError([issueAt(["body", "products"], "Products must all belong to the same organization.")]);
  return [...orgs][0] ?? "";
}
