// What a customer does in the portal, always as the customer of their session: their details, orders,
// subscriptions (cancel, uncancel, change plan or seats as the seller's settings allow), benefit grants and
// license keys. The seller-side services do the work; every read is filtered to the session's customer and a
// row of another customer is answered as missing.
import { eq } from "drizzle-orm";
import { z } from "zod";
import type { BenefitType, Covers } from "../../../shared/kinds.js";
import type { Db } from "../../db/client.js";
import type { PaymentProcessor } from "../../payments/processor.js";
import { organization } from "../../db/schema/index.js";
import { listGrantedBenefitsForCustomer, listGrants } from "../benefits/service.js";
import { AddressInput } from "../customers/input.js";
import { updateCustomer } from "../customers/service.js";
import { DOWNLOAD_URL_TTL_MS, loadUploadedFiles, signedDownloadUrl } from "../files/service.js";
import { toCustomerWire } from "../customers/wire.js";
import { invalid, notFound, notPermitted } from "../errors.js";
import { deliverToAccount } from "../benefit-delivery/service.js";
import * as licenseKeys from "../license-keys/service.js";
import { customerMeters, loadMeters } from "../meters/service.js";
import { getOrder, listOrders, updateOrder, type OrderUpdateInput } from "../orders/service.js";
import { getOrganization } from "../organizations/service.js";
import type { OrganizationWire } from "../organizations/wire.js";
import { listProducts, loadProducts } from "../products/service.js";
import { updateSubscription } from "../subscription-changes/lifecycle.js";
import { previewSubscriptionUpdate } from "../subscription-changes/preview.js";
import { getSubscription, listSubscriptions } from "../subscriptions/service.js";
import type { SubscriptionUpdate } from "../subscriptions/change.js";
import type { SubscriptionWire } from "../subscriptions/wire.js";
import type { PortalCaller } from "../customer-sessions/service.js";
import type { SayLine } from "../renewal/upcoming.js";
import { DEFAULT_LOCALE, resolveLocale } from "../../../shared/i18n/locales.js";
import { lineFromFacts } from "../../i18n/lines/text.js";
import {
  activeFilesOf, availableAddOns, toCustomerBenefitGrantWire, toCustomerOrganizationWire, toCustomerProductWire, toCustomerOrderWire,
  toCustomerSubscriptionWire, toDownloadableWire, toPortalCustomerWire,
} from "./wire.js";

export interface PortalDeps {
  db: Db;
  baseURL: string;
  secret: string;
  /** Charges a plan change billed now (the organization's processor). */
  processor?: PaymentProcessor;
}

export const PortalCustomerUpdateInput = z.object({
  billing_name: z.string().trim().max(256).nullish(),
  billing_address: AddressInput.nullish(),
  tax_id: z.string().max(64).nullish(),
});

// ---- the customer ---------------------------------------------------------------------------------

export const getMe = (p: PortalCaller) => toPortalCustomerWire(toCustomerWire(p.customer));

/** Billing name (what invoices are made out to; the person's name stays), address and tax id. */
export async function updateMe(deps: PortalDeps, p: PortalCaller, input: z.output<typeof PortalCustomerUpdateInput>) {
  const updated = await updateCustomer(deps.db, p.organizationId, { id: p.customer.id }, {
    billing_name: input.billing_name,
    billing_address: input.billing_address,
    tax_id: input.tax_id,
  });
  return toPortalCustomerWire(updated);
}

// ---- orders ---------------------------------------------------------------------------------------

export async function listMyOrders(
  deps: PortalDeps,
  p: PortalCaller,
  filter: { productIds?: string[] | undefined; subscriptionIds?: string[] | undefined; billingTypes?: string[] | undefined },
  pageNo: number,
  limit: number,
) {
  const { items, total } = await listOrders(deps.db, p.organizationId, { ...filter, customerIds: [p.customer.id] }, [{ key: "created_at", desc: true }], pageNo, limit);
  const [products, organization] = await Promise.all([
    loadProducts(deps.db, p.organizationId, items.flatMap((o) => (o.product_id ? [o.product_id] : [])), deps.baseURL),
    getOrganization(deps.db, p.organizationId),
  ]);
  return { items: items.map((o) => toCustomerOrderWire(o, o.product_id ? (products.get(o.product_id) ?? null) : null, organization)), total };
}

export async function getMyOrder(deps: PortalDeps, p: PortalCaller, id: string) {
  const order = await getOrder(deps.db, p.organizationId, id);
  if (order.customer_id !== p.customer.id) throw notFound("Order not found");
  const [products, organization] = await Promise.all([
    loadProducts(deps.db, p.organizationId, order.product_id ? [order.product_id] : [], deps.baseURL),
    getOrganization(deps.db, p.organizationId),
  ]);
  return toCustomerOrderWire(order, order.product_id ? (products.get(order.product_id) ?? null) : null, organization);
}

/** CustomerOrderUpdate: the billing name and address of one of the customer's orders (the seller's rules). */
export async function updateMyOrder(deps: PortalDeps, p: PortalCaller, id: string, input: OrderUpdateInput) {
  const order = await getOrder(deps.db, p.organizationId, id);
  if (order.customer_id !== p.customer.id) throw notFound("Order not found");
  await updateOrder(deps.db, p.organizationId, id, input);
  return getMyOrder(deps, p, id);
}

// ---- subscriptions --------------------------------------------------------------------------------

/** The subscriptions in the customer's wire, each with the add-ons its product offers (one load for them all). */
async function customerSubscriptions(deps: PortalDeps, organizationId: string, subs: SubscriptionWire[], o: OrganizationWire) {
  const products = await loadProducts(deps.db, organizationId, subs.flatMap((s) => s.product.add_on_ids), deps.baseURL);
  return subs.map((s) => toCustomerSubscriptionWire(s, s.product, o, availableAddOns(s, s.product, products)));
}

async function customerSubscription(deps: PortalDeps, organizationId: string, s: SubscriptionWire, o: OrganizationWire) {
  const [wire] = await customerSubscriptions(deps, organizationId, [s], o);
  if (!wire) throw new Error("customerSubscription: no wire for the subscription");
  return wire;
}

export async function listMySubscriptions(
  deps: PortalDeps,
  p: PortalCaller,
  filter: { productIds?: string[] | undefined; active?: boolean | undefined },
  pageNo: number,
  limit: number,
) {
  const [{ items, total }, organization] = await Promise.all([
    listSubscriptions(deps.db, p.organizationId, { ...filter, customerIds: [p.customer.id] }, [{ key: "started_at", desc: true }], pageNo, limit, deps.baseURL),
    getOrganization(deps.db, p.organizationId),
  ]);
  return { items: await customerSubscriptions(deps, p.organizationId, items, organization), total };
}

async function mySubscription(deps: PortalDeps, p: PortalCaller, id: string): Promise<SubscriptionWire> {
  const s = await getSubscription(deps.db, p.organizationId, id, deps.baseURL);
  if (s.customer_id !== p.customer.id) throw notFound("Subscription not found");
  return s;
}

export async function getMySubscription(deps: PortalDeps, p: PortalCaller, id: string) {
  const [s, organization] = await Promise.all([mySubscription(deps, p, id), getOrganization(deps.db, p.organizationId)]);
  return customerSubscription(deps, p.organizationId, s, organization);
}

/**
 * A customer's change to their subscription: cancel at the period end (with their reason) or take that back,
 * and — when the seller's portal settings allow it — another plan or another number of seats.
 */
export async function updateMySubscription(deps: PortalDeps, p: PortalCaller, id: string, update: SubscriptionUpdate) {
  const organization = await mayChange(deps, p, id, update);
  const s = await updateSubscription(deps.db, p.organizationId, id, update, deps.baseURL, deps.processor);
  return customerSubscription(deps, p.organizationId, s, organization);
}

/** The customer's own subscription (else 404), and a change the seller's portal settings allow (else 403). */
async function mayChange(deps: PortalDeps, p: PortalCaller, id: string, update: SubscriptionUpdate): Promise<OrganizationWire> {
  await mySubscription(deps, p, id);
  const organization = await getOrganization(deps.db, p.organizationId);
  const allowed = organization.customer_portal_settings.subscription;
  if (update.kind === "change" && !allowed.update_plan) throw notPermitted("Changing the plan is not allowed by the seller.", "change_not_allowed");
  // add-ons are part of the plan: the seller's plan-change setting governs them
  if (update.kind === "add_ons" && !allowed.update_plan) throw notPermitted("Changing the add-ons is not allowed by the seller.", "change_not_allowed");
  if (update.kind === "seats" && !allowed.update_seats) throw notPermitted("Changing the seats is not allowed by the seller.", "change_not_allowed");
  if (update.kind === "revoke" || update.kind === "billing_period") throw notPermitted("This change is not available to customers.", "change_not_allowed");
  return organization;
}

/**
 * What the customer's change would bill (the seller's preview, subscription-changes/preview.ts), written nowhere:
 * the same checks as the change itself, and the subscription as the change leaves it in the customer's wire. Its
 * lines in the language the portal page speaks (the browser's: web/src/pages/Portal.tsx), as the invoice and the
 * emails say them; English keeps the stored labels.
 */
export async function previewMySubscription(deps: PortalDeps, p: PortalCaller, id: string, update: SubscriptionUpdate, acceptLanguage?: string) {
  const organization = await mayChange(deps, p, id, update);
  if (!deps.processor) throw new Error("previewMySubscription: the portal runs without a payment processor");
  const locale = resolveLocale({ acceptLanguage: acceptLanguage ?? null });
  const say: SayLine | undefined = locale === DEFAULT_LOCALE
    ? undefined
    : (i, currency) => lineFromFacts(locale, { usage: i.usage, proration: i.prorationFacts, walletCredit: i.walletCredit }, currency);
  const deps2 = { processor: deps.processor, baseURL: deps.baseURL };
  const preview = await previewSubscriptionUpdate(deps.db, deps2, p.organizationId, id, update, say);
  return { ...preview, subscription: await customerSubscription(deps, p.organizationId, preview.subscription, organization) };
}

// ---- benefit grants and license keys -------------------------------------------------------------

/**
 * The grants a portal caller sees: the customer's; in a team, a plain member sees the team's own grants and the
 * ones made for them (their seats), not other members' (the owner and billing managers see every member's).
 */
const visibleTo = (p: PortalCaller) => ({ customerIds: [p.customer.id], visibleToMember: p.member?.role === "member" ? p.member.id : undefined });

export async function listMyGrants(deps: PortalDeps, p: PortalCaller, filter: { benefitIds?: string[] | undefined; memberIds?: string[] | undefined }, pageNo: number, limit: number) {
  const [{ items, total }, organization] = await Promise.all([
    listGrants(deps.db, p.organizationId, { ...filter, ...visibleTo(p) }, [{ key: "created_at", desc: true }], pageNo, limit),
    getOrganization(deps.db, p.organizationId),
  ]);
  return { items: items.map((g) => toCustomerBenefitGrantWire(g, organization)), total };
}

export async function getMyGrant(deps: PortalDeps, p: PortalCaller, id: string) {
  const [{ items }, organization] = await Promise.all([
    listGrants(deps.db, p.organizationId, { ...visibleTo(p), ids: [id] }, [{ key: "created_at", desc: true }], 1, 1),
    getOrganization(deps.db, p.organizationId),
  ]);
  const [grant] = items;
  if (!grant) throw notFound("Benefit grant not found");
  return toCustomerBenefitGrantWire(grant, organization);
}

/** The benefit types whose grant has nothing a customer can change (Polar's Slack type included, for the wire). */
const NOTHING_TO_CHANGE = ["custom", "downloadables", "license_keys", "meter_credit", "feature_flag", "slack_shared_channel"] as const;
/** A new benefit type fails the typecheck here until the portal's update says what a customer may change of it. */
export const PORTAL_UPDATES_EVERY_BENEFIT_TYPE: Covers<BenefitType, "github_repository" | "discord" | (typeof NOTHING_TO_CHANGE)[number]> = true;
const accountProperties = z.object({ account_id: z.string().min(1).max(256).nullable() });
/**
 * CustomerBenefitGrantUpdate: told apart by `benefit_type`; GitHub and Discord grants name the account to deliver to.
 */
export const PortalGrantUpdateInput = z.discriminatedUnion("benefit_type", [
  z.object({ benefit_type: z.literal("github_repository"), properties: accountProperties }),
  z.object({ benefit_type: z.literal("discord"), properties: accountProperties }),
  z.object({ benefit_type: z.enum(NOTHING_TO_CHANGE) }),
]);
export type PortalGrantUpdateInput = z.output<typeof PortalGrantUpdateInput>;

/**
 * A grant of the customer's: its type must be the one sent (422), a revoked one is not updated (403). A GitHub or
 * Discord grant given an `account_id` is delivered again to that connected account (the worker does it); the
 * other types have nothing a customer can change, and answer the grant as it is.
 */
export async function updateMyGrant(deps: PortalDeps, p: PortalCaller, id: string, input: PortalGrantUpdateInput) {
  const current = await getMyGrant(deps, p, id);
  if (current.benefit.type !== input.benefit_type) {
    throw invalid(["body", "benefit_type"], `This grant is of a ${current.benefit.type} benefit, not ${input.benefit_type}.`);
  }
  if (current.is_revoked) throw notPermitted("This benefit grant is revoked.");
  if ("properties" in input && input.properties.account_id !== null) {
    await deliverToAccount(deps.db, p.organizationId, p.customer.id, id, input.properties.account_id);
  }
  return getMyGrant(deps, p, id);
}

export const listMyLicenseKeys = (deps: PortalDeps, p: PortalCaller, benefitIds: string[] | undefined, pageNo: number, limit: number) =>
  licenseKeys.listLicenseKeys(deps.db, p.organizationId, { benefitIds, customerIds: [p.customer.id] }, pageNo, limit);

export async function getMyLicenseKey(deps: PortalDeps, p: PortalCaller, id: string) {
  const key = await licenseKeys.getLicenseKey(deps.db, p.organizationId, id);
  if (key.customer_id !== p.customer.id) throw notFound("License key not found.");
  return key;
}

/**
 * The files of the customer's granted downloadables benefits (archived files left out), each with a download
 * URL valid for an hour. Paged here: a customer has few such grants.
 */
export async function listMyDownloadables(deps: PortalDeps, p: PortalCaller, benefitIds: string[] | undefined, pageNo: number, limit: number) {
  const { items: grants } = await listGrants(deps.db, p.organizationId, { ...visibleTo(p), benefitIds, isGranted: true }, [{ key: "created_at", desc: false }], 1, 1000);
  const wanted = grants.flatMap((g) => {
    if (g.benefit.type !== "downloadables") return [];
    return activeFilesOf(g.benefit.properties).map((fileId) => ({ grant: g, fileId }));
  });
  const files = new Map((await loadUploadedFiles(deps.db, p.organizationId, wanted.map((w) => w.fileId))).map((f) => [f.id, f]));
  const expiresAt = new Date(Date.now() + DOWNLOAD_URL_TTL_MS);
  const seen = new Set<string>();
  const all = wanted.flatMap(({ grant, fileId }) => {
    const file = files.get(fileId.toLowerCase());
    if (!file || seen.has(file.id)) return [];
    seen.add(file.id);
    const url = signedDownloadUrl(deps.baseURL, deps.secret, file.id, expiresAt);
    return [toDownloadableWire(grant, file, { url, expiresAt }, deps.baseURL)];
  });
  return { items: all.slice((pageNo - 1) * limit, pageNo * limit), total: all.length };
}

/**
 * CustomerCustomerMeter: the customer's usage of each meter they used or were credited on (as
 * CustomerState.active_meters), with the meter's name.
 */
export async function listMyMeters(deps: PortalDeps, p: PortalCaller, meterIds: string[] | undefined, pageNo: number, limit: number) {
  const grants = await listGrantedBenefitsForCustomer(deps.db, p.organizationId, p.customer.id);
  const usage = (await customerMeters(deps.db, p.organizationId, p.customer, grants)).filter((m) => !meterIds || meterIds.includes(m.meter_id));
  const meters = await loadMeters(deps.db, p.organizationId, usage.map((m) => m.meter_id));
  const all = usage.flatMap((m) => {
    const meter = meters.get(m.meter_id);
    if (!meter) return [];
    return [{ ...m, customer_id: p.customer.id, meter: { created_at: meter.created_at, modified_at: meter.modified_at, id: meter.id, name: meter.name } }];
  });
  return { items: all.slice((pageNo - 1) * limit, pageNo * limit), total: all.length };
}

/** One of the customer's meters by its id (another customer's, or one without usage: 404). */
export async function getMyMeter(deps: PortalDeps, p: PortalCaller, id: string) {
  const { items } = await listMyMeters(deps, p, undefined, 1, Number.MAX_SAFE_INTEGER);
  const found = items.find((m) => m.id === id.toLowerCase());
  if (!found) throw notFound("Customer meter not found");
  return found;
}

// ---- the seller, publicly -------------------------------------------------------------------------

/** CustomerOrganizationData: the seller by slug and its public, live products (the portal's header and catalog). */
export async function organizationBySlug(deps: PortalDeps, slug: string) {
  const [row] = await deps.db.select({ id: organization.id }).from(organization).where(eq(organization.slug, slug)).limit(1);
  if (!row) throw notFound("Organization not found");
  const [org, { items }] = await Promise.all([
    getOrganization(deps.db, row.id),
    listProducts(deps.db, row.id, { isArchived: false, visibility: ["public"] }, [{ key: "created_at", desc: false }], 1, 100, deps.baseURL),
  ]);
  return { organization: toCustomerOrganizationWire(org), products: items.map(toCustomerProductWire) };
}

// ---- the session ----------------------------------------------------------------------------------

export const introspect = (p: PortalCaller) => ({ expires_at: p.session.expiresAt.toISOString(), return_url: p.session.returnUrl });

/** PortalAuthenticatedUser: the customer, or the team member whose session it is (with their role). */
export const authenticatedUser = (p: PortalCaller) =>
  p.member
    ? { type: "member", name: p.member.name ?? null, email: p.member.email, customer_id: p.customer.id, member_id: p.member.id, role: p.member.role }
    : { type: "customer", name: p.customer.name ?? null, email: p.customer.email, customer_id: p.customer.id };
