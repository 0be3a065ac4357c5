// Writing products: creating one with its prices, benefits, medias and custom fields; updating it (prices
// replaced by archiving); replacing its benefits. Each answers the product as GET does (service.ts).
import type { Db, Queryable } from "../../db/client.js";
import { enqueue } from "../../db/outbox.js";
import { benefitIdsExist } from "../benefits/service.js";
import { setProductCustomFields } from "../custom-fields/service.js";
import { notFound, validationError, type ValidationIssue } from "../errors.js";
import { fileIdsExist, setProductMedias } from "../files/service.js";
import { meterIdsExist } from "../meters/service.js";
import type { ProductCreateInput, ProductUpdateInput } from "./input.js";
import { isLegacyInput, priceRowValues, priceSetIssues, slotOfInput, slotOfRow, type PriceCreateInput, type PriceSlot } from "./prices.js";
import * as repo from "./repository.js";
import { getProduct, loadProducts, NOT_FOUND } from "./service.js";
import { addOnIdsIssues } from "./add-ons.js";
import type { ProductWire } from "./wire.js";

const issueAt = (loc: Array<string | number>, msg: string, input?: unknown): ValidationIssue => ({
  loc,
  msg,
  type: "value_error",
  ...(input === undefined ? {} : { input }),
});

/** Meters of new metered prices must be the organization's. */
async function meterIssues(db: Queryable, organizationId: string, items: Array<{ price: PriceCreateInput; loc: Array<string | number> }>) {
  const metered = items.flatMap((i) => (i.price.amount_type === "metered_unit" ? [{ id: i.price.meter_id, loc: i.loc }] : []));
  if (metered.length === 0) return [];
  const missing = new Set(await meterIdsExist(db, organizationId, metered.map((m) => m.id)));
  return metered.filter((m) => missing.has(m.id)).map((m) => issueAt([...m.loc, "meter_id"], "Meter does not exist.", m.id));
}

async function mediaIssues(db: Queryable, organizationId: string, medias: string[]): Promise<ValidationIssue[]> {
  const missing = new Set(await fileIdsExist(db, organizationId, medias, "product_media"));
  const issues = medias.flatMap((id, i) =>
    missing.has(id) ? [issueAt(["body", "medias", i], "File does not exist or is not yet uploaded.", id)] : [],
  );
  if (new Set(medias.map((m) => m.toLowerCase())).size !== medias.length) issues.push(issueAt(["body", "medias"], "A file is listed twice."));
  return issues;
}

/** Trial and recurrence settings that only make sense together. */
function recurrenceIssues(input: {
  recurring: boolean;
  trial_interval?: string | null | undefined;
  trial_interval_count?: number | null | undefined;
}): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const hasTrial = Boolean(input.trial_interval) || Boolean(input.trial_interval_count);
  if (hasTrial && !input.recurring) issues.push(issueAt(["body", "trial_interval"], "Trials are only available on recurring products."));
  else if (Boolean(input.trial_interval) !== Boolean(input.trial_interval_count)) {
    issues.push(issueAt(["body", input.trial_interval ? "trial_interval_count" : "trial_interval"], "trial_interval and trial_interval_count go together."));
  }
  return issues;
}

function throwIf(issues: ValidationIssue[]): void {
  if (issues.length > 0) throw validationError(issues);
}

export async function createProduct(db: Db, organizationId: string, input: ProductCreateInput, baseURL: string): Promise<ProductWire> {
  const addOnIds = (input.add_on_ids ?? []).map((id) => id.toLowerCase());
  const recurringInterval = input.recurring_interval ?? null;
  const legacy = recurringInterval === null && input.prices.some(isLegacyInput);
  const recurring = recurringInterval !== null || legacy;
  const issues = [
    ...recurrenceIssues({ ...input, recurring }),
    ...priceSetIssues(input.prices.map((p, i) => slotOfInput(p, ["body", "prices", i])), { recurring, legacy }),
  ];
  if (recurringInterval === null && input.recurring_interval_count != null) {
    issues.push(issueAt(["body", "recurring_interval_count"], "One-time products don't have a recurring interval count."));
  }
  if ((input.meter_interval != null || input.meter_interval_count != null) && recurringInterval === null) {
    issues.push(issueAt(["body", "meter_interval"], "Only recurring products have a meter interval."));
  }
  return db.transaction(async (tx) => {
    issues.push(
      ...(await meterIssues(tx, organizationId, input.prices.map((price, i) => ({ price, loc: ["body", "prices", i] })))),
      ...(input.medias ? await mediaIssues(tx, organizationId, input.medias) : []),
      ...(await addOnIdsIssues(tx, organizationId, { recurringInterval, recurringIntervalCount: input.recurring_interval_count ?? 1 }, addOnIds, loadProducts)),
    );
    throwIf(issues);
    const row = await repo.insertProduct(tx, {
      organizationId,
      name: input.name,
      description: input.description ?? null,
      visibility: input.visibility,
      recurringInterval,
      recurringIntervalCount: recurringInterval ? (input.recurring_interval_count ?? 1) : null,
      meterInterval: input.meter_interval ?? null,
      meterIntervalCount: input.meter_interval ? (input.meter_interval_count ?? 1) : null,
      trialInterval: input.trial_interval ?? null,
      trialIntervalCount: input.trial_interval_count ?? null,
      addOnIds,
      metadata: input.metadata ?? {},
    });
    await repo.insertPrices(tx, input.prices.map((p, i) => priceRowValues(p, row, i)));
    if (input.medias?.length) await setProductMedias(tx, organizationId, row.id, input.medias);
    if (input.attached_custom_fields?.length) {
      await setProductCustomFields(tx, organizationId, row.id, input.attached_custom_fields, ["body", "attached_custom_fields"]);
    }
    const wire = await getProduct(tx, organizationId, row.id, baseURL);
    await enqueue(tx, { type: "product.created", organizationId, data: { ...wire } });
    return wire;
  });
}

/**
 * `prices` replaces the active prices: `{id}` keeps one, a create adds one, and every active price left out is
 * archived. The recurring interval is fixed once set, except that setting it on a legacy product turns it into
 * a current one (its legacy prices are then all archived, so new prices must be given).
 */
export async function updateProduct(
  db: Db,
  organizationId: string,
  id: string,
  input: ProductUpdateInput,
  baseURL: string,
): Promise<ProductWire> {
  return db.transaction(async (tx) => {
    const row = await repo.findProduct(tx, organizationId, id);
    if (!row) throw notFound(NOT_FOUND);
    const active = await repo.activePricesOfProducts(tx, organizationId, [id]);
    const wasLegacy = row.recurringInterval === null && active.some((p) => p.legacy);
    const addOnIds = input.add_on_ids?.map((a) => a.toLowerCase());
    const issues: ValidationIssue[] = [];

    // the interval: fixed once set; on a legacy product it may be set once (which ends the legacy shape)
    let recurringInterval = row.recurringInterval;
    let recurringIntervalCount = row.recurringIntervalCount;
    const migrating = wasLegacy && input.recurring_interval != null;
    if (migrating) {
      recurringInterval = input.recurring_interval ?? null;
      recurringIntervalCount = input.recurring_interval_count ?? 1;
      if (!input.prices) issues.push(issueAt(["body", "prices"], "Give the product's new prices when setting its recurring interval."));
    } else {
      if (input.recurring_interval != null && input.recurring_interval !== row.recurringInterval) {
        issues.push(issueAt(["body", "recurring_interval"], "The recurring interval of a product can't be changed."));
      }
      if (input.recurring_interval_count != null && input.recurring_interval_count !== row.recurringIntervalCount) {
        issues.push(issueAt(["body", "recurring_interval_count"], "The recurring interval count of a product can't be changed."));
      }
    }
    const legacy = wasLegacy && !migrating;
    const recurring = recurringInterval !== null || legacy;

    // trial: an absent key keeps the stored value, null clears it
    const trialInterval = input.trial_interval !== undefined ? input.trial_interval : row.trialInterval;
    const trialIntervalCount = input.trial_interval_count !== undefined ? input.trial_interval_count : row.trialIntervalCount;
    issues.push(...recurrenceIssues({ recurring, trial_interval: trialInterval, trial_interval_count: trialIntervalCount }));

    // prices
    let toArchive: string[] = [];
    const added: Array<{ price: PriceCreateInput; loc: Array<string | number> }> = [];
    if (input.prices) {
      const byId = new Map(active.map((p) => [p.id, p]));
      const kept = new Set<string>();
      const slots: PriceSlot[] = [];
      input.prices.forEach((item, i) => {
        const loc = ["body", "prices", i];
        if (item.amount_type === undefined) {
          const existing = byId.get(item.id.toLowerCase());
          if (!existing) issues.push(issueAt([...loc, "id"], "Price does not exist on this product or is archived.", item.id));
          else if (kept.has(existing.id)) issues.push(issueAt([...loc, "id"], "Price is listed twice.", item.id));
          else if (migrating && existing.legacy) {
            issues.push(issueAt([...loc, "id"], "Legacy prices can't be kept once the product has a recurring interval.", item.id));
          } else {
            kept.add(existing.id);
            slots.push(slotOfRow(existing, loc));
          }
        } else {
          added.push({ price: item, loc });
          slots.push(slotOfInput(item, loc));
        }
      });
      if (input.prices.length === 0) issues.push({ loc: ["body", "prices"], msg: "At least one price is required.", type: "too_short" });
      issues.push(...priceSetIssues(slots, { recurring, legacy }));
      toArchive = active.filter((p) => !kept.has(p.id)).map((p) => p.id);
    }
    issues.push(
      ...(await meterIssues(tx, organizationId, added)),
      ...(input.medias ? await mediaIssues(tx, organizationId, input.medias) : []),
      ...(addOnIds ? await addOnIdsIssues(tx, organizationId, { id, recurringInterval, recurringIntervalCount }, addOnIds, loadProducts) : []),
    );
    throwIf(issues);

    await repo.updateProduct(tx, organizationId, id, {
      ...(addOnIds ? { addOnIds } : {}),
      ...(input.name ? { name: input.name } : {}),
      ...(input.description !== undefined ? { description: input.description } : {}),
      ...(input.visibility ? { visibility: input.visibility } : {}),
      ...(input.metadata ? { metadata: input.metadata } : {}),
      ...(input.is_archived != null ? { isArchived: input.is_archived } : {}),
      recurringInterval,
      recurringIntervalCount,
      trialInterval: trialInterval ?? null,
      trialIntervalCount: trialIntervalCount ?? null,
    });
    if (input.prices) {
      await repo.archivePrices(tx, organizationId, id, toArchive);
      const start = await repo.nextPricePosition(tx, organizationId, id);
      await repo.insertPrices(tx, added.map((a, i) => priceRowValues(a.price, { ...row, recurringInterval }, start + i)));
    }
    if (input.medias) await setProductMedias(tx, organizationId, id, input.medias);
    if (input.attached_custom_fields) {
      await setProductCustomFields(tx, organizationId, id, input.attached_custom_fields, ["body", "attached_custom_fields"]);
    }
    const wire = await getProduct(tx, organizationId, id, baseURL);
    await enqueue(tx, { type: "product.updated", organizationId, data: { ...wire } });
    return wire;
  });
}

/** POST /products/{id}/benefits: the product's benefits become exactly `benefits`, in that order. */
export async function updateProductBenefits(
  db: Db,
  organizationId: string,
  id: string,
  benefits: string[],
  baseURL: string,
): Promise<ProductWire> {
  return db.transaction(async (tx) => {
    if (!(await repo.findProduct(tx, organizationId, id))) throw notFound(NOT_FOUND);
    const ids = benefits.map((b) => b.toLowerCase());
    const missing = new Set(await benefitIdsExist(tx, organizationId, ids));
    const issues = ids.flatMap((b, i) => (missing.has(b) ? [issueAt(["body", "benefits", i], "Benefit does not exist.", b)] : []));
    if (new Set(ids).size !== ids.length) issues.push(issueAt(["body", "benefits"], "A benefit is listed twice."));
    throwIf(issues);
    await repo.replaceProductBenefits(tx, organizationId, id, ids);
    await repo.updateProduct(tx, organizationId, id, {});
    const wire = await getProduct(tx, organizationId, id, baseURL);
    await enqueue(tx, { type: "product.updated", organizationId, data: { ...wire } });
    return wire;
  });
}

/**
 * Prices a product no longer offers but subscriptions still bill (an import's older prices), added archived: the
 * set rules of active prices do not apply to them. Answers their ids, in order.
 */
export async function addArchivedPrices(db: Queryable, organizationId: string, productId: string, prices: PriceCreateInput[]): Promise<string[]> {
  const row = await repo.findProduct(db, organizationId, productId);
  if (!row) throw notFound(NOT_FOUND);
  const values = prices.map((p, i) => ({ ...priceRowValues(p, row, 1000 + i), isArchived: true }));
  return repo.insertPricesReturningIds(db, values);
}
