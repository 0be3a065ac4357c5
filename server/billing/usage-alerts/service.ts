// Usage alerts (till's own API): a seller's thresholds on a meter, for every customer or one.
// Crossings are found at ingest time (check.ts). The alerts of an organization are cached in this process for
// a moment (ALERTS_TTL_MS), so a batch of an organization without alerts costs the check no query at all; a
// write here clears the cache at once, another replica's write is seen within the TTL.
//
// Functions taking `Db` open their own transaction; `Queryable` joins the caller's.
import type { Db, Queryable } from "../../db/client.js";
import { notFound, invalid } from "../errors.js";
import { findCustomerRow } from "../customers/service.js";
import { readyMeterIdsOfOrganization } from "../events/service.js";
import { getMeter, loadMeters } from "../meters/service.js";
import type { MeterWire } from "../meters/wire.js";
import * as repo from "./repository.js";
import { toUsageAlertWire, type UsageAlertCreateInput, type UsageAlertRow, type UsageAlertWire } from "./wire.js";

const NOT_FOUND = "Usage alert not found";
export const ALERTS_TTL_MS = 2000;

/**
 * What a check needs of the organization besides the batch: its alerts, their meters, which meters' rollups are
 * complete.
 */
export interface AlertContext {
  alerts: UsageAlertRow[];
  meters: Map<string, MeterWire>;
  ready: Set<string>;
  /** Some meter_credit benefit credits an alerted meter (else the credits are not read). */
  credits: boolean;
}

const cache = new Map<string, { at: number; context: AlertContext }>();

/** The organization's alerts and their meters (cached for ALERTS_TTL_MS; no more reads without alerts). */
export async function alertContext(db: Queryable, organizationId: string, now = Date.now()): Promise<AlertContext> {
  const hit = cache.get(organizationId);
  if (hit && now - hit.at < ALERTS_TTL_MS) return hit.context;
  const alerts = await repo.listAlerts(db, organizationId);
  const meterIds = [...new Set(alerts.map((a) => a.meterId))];
  const [meters, ready, credits] =
    alerts.length === 0
      ? [new Map<string, MeterWire>(), new Set<string>(), false]
      : await Promise.all([loadMeters(db, organizationId, meterIds), readyMeterIdsOfOrganization(db, organizationId), repo.hasMeterCredits(db, organizationId, meterIds)]);
  const context = { alerts, meters, ready, credits };
  if (cache.size > 10_000) cache.clear();
  cache.set(organizationId, { at: now, context });
  return context;
}

export async function createAlert(db: Db, organizationId: string, input: UsageAlertCreateInput): Promise<UsageAlertWire> {
  // the meter and the customer must be the organization's (another organization's id reads as not found)
  await getMeter(db, organizationId, input.meter_id).catch(() => {
    throw invalid(["body", "meter_id"], "Meter not found.");
  });
  if (input.customer_id) {
    await findCustomerRow(db, organizationId, { id: input.customer_id }).catch(() => {
      throw invalid(["body", "customer_id"], "Customer not found.");
    });
  }
  const row = await repo.insertAlert(db, {
    organizationId,
    meterId: input.meter_id.toLowerCase(),
    customerId: input.customer_id?.toLowerCase() ?? null,
    kind: input.kind,
    threshold: String(input.threshold),
    notifyCustomer: input.notify_customer,
  });
  cache.delete(organizationId);
  return toUsageAlertWire(row);
}

export async function getAlert(db: Queryable, organizationId: string, id: string): Promise<UsageAlertWire> {
  const row = await repo.findAlert(db, organizationId, id);
  if (!row) throw notFound(NOT_FOUND);
  return toUsageAlertWire(row);
}

export async function listAlerts(db: Queryable, organizationId: string, meterId?: string): Promise<UsageAlertWire[]> {
  return (await repo.listAlerts(db, organizationId, meterId?.toLowerCase())).map(toUsageAlertWire);
}

export async function deleteAlert(db: Queryable, organizationId: string, id: string): Promise<void> {
  if (!(await repo.deleteAlert(db, organizationId, id))) throw notFound(NOT_FOUND);
  cache.delete(organizationId);
}
