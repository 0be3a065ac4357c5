// Rules for discounts: fixed or percentage, once/forever/repeating, codes unique per organization
// (case-insensitively), redemption limits, product restrictions, soft deletion.
import type { Db, Queryable } from "../../db/client.js";
import { isUuid } from "../http.js";
import { invalid, notFound, validationError } from "../errors.js";
import type { SortKey } from "../listing.js";
import { loadProducts, loadProductSummaries, productIdsExist } from "../products/service.js";
import { discountMinimumIssue } from "./minimum.js";
import { resolveAmounts, type DiscountCreateInput, type DiscountUpdateInput } from "./input.js";
import * as repo from "./repository.js";
import { rowAmounts, toDiscountBaseWire, toDiscountWire, type DiscountRow, type DiscountWire } from "./wire.js";

const CODE_TAKEN = "A discount with this code already exists.";

async function toWires(db: Queryable, organizationId: string, rows: DiscountRow[]): Promise<DiscountWire[]> {
  const productIds = await repo.productIdsOf(db, organizationId, rows.map((r) => r.id));
  const summaries = await loadProductSummaries(db, organizationId, [...new Set([...productIds.values()].flat())]);
  return rows.map((row) => {
    const products = (productIds.get(row.id) ?? []).flatMap((id) => summaries.get(id) ?? []);
    products.sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
    return toDiscountWire(row, products);
  });
}

async function toWire(db: Queryable, organizationId: string, row: DiscountRow): Promise<DiscountWire> {
  const [wire] = await toWires(db, organizationId, [row]);
  if (!wire) throw new Error("discount wire missing");
  return wire;
}

async function checkProducts(db: Queryable, organizationId: string, ids: string[]): Promise<string[]> {
  const unique = [...new Set(ids.map((id) => id.toLowerCase()))];
  const missing = await productIdsExist(db, organizationId, unique);
  if (missing.length > 0) throw invalid(["body", "products"], `Products do not exist: ${missing.join(", ")}.`);
  return unique;
}

/**
 * The discount as written (in the caller's transaction): refused when it can only produce totals under the minimum
 * charge.
 */
async function assertChargeable(db: Queryable, organizationId: string, wire: DiscountWire): Promise<DiscountWire> {
  if (wire.products.length === 0) return wire;
  const products = await loadProducts(db, organizationId, wire.products.map((p) => p.id));
  const issue = discountMinimumIssue(wire, [...products.values()]);
  if (issue) throw validationError([issue]);
  return wire;
}

async function checkCode(db: Queryable, organizationId: string, code: string, exceptId?: string) {
  if (await repo.codeTaken(db, organizationId, code, exceptId)) throw invalid(["body", "code"], CODE_TAKEN);
}

export async function createDiscount(db: Db, organizationId: string, input: DiscountCreateInput): Promise<DiscountWire> {
  return db.transaction(async (tx) => {
    if (input.code) await checkCode(tx, organizationId, input.code);
    const products = await checkProducts(tx, organizationId, input.products ?? []);
    let amounts: { amounts: Record<string, number> | null; amount: number | null; currency: string | null; basisPoints: number | null };
    if (input.type === "fixed") {
      const resolved = resolveAmounts(input, null);
      if (Array.isArray(resolved)) throw invalid(["body", resolved[0]], resolved[1]);
      amounts = { ...resolved, basisPoints: null };
    } else {
      amounts = { amounts: null, amount: null, currency: null, basisPoints: input.basis_points };
    }
    const row = await repo.insertDiscount(tx, {
      organizationId,
      name: input.name,
      code: input.code ?? null,
      type: input.type,
      ...amounts,
      duration: input.duration,
      durationInMonths: input.duration === "repeating" ? (input.duration_in_months ?? null) : null,
      startsAt: input.starts_at ? new Date(input.starts_at) : null,
      endsAt: input.ends_at ? new Date(input.ends_at) : null,
      maxRedemptions: input.max_redemptions ?? null,
      metadata: input.metadata ?? {},
    });
    await repo.replaceProducts(tx, row.id, products);
    return assertChargeable(tx, organizationId, await toWire(tx, organizationId, row));
  });
}

export async function getDiscount(db: Queryable, organizationId: string, id: string): Promise<DiscountWire> {
  const row = await repo.findDiscount(db, organizationId, id);
  if (!row) throw notFound("Discount not found");
  return toWire(db, organizationId, row);
}

export async function listDiscounts(
  db: Queryable,
  organizationId: string,
  filter: { query?: string | undefined },
  sorting: Array<SortKey<repo.DiscountSort>>,
  pageNo: number,
  limit: number,
) {
  const { rows, total } = await repo.listDiscounts(db, organizationId, filter, sorting, pageNo, limit);
  return { items: await toWires(db, organizationId, rows), total };
}

/** Date columns from an update: undefined keeps, null clears. */
const dateUpdate = (v: string | null | undefined) => (v === undefined ? undefined : v === null ? null : new Date(v));

/**
 * Type and duration are fixed at creation (a discount already applied to subscriptions keeps its terms);
 * sending the current value is accepted. Once redeemed, the value of the discount (amounts, basis points,
 * months) is fixed too. Everything else may change; null clears code, dates and max_redemptions.
 */
function termsPatch(current: DiscountRow, input: DiscountUpdateInput) {
  const issues: Array<[string, string]> = [];
  if (input.type && input.type !== current.type) issues.push(["type", "The type of a discount cannot be changed."]);
  if (input.duration && input.duration !== current.duration) {
    issues.push(["duration", "The duration of a discount cannot be changed."]);
  }
  const fixedFields = (["amount", "currency", "amounts"] as const).filter((k) => input[k] != null);
  if (current.type !== "fixed" && fixedFields.length > 0) {
    for (const k of fixedFields) issues.push([k, `${k} only applies to fixed discounts.`]);
  }
  if (current.type !== "percentage" && input.basis_points != null) {
    issues.push(["basis_points", "basis_points only applies to percentage discounts."]);
  }
  if (input.duration_in_months != null && current.duration !== "repeating") {
    issues.push(["duration_in_months", "duration_in_months is only allowed for a repeating discount"]);
  }
  const patch: Partial<Pick<DiscountRow, "amounts" | "amount" | "currency" | "basisPoints" | "durationInMonths">> = {};
  if (issues.length === 0 && current.type === "fixed" && fixedFields.length > 0) {
    const resolved = resolveAmounts(input, rowAmounts(current));
    if (Array.isArray(resolved)) issues.push(resolved);
    else Object.assign(patch, resolved);
  }
  if (current.type === "percentage" && input.basis_points != null) patch.basisPoints = input.basis_points;
  if (input.duration_in_months != null && current.duration === "repeating") patch.durationInMonths = input.duration_in_months;
  if (issues.length === 0 && current.redemptionsCount > 0) {
    const before = current.type === "fixed" ? JSON.stringify(rowAmounts(current)) : String(current.basisPoints);
    const after = current.type === "fixed" ? JSON.stringify(rowAmounts({ ...current, ...patch })) : String(patch.basisPoints ?? current.basisPoints);
    const months = patch.durationInMonths !== undefined && patch.durationInMonths !== current.durationInMonths;
    if (before !== after || months) {
      issues.push([current.type === "fixed" ? "amount" : "basis_points", "The discount has been redeemed; its value cannot change."]);
    }
  }
  return { patch, issues };
}

export async function updateDiscount(
  db: Db,
  organizationId: string,
  id: string,
  input: DiscountUpdateInput,
): Promise<DiscountWire> {
  return db.transaction(async (tx) => {
    const current = await repo.findDiscount(tx, organizationId, id);
    if (!current) throw notFound("Discount not found");
    const { patch, issues } = termsPatch(current, input);
    const startsAt = dateUpdate(input.starts_at);
    const endsAt = dateUpdate(input.ends_at);
    const starts = startsAt === undefined ? current.startsAt : startsAt;
    const ends = endsAt === undefined ? current.endsAt : endsAt;
    if (starts && ends && ends.getTime() <= starts.getTime()) issues.push(["ends_at", "ends_at must be after starts_at"]);
    if (input.max_redemptions != null && input.max_redemptions < current.redemptionsCount) {
      issues.push(["max_redemptions", `The discount has already been redeemed ${current.redemptionsCount} times.`]);
    }
    if (issues.length > 0) {
      throw validationError(issues.map(([field, msg]) => ({ loc: ["body", field], msg, type: "value_error" })));
    }
    if (input.code) await checkCode(tx, organizationId, input.code, id);
    const products = input.products ? await checkProducts(tx, organizationId, input.products) : undefined;
    const row = await repo.updateDiscount(tx, organizationId, id, {
      ...patch,
      ...(input.name ? { name: input.name } : {}),
      ...(input.code !== undefined ? { code: input.code } : {}),
      ...(startsAt !== undefined ? { startsAt } : {}),
      ...(endsAt !== undefined ? { endsAt } : {}),
      ...(input.max_redemptions !== undefined ? { maxRedemptions: input.max_redemptions } : {}),
      ...(input.metadata ? { metadata: input.metadata } : {}),
    });
    if (!row) throw notFound("Discount not found");
    if (products) await repo.replaceProducts(tx, id, products);
    return assertChargeable(tx, organizationId, await toWire(tx, organizationId, row));
  });
}

/** Soft delete: orders and subscriptions that used the discount keep it; its code becomes free again. */
export async function deleteDiscount(db: Db, organizationId: string, id: string): Promise<void> {
  const row = await repo.updateDiscount(db, organizationId, id, { deletedAt: new Date() });
  if (!row) throw notFound("Discount not found");
}

// ---- for other domains ----------------------------------------------------------------------------

/** A live discount by code (case-insensitively), with its product restrictions; null when there is none. */
export async function findDiscountByCode(db: Queryable, organizationId: string, code: string): Promise<DiscountWire | null> {
  const row = await repo.findDiscountByCode(db, organizationId, code);
  return row ? toWire(db, organizationId, row) : null;
}

/** `Discount*Base` shapes by id, soft-deleted discounts included (what orders and subscriptions embed). */
export async function loadDiscountBases(
  db: Queryable,
  organizationId: string,
  ids: string[],
): Promise<Map<string, ReturnType<typeof toDiscountBaseWire>>> {
  const unique = [...new Set(ids.filter(isUuid).map((id) => id.toLowerCase()))];
  const rows = await repo.findDiscountsByIds(db, organizationId, unique);
  return new Map(rows.map((r) => [r.id, toDiscountBaseWire(r)]));
}

/**
 * Counts a redemption in the caller's transaction if the discount is still redeemable (live, inside its
 * window, under max_redemptions); false when it is not. Exact under concurrency (one conditional UPDATE).
 */
export async function redeemDiscount(tx: Queryable, organizationId: string, id: string, now = new Date()): Promise<boolean> {
  return repo.redeem(tx, organizationId, id, now);
}
