// /v1/subscriptions: list, get, update (cancel, uncancel, revoke; product, discount, trial, seats, billing period)
// and revoke (Polar wire). Subscriptions are created by confirmed checkouts, and by the seller for a free or trial
// product (POST /v1/subscriptions/, create.ts).
import { serverPaymentProcessor } from "../../payments/index.js";
import { z } from "zod";
import type { BillingDeps } from "../deps.js";
import {
  datetimeInput,
  isUuid,
  metadataInput,
  metadataQuery,
  page,
  paginationQuery,
  parseWith,
  pathId,
  queryArray,
  queryBool,
} from "../http.js";
import { notFound, validationError } from "../errors.js";
import { scopeOf } from "../route-auth.js";
import { organizationSelected, sendCsv, withoutRows } from "../csv.js";
import { sortingQuery } from "../listing.js";
import type { SubscriptionSort } from "./repository.js";
import { revokeSubscription, updateSubscription } from "../subscription-changes/lifecycle.js";
import { previewSubscriptionUpdate } from "../subscription-changes/preview.js";
import { upcomingOf } from "../renewal/upcoming.js";
import * as service from "./service.js";
import { SubscriptionTermsInput, updateSubscriptionTerms } from "./invoice-terms.js";
import { createSubscription } from "./create.js";
import { PRORATION_BEHAVIORS, type SubscriptionUpdate } from "./change.js";
import { MAX_ADD_ON_QUANTITY } from "../products/add-ons.js";
import { CANCELLATION_REASONS } from "../../../shared/cancellation-reasons.js";
import { SUBSCRIPTION_STATUSES } from "./wire.js";
import { documented, route, type V1App } from "../contract.js";
import { paymentFailed } from "../payments/errors.js";
import { alreadyCanceled, subscriptionLocked } from "./errors.js";

const uuid = z.string().refine(isUuid, { message: "Input should be a valid UUID" });

const ExportQuery = z.object({ organization_id: queryArray(uuid).optional() });

const ListQuery = z.object({
  organization_id: queryArray(uuid).optional(),
  product_id: queryArray(uuid).optional(),
  customer_id: queryArray(uuid).optional(),
  external_customer_id: queryArray(z.string().max(256)).optional(),
  discount_id: queryArray(uuid).optional(),
  status: queryArray(z.enum(SUBSCRIPTION_STATUSES)).optional(),
  active: queryBool.optional(),
  cancel_at_period_end: queryBool.optional(),
  customer_cancellation_reason: queryArray(z.enum(CANCELLATION_REASONS)).optional(),
  canceled_at_after: datetimeInput.optional(),
  canceled_at_before: datetimeInput.optional(),
  metadata: metadataQuery.optional(),
  sorting: sortingQuery<SubscriptionSort>(
    ["customer", "status", "started_at", "current_period_end", "ended_at", "ends_at", "amount", "product", "discount"],
    [{ key: "started_at", desc: true }],
  ),
  ...paginationQuery,
});

const cancellation = {
  customer_cancellation_reason: z.enum(CANCELLATION_REASONS).nullish(),
  customer_cancellation_comment: z.string().max(10_000).nullish(),
};
const RevokeBody = z.object({ revoke: z.literal(true), ...cancellation });
const CancelBody = z.object({ cancel_at_period_end: z.boolean(), ...cancellation });
/**
 * 0.47.1 sends SubscriptionUpdateProduct or SubscriptionUpdateDiscount; 0.49.0 SubscriptionUpdateBase (both optional).
 */
const ChangeBody = z.object({
  product_id: uuid.nullish(),
  proration_behavior: z.enum(PRORATION_BEHAVIORS).nullish(),
  discount_id: uuid.nullish(),
  trial_end: datetimeInput.nullish(),
  /** till's own, as Stripe's: prorate as at this instant (a preview's `proration_date`). */
  proration_date: datetimeInput.nullish(),
});
const SeatsBody = z.object({
  seats: z.int().min(1).max(2_147_483_647),
  proration_behavior: z.enum(PRORATION_BEHAVIORS).nullish(),
  proration_date: datetimeInput.nullish(),
});
const BillingPeriodBody = z.object({ current_billing_period_end: datetimeInput });
/** till's own: the add-ons as they should be (one left out is removed), with a plan change's proration. */
const AddOnsBody = z.object({
  items: z.array(z.object({ product_id: uuid, quantity: z.int().min(1).max(MAX_ADD_ON_QUANTITY).default(1) })).max(100),
  proration_behavior: z.enum(PRORATION_BEHAVIORS).nullish(),
  proration_date: datetimeInput.nullish(),
});
/** 0.49.0's SubscriptionUpdateClear: null drops the pending change (next_period). */
const ClearBody = z.object({ pending_update: z.null() });
/** The keys that name each variant (product, discount and trial changes are one variant in 0.49.0). */
const VARIANTS = [["revoke"], ["cancel_at_period_end"], ["seats"], ["current_billing_period_end"], ["product_id", "discount_id", "trial_end"], ["items"]];
const VARIANT_KEYS = [...VARIANTS.flat(), "pending_update"];

const dateOf = (iso: string | null | undefined) => (iso ? new Date(iso) : undefined);

/**
 * The `SubscriptionUpdate` union, told apart by its keys as Polar's models are (unknown keys are ignored). A body
 * naming two variants (e.g. a cancel and a product change) is refused: applying one and dropping the other would
 * answer 200 for a change that did not happen.
 */
function parseUpdate(body: unknown): SubscriptionUpdate {
  const keys = body !== null && typeof body === "object" && !Array.isArray(body) ? Object.keys(body) : [];
  const has = (k: string) => keys.includes(k);
  const named = VARIANTS.filter((variant) => variant.some((k) => has(k) && (body as Record<string, unknown>)[k] !== null));
  if (named.length > 1) {
    throw validationError([
      {
        loc: ["body"],
        msg: `Input should be one SubscriptionUpdate variant, not several at once (${named.map((v) => v.filter(has).join(", ")).join(" and ")})`,
        type: "union_tag_invalid",
        input: body,
      },
    ]);
  }
  if (has("revoke")) {
    const b = parseWith(RevokeBody, body, "body");
    return { kind: "revoke", reason: b.customer_cancellation_reason, comment: b.customer_cancellation_comment };
  }
  if (has("cancel_at_period_end")) {
    const b = parseWith(CancelBody, body, "body");
    return { kind: "cancel", cancelAtPeriodEnd: b.cancel_at_period_end, reason: b.customer_cancellation_reason, comment: b.customer_cancellation_comment };
  }
  if (has("seats")) {
    const b = parseWith(SeatsBody, body, "body");
    return { kind: "seats", seats: b.seats, prorationBehavior: b.proration_behavior, prorationDate: dateOf(b.proration_date) };
  }
  if (has("pending_update") && named.length === 0) {
    parseWith(ClearBody, body, "body");
    return { kind: "clear_pending" };
  }
  if (has("current_billing_period_end")) {
    const b = parseWith(BillingPeriodBody, body, "body");
    return { kind: "billing_period", periodEnd: new Date(b.current_billing_period_end) };
  }
  if (has("items") && (body as Record<string, unknown>).items !== null) {
    const b = parseWith(AddOnsBody, body, "body");
    return {
      kind: "add_ons",
      items: b.items.map((i) => ({ productId: i.product_id.toLowerCase(), quantity: i.quantity })),
      prorationBehavior: b.proration_behavior,
      prorationDate: dateOf(b.proration_date),
    };
  }
  if (has("product_id") || has("discount_id") || has("trial_end")) {
    const b = parseWith(ChangeBody, body, "body");
    return {
      kind: "change",
      productId: b.product_id?.toLowerCase(),
      prorationBehavior: b.proration_behavior,
      discountId: b.discount_id === null ? null : b.discount_id?.toLowerCase(),
      trialEnd: b.trial_end ? new Date(b.trial_end) : undefined,
      prorationDate: dateOf(b.proration_date),
    };
  }
  throw validationError([
    {
      loc: ["body"],
      msg: `Input should be one of the SubscriptionUpdate variants (naming one of: ${VARIANT_KEYS.join(", ")})`,
      type: "union_tag_invalid",
      ...(body === undefined ? {} : { input: body }),
    },
  ]);
}

const lower = (ids: string[] | undefined) => ids?.map((id) => id.toLowerCase());

/** SubscriptionCreateCustomer | SubscriptionCreateExternalCustomer, told apart by the customer key they name. */
const CreateBody = z.object({ product_id: uuid, metadata: metadataInput.optional() });
const CreateForCustomer = CreateBody.extend({ customer_id: uuid });
const CreateForExternal = CreateBody.extend({ external_customer_id: z.string().min(1).max(256) });

/** The bodies the writes accept, for the document: parseCreate / parseUpdate tell them apart (their own 422s). */
const SubscriptionCreate = documented(z.union([CreateForCustomer, CreateForExternal]));
const SubscriptionUpdate = documented(z.union([ChangeBody, SeatsBody, BillingPeriodBody, CancelBody, RevokeBody, AddOnsBody]));

/** The till extensions' answers, for the document (subscription-changes/preview.ts, renewal/upcoming.ts). */
const DraftWire = z.looseObject({ total_amount: z.number(), due_amount: z.number(), items: z.array(z.looseObject({ label: z.string(), amount: z.number() })) });
const PreviewWire = z.looseObject({ proration_date: z.string(), order: DraftWire.nullable(), next_renewal: DraftWire.nullable() });

function parseCreate(body: unknown) {
  const has = (k: string) => body !== null && typeof body === "object" && !Array.isArray(body) && k in body;
  if (has("external_customer_id") && !has("customer_id")) {
    const b = parseWith(CreateForExternal, body, "body");
    return { productId: b.product_id.toLowerCase(), customer: { externalId: b.external_customer_id }, metadata: b.metadata ?? {} };
  }
  const b = parseWith(CreateForCustomer, body, "body");
  return { productId: b.product_id.toLowerCase(), customer: { id: b.customer_id.toLowerCase() }, metadata: b.metadata ?? {} };
}

export function subscriptionRoutes(app: V1App, { db, config, secret }: BillingDeps): void {
  // a change billed now is charged through the organization's processor (its Stripe account when connected)
  const processor = serverPaymentProcessor(config, secret);
  app.get("/subscriptions/export", route({
    scope: "subscriptions:read", operationId: "subscriptions:export", query: ExportQuery,
    responses: { 200: "text/csv", 422: validationError },
  }), async (req, reply) => {
    const q = req.query;
    const { organizationId } = scopeOf(req);
    const csv = service.subscriptionExport(organizationId);
    return sendCsv(reply, db, organizationSelected(q.organization_id, organizationId) ? csv : withoutRows(csv));
  });

  app.get("/subscriptions/", route({
    scope: "subscriptions:read", operationId: "subscriptions:list", query: ListQuery,
    responses: { 200: "ListResourceSubscription", 422: validationError },
  }), async (req) => {
    const q = req.query;
    const { organizationId } = scopeOf(req);
    if (q.organization_id?.length && !q.organization_id.some((id) => id.toLowerCase() === organizationId)) {
      return page([], 0, q.limit);
    }
    const { items, total } = await service.listSubscriptions(
      db,
      organizationId,
      {
        productIds: lower(q.product_id),
        customerIds: lower(q.customer_id),
        externalCustomerIds: q.external_customer_id,
        discountIds: lower(q.discount_id),
        statuses: q.status,
        active: q.active,
        cancelAtPeriodEnd: q.cancel_at_period_end,
        cancellationReasons: q.customer_cancellation_reason,
        canceledAtAfter: q.canceled_at_after ? new Date(q.canceled_at_after) : undefined,
        canceledAtBefore: q.canceled_at_before ? new Date(q.canceled_at_before) : undefined,
        metadata: q.metadata,
      },
      q.sorting,
      q.page,
      q.limit,
      config.baseURL,
    );
    return page(items, total, q.limit);
  });

  app.post("/subscriptions/", route({
    scope: "subscriptions:write", operationId: "subscriptions:create", body: SubscriptionCreate,
    responses: { 201: "Subscription", 422: validationError },
  }), async (req, reply) => {
    const input = parseCreate(req.body ?? {});
    const created = await createSubscription(db, scopeOf(req).organizationId, input, config.baseURL);
    return reply.status(201).send(created);
  });

  app.get("/subscriptions/:id", route({ scope: "subscriptions:read", operationId: "subscriptions:get", responses: { 200: "Subscription", 404: notFound, 422: validationError } }), async (req) =>
    service.getSubscription(db, scopeOf(req).organizationId, pathId(req), config.baseURL),
  );

  app.patch("/subscriptions/:id", route({
    scope: "subscriptions:write", operationId: "subscriptions:update", body: SubscriptionUpdate,
    responses: { 200: "Subscription", 402: paymentFailed, 403: alreadyCanceled, 404: notFound, 409: subscriptionLocked, 422: validationError },
  }), async (req) => {
    const id = pathId(req);
    const update = parseUpdate(req.body ?? {});
    return updateSubscription(db, scopeOf(req).organizationId, id, update, config.baseURL, processor);
  });

  // till's own: how the subscription's renewals are collected (billing/terms.ts) and the buyer's purchase order number
  app.patch("/subscriptions/:id/terms", route({
    scope: "subscriptions:write", operationId: "till:subscriptions:terms", body: SubscriptionTermsInput,
    responses: { 200: "Subscription", 404: notFound, 422: validationError },
  }), async (req) => updateSubscriptionTerms(db, scopeOf(req).organizationId, pathId(req), req.body, config.baseURL));

  // till's own: what the PATCH with the same body would bill (subscription-changes/preview.ts). A reader's scope: a
  // preview writes nothing, and shows what a reader of the subscription, its product and its orders can see already
  app.post("/subscriptions/:id/preview", route({
    scope: "subscriptions:read", operationId: "till:subscriptions:preview", body: SubscriptionUpdate,
    responses: { 200: PreviewWire, 403: alreadyCanceled, 404: notFound, 409: subscriptionLocked, 422: validationError },
  }), async (req) => {
    const id = pathId(req);
    const update = parseUpdate(req.body ?? {});
    return previewSubscriptionUpdate(db, { processor, baseURL: config.baseURL }, scopeOf(req).organizationId, id, update);
  });

  // till's own: the next renewal as it stands (renewal/upcoming.ts); none coming answers 404, as Stripe's upcoming
  // invoice does
  app.get("/subscriptions/:id/upcoming", route({
    scope: "subscriptions:read", operationId: "till:subscriptions:upcoming",
    responses: { 200: DraftWire, 404: notFound, 422: validationError },
  }), async (req) => {
    const upcoming = await upcomingOf(db, { processor, baseURL: config.baseURL }, scopeOf(req).organizationId, pathId(req));
    if (!upcoming) throw notFound("The subscription has no upcoming renewal (it has ended, ends at the period end, or is past due).");
    return upcoming;
  });

  app.delete("/subscriptions/:id", route({
    scope: "subscriptions:write", operationId: "subscriptions:revoke",
    responses: { 200: "Subscription", 403: alreadyCanceled, 404: notFound, 409: subscriptionLocked, 422: validationError },
  }), async (req) =>
    revokeSubscription(db, scopeOf(req).organizationId, pathId(req), config.baseURL),
  );
}
