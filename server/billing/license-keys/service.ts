// Rules for license keys: the seller lists, reads and changes them; the seller's software validates a key,
// activates it on a machine (up to its limit) and deactivates it — with the seller's token, or publicly, where
// the key and its organization's id are the credential (Polar's customer-portal variants).
import { z } from "zod";
import type { Db, Queryable } from "../../db/client.js";
import { datetimeInput, isUuid } from "../http.js";
import { notFound, notPermitted } from "../errors.js";
import { usagesExhausted } from "./errors.js";
import type { LicenseKeyRow } from "./issue.js";
import * as repo from "./repository.js";
import { orgNow } from "../clock.js";
import { toActivationReadWire, toActivationWire, toLicenseKeyWire, type LicenseKeyWire } from "./wire.js";

const MAX_INT = 2_147_483_647;
const uuid = z.string().refine(isUuid, { message: "Input should be a valid UUID" });

/** conditions / meta: at most 50 keys of ≤ 40 characters; string values ≤ 500 characters. */
const scalars = z
  .record(z.string().min(1).max(40), z.union([z.string().max(500), z.number().finite(), z.boolean()]))
  .refine((m) => Object.keys(m).length <= 50, { message: "At most 50 keys" });

/** A key as the customer typed it: surrounding spaces are not part of it. */
const keyInput = z.string().trim().min(1).max(256);

export const LICENSE_KEY_STATUSES = ["granted", "revoked", "disabled"] as const;

export const LicenseKeyUpdateInput = z.object({
  status: z.enum(LICENSE_KEY_STATUSES).nullish(),
  usage: z.number().int().min(0).max(MAX_INT).optional(),
  limit_activations: z.number().int().min(1).max(50).nullish(),
  limit_usage: z.number().int().min(1).max(MAX_INT).nullish(),
  expires_at: datetimeInput.nullish(),
});

export const LicenseKeyValidateInput = z.object({
  key: keyInput,
  organization_id: uuid,
  activation_id: uuid.nullish(),
  benefit_id: uuid.nullish(),
  customer_id: uuid.nullish(),
  increment_usage: z.number().int().min(0).max(MAX_INT).nullish(),
  conditions: scalars.default({}),
});

export const LicenseKeyActivateInput = z.object({
  key: keyInput,
  organization_id: uuid,
  label: z.string().trim().min(1).max(250),
  conditions: scalars.default({}),
  meta: scalars.default({}),
});

export const LicenseKeyDeactivateInput = z.object({
  key: keyInput,
  organization_id: uuid,
  activation_id: uuid,
});

const KEY_NOT_FOUND = "License key not found.";
const ACTIVATION_NOT_FOUND = "License key activation not found.";

const isExpired = (k: LicenseKeyRow, now: Date) => k.expiresAt !== null && k.expiresAt.getTime() <= now.getTime();

/** Same keys, same values (conditions are flat). */
function sameScalars(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => Object.is(a[k], b[k]));
}

// ---- the seller ----------------------------------------------------------------------------------

export async function listLicenseKeys(db: Db, organizationId: string, filter: repo.LicenseKeyFilter, pageNo: number, limit: number) {
  const { rows, total } = await repo.listLicenseKeys(db, organizationId, filter, pageNo, limit);
  return { items: rows.map((r) => toLicenseKeyWire(r.key, r.customer)), total };
}

/** LicenseKeyWithActivations. */
export async function getLicenseKey(db: Db, organizationId: string, id: string) {
  const found = await repo.findLicenseKey(db, organizationId, id);
  if (!found) throw notFound(KEY_NOT_FOUND);
  const activations = await repo.activationsOf(db, found.key.id);
  return { ...toLicenseKeyWire(found.key, found.customer), activations: activations.map(toActivationWire) };
}

export async function updateLicenseKey(
  db: Db,
  organizationId: string,
  id: string,
  input: z.output<typeof LicenseKeyUpdateInput>,
): Promise<LicenseKeyWire> {
  return db.transaction(async (tx) => {
    const found = await repo.findLicenseKey(tx, organizationId, id, true);
    if (!found) throw notFound(KEY_NOT_FOUND);
    const changes: Partial<LicenseKeyRow> = {};
    // status is not nullable: a null leaves it as it is, as an absent one does
    if (input.status) changes.status = input.status;
    if (input.usage !== undefined) changes.usage = input.usage;
    if (input.limit_activations !== undefined) changes.limitActivations = input.limit_activations;
    if (input.limit_usage !== undefined) changes.limitUsage = input.limit_usage;
    if (input.expires_at !== undefined) changes.expiresAt = input.expires_at === null ? null : new Date(input.expires_at);
    if (Object.keys(changes).length === 0) return toLicenseKeyWire(found.key, found.customer);
    const updated = await repo.updateLicenseKey(tx, organizationId, id, { ...changes, modifiedAt: new Date() });
    if (!updated) throw notFound(KEY_NOT_FOUND);
    return toLicenseKeyWire(updated, found.customer);
  });
}

export async function getActivation(db: Db, organizationId: string, id: string, activationId: string) {
  const found = await repo.findLicenseKey(db, organizationId, id);
  if (!found) throw notFound(KEY_NOT_FOUND);
  const activation = await repo.findActivation(db, found.key.id, activationId);
  if (!activation) throw notFound(ACTIVATION_NOT_FOUND);
  return toActivationReadWire(activation, found.key, found.customer);
}

// ---- the seller's software -----------------------------------------------------------------------

/**
 * The key the seller's software presented, locked until the caller's transaction ends, and the organization's
 * clock (a sandbox's test clock), on which the key expires.
 */
async function lockPresentedKey(tx: Queryable, organizationId: string, key: string) {
  const found = await repo.findLicenseKeyByKey(tx, organizationId, key, true);
  if (!found) throw notFound(KEY_NOT_FOUND);
  return { ...found, now: await orgNow(tx, organizationId) };
}

/**
 * Checks the key (status, expiry, the activation and its conditions, the benefit and customer it must belong
 * to, the usage left) and counts the validation, adding `increment_usage` to its usage. Every refusal is a
 * 404 with the reason, as Polar answers, except running out of usages (400).
 */
export async function validateLicenseKey(db: Db, input: z.output<typeof LicenseKeyValidateInput>) {
  const organizationId = input.organization_id.toLowerCase();
  return db.transaction(async (tx) => {
    const { key, customer, now } = await lockPresentedKey(tx, organizationId, input.key);
    if (key.status !== "granted") throw notFound("License key is no longer active.");
    if (isExpired(key, now)) throw notFound("License key has expired.");
    let activation: repo.ActivationRow | null = null;
    if (input.activation_id) {
      activation = await repo.findActivation(tx, key.id, input.activation_id.toLowerCase());
      if (!activation) throw notFound(ACTIVATION_NOT_FOUND);
      if (Object.keys(activation.conditions).length > 0 && !sameScalars(activation.conditions, input.conditions)) {
        throw notFound("License key does not match required conditions");
      }
    }
    if (input.benefit_id && input.benefit_id.toLowerCase() !== key.benefitId) throw notFound("License key does not match given benefit.");
    if (input.customer_id && input.customer_id.toLowerCase() !== key.customerId) throw notFound("License key does not match given user.");
    const increment = input.increment_usage ?? 0;
    if (increment > 0 && key.limitUsage !== null) {
      const remaining = Math.max(0, key.limitUsage - key.usage);
      if (increment > remaining) throw usagesExhausted(remaining);
    }
    const updated = await repo.updateLicenseKey(tx, organizationId, key.id, {
      validations: key.validations + 1,
      lastValidatedAt: now,
      usage: Math.min(MAX_INT, key.usage + increment),
    });
    if (!updated) throw notFound(KEY_NOT_FOUND);
    return { ...toLicenseKeyWire(updated, customer), activation: activation ? toActivationWire(activation) : null };
  });
}

/**
 * A new activation of the key, under its limit (the key's row is locked, so two at once cannot both take the last one).
 */
export async function activateLicenseKey(db: Db, input: z.output<typeof LicenseKeyActivateInput>) {
  const organizationId = input.organization_id.toLowerCase();
  return db.transaction(async (tx) => {
    const { key, customer, now } = await lockPresentedKey(tx, organizationId, input.key);
    if (key.status !== "granted") throw notPermitted("License key is no longer active. This license key can not be activated.");
    if (isExpired(key, now)) throw notPermitted("License key has expired.");
    if (!key.limitActivations) {
      throw notPermitted("This license key does not support activations. Use the /validate endpoint instead to check license validity.");
    }
    const live = await repo.activationsOf(tx, key.id);
    if (live.length >= key.limitActivations) throw notPermitted("License key activation limit already reached");
    const activation = await repo.insertActivation(tx, {
      licenseKeyId: key.id,
      label: input.label,
      conditions: input.conditions,
      meta: input.meta,
      createdAt: now,
    });
    return toActivationReadWire(activation, key, customer);
  });
}

export async function deactivateLicenseKey(db: Db, input: z.output<typeof LicenseKeyDeactivateInput>): Promise<void> {
  const organizationId = input.organization_id.toLowerCase();
  await db.transaction(async (tx) => {
    const found = await repo.findLicenseKeyByKey(tx, organizationId, input.key, true);
    if (!found) throw notFound(KEY_NOT_FOUND);
    if (!(await repo.deactivate(tx, found.key.id, input.activation_id.toLowerCase(), new Date()))) throw notFound(ACTIVATION_NOT_FOUND);
  });
}

// ---- rows for other domains (they read this domain through its service, never its repository) ----------

/** Inserts issued keys (benefits/service.ts, in the grant's transaction). */
export const insertLicenseKeys: typeof repo.insertLicenseKeys = (...args) => repo.insertLicenseKeys(...args);
/** Revokes the keys of revoked grants (benefits). */
export const revokeKeysOfGrants: typeof repo.revokeKeysOfGrants = (...args) => repo.revokeKeysOfGrants(...args);
