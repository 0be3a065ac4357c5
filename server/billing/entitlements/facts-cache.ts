// A customer's entitlement facts, reused while they cannot have changed. Migration 0087's triggers set a new
// entitlement stamp on every change that can alter a customer's facts (its grants, subscriptions, holds, usage,
// the customer row) and a new organization stamp on every change of what all its customers' facts read (benefits,
// prices, meters, billing settings) — triggers, so every writer counts, another process's or the previous
// release's. Facts read in the same statement as the two stamps are the facts of any later read that sees the
// same two: so they are kept here, and a check first reads the stamps alone (one statement of three primary-key
// lookups) and answers from the facts kept when they match. Only facts whose every part is stamped are kept (see
// CustomerFacts.reusableUntil), and not past their first open hold's expiry, which no write marks.
import type { Queryable } from "../../db/client.js";
import { rawQuery } from "../../db/prepared.js";
import type { CustomerRef } from "../customers/service.js";
import { isUuid } from "../http.js";
import type { CustomerFacts } from "./facts.js";
import { ENTITLEMENT_STAMP_SQL } from "./facts-repository.js";

/** Facts kept, by organization, customer reference and feature (oldest first: the first dropped past the limit). */
const LIMIT = 10_000;
const kept = new Map<string, { facts: CustomerFacts; until: number }>();

const stampStatement = (match: string) =>
  `SELECT ${ENTITLEMENT_STAMP_SQL} AS stamp FROM customer c WHERE c.organization_id = $1::uuid AND ${match} AND c.deleted_at IS NULL LIMIT 1`;
const STAMP_BY_ID = stampStatement("c.id = $2::uuid");
const STAMP_BY_EXTERNAL_ID = stampStatement("c.external_id = $2::text");

const keyOf = (organizationId: string, ref: CustomerRef, feature: string | undefined) =>
  JSON.stringify([organizationId, "id" in ref ? `i:${ref.id.toLowerCase()}` : `e:${ref.externalId}`, feature ?? null]);

/** What the stamps say: no live customer so referred to, the facts kept at these stamps, or a read is needed. */
export type KeptFacts = { found: "none" } | { found: "kept"; facts: CustomerFacts } | { found: "read"; key: string };

/** The stamps of the customer `ref` now, and the facts kept at them if any. */
export async function keptFacts(db: Queryable, organizationId: string, ref: CustomerRef, feature: string | undefined): Promise<KeptFacts> {
  if ("id" in ref && !isUuid(ref.id)) return { found: "none" };
  const byId = "id" in ref;
  const [row] = await rawQuery(db, byId ? STAMP_BY_ID : STAMP_BY_EXTERNAL_ID, [organizationId, byId ? ref.id.toLowerCase() : ref.externalId]);
  if (!row) return { found: "none" };
  const key = keyOf(organizationId, ref, feature);
  const hit = kept.get(key);
  if (hit && hit.facts.stamp === String(row.stamp) && Date.now() < hit.until) return { found: "kept", facts: hit.facts };
  return { found: "read", key };
}

/** Keeps facts just read (under the stamps read with them) when they may be reused. */
export function keepFacts(key: string, facts: CustomerFacts): void {
  kept.delete(key);
  if (facts.reusableUntil === null || Date.now() >= facts.reusableUntil) return;
  if (kept.size >= LIMIT) {
    const oldest = kept.keys().next();
    if (!oldest.done) kept.delete(oldest.value);
  }
  kept.set(key, { facts, until: facts.reusableUntil });
}

/** How many customers' facts are kept (tests). */
export const keptFactsCount = (): number => kept.size;
