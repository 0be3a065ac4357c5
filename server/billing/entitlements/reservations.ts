// Reservations: hold units of a meter's balance, then settle. A hold is taken under a lock of the (customer, meter)
// balance, after the balance is read again in that transaction (held units of others included), so N clients
// reserving at once never overdraw it; a commit takes the same lock. A commit records the units used as usage
// events in the same transaction as the reservation's new status (external ids `reservation:<id>`: a retried
// commit records nothing twice), so a crash between reserve and commit leaves a hold that expires, and one during
// the commit leaves nothing half done.
import type { Db, Queryable } from "../../db/client.js";
import type { ScheduledPass } from "../../tasks/claim.js";
import { answer } from "../../../shared/entitlements.js";
import type { CustomerRef } from "../customers/service.js";
import { orgNow } from "../clock.js";
import { invalid } from "../errors.js";
import { isUuid } from "../http.js";
import { recordUsageEvents } from "../events/service.js";
import { liveMeterNamed } from "../meters/service.js";
import { meterDefinition } from "../meters/wire.js";
import { checkAfterIngest } from "../usage-alerts/coalesce.js";
import { namedCustomers } from "../usage-alerts/check.js";
import { debitUsageAfterIngest } from "../wallets/service.js";
import { reservationNotFound, reservationRefused, reservationSettled } from "./errors.js";
import { entitlementFacts, liveCustomer } from "./facts.js";
import * as repo from "./reservations-repository.js";
import { customerRefOf } from "./service.js";
import { usageEventFor } from "./usage-event.js";
import { toReservationWire, type ReservationCommitInput, type ReservationCreateInput, type ReservationWire } from "./wire.js";

const NOT_A_METER = "No live meter of this organization is this feature (by id or name): reservations hold a meter's units.";

async function meterOf(db: Queryable, organizationId: string, feature: string, units: number) {
  const meter = await liveMeterNamed(db, organizationId, feature);
  if (!meter) throw invalid(["body", "feature"], NOT_A_METER);
  const plan = usageEventFor(meterDefinition(meter), units, Math.floor(Date.now() / 1000));
  if ("error" in plan) throw invalid(["body", "feature"], plan.error);
  return meter;
}

export async function createReservation(db: Db, organizationId: string, input: ReservationCreateInput): Promise<ReservationWire> {
  const meter = await meterOf(db, organizationId, input.feature, input.units);
  const row = await db.transaction(async (tx) => {
    // by id: the lock is the id's (a customer's id is its lower-case uuid), and the facts say whether it is live
    const customerId = await holderId(tx, organizationId, customerRefOf(input));
    if (!customerId) throw reservationRefused(answer(null, meter.id, input.units), input.units);
    // read under the lock (the facts' statement is sent behind the lock's, and runs after it): every hold taken
    // before it is counted
    const [, found] = await Promise.all([repo.lockBalance(tx, customerId, meter.id), entitlementFacts(tx, organizationId, { id: customerId }, meter.id)]);
    const verdict = answer(found?.facts ?? null, meter.id, input.units);
    if (!found || !verdict.allowed) throw reservationRefused(verdict, input.units);
    const now = new Date();
    return repo.insertReservation(tx, {
      organizationId,
      customerId: found.customerId,
      meterId: meter.id,
      units: input.units,
      status: "held",
      expiresAt: new Date(now.getTime() + input.expires_in * 1000),
      metadata: input.metadata ?? {},
      createdAt: now,
    });
  });
  return toReservationWire(row);
}

export async function getReservation(db: Queryable, organizationId: string, id: string): Promise<ReservationWire> {
  const row = await repo.findReservation(db, organizationId, id);
  if (!row) throw reservationNotFound();
  return toReservationWire(row);
}

/** The customer a hold is for: an id as given (no read: the facts read under the lock find it live or not). */
async function holderId(tx: Queryable, organizationId: string, ref: CustomerRef): Promise<string | null> {
  if ("id" in ref) return isUuid(ref.id) ? ref.id.toLowerCase() : null;
  return (await liveCustomer(tx, organizationId, ref))?.id ?? null;
}

/** The reservation locked for its settlement; an open hold, or a settlement repeating the one made (a retry). */
async function openHold(tx: Queryable, organizationId: string, id: string, repeats: (row: repo.ReservationRow) => boolean) {
  const row = await repo.findReservation(tx, organizationId, id, true);
  if (!row) throw reservationNotFound();
  if (repeats(row)) return { row, done: true };
  const status = toReservationWire(row).status;
  if (status !== "held") throw reservationSettled(status);
  return { row, done: false };
}

/** Where the usage follow-ups (alerts, wallets) report a failure: the request's log. */
export interface UsageLog {
  error(err: unknown, msg: string): void;
}

export async function commitReservation(db: Db, organizationId: string, id: string, input: ReservationCommitInput, log: UsageLog): Promise<ReservationWire> {
  const { row, recorded } = await db.transaction(async (tx) => {
    const hold = await openHold(tx, organizationId, id, (r) => r.status === "committed" && r.usedUnits === input.units);
    if (hold.done) return { row: hold.row, recorded: 0 };
    if (input.units > hold.row.units) throw invalid(["body", "units"], `A commit uses at most the units held (${hold.row.units}); reserve more first.`);
    // the held units become used ones under the balance's lock: a hold reading the balance meanwhile (the held
    // units, then the usage) would otherwise count them twice and refuse units that are there
    // the meter and the clock read in the same round trip as the lock (sent behind it)
    const used = input.units > 0;
    const [, meter, timestamp] = await Promise.all([
      repo.lockBalance(tx, hold.row.customerId, hold.row.meterId),
      used ? liveMeterNamed(tx, organizationId, hold.row.meterId) : undefined,
      used ? orgNow(tx, organizationId) : undefined,
    ]);
    let recorded = 0;
    if (used && timestamp) {
      if (!meter) throw invalid(["path", "id"], "This reservation's meter was archived: record the usage as an event.");
      const plan = usageEventFor(meterDefinition(meter), input.units, Math.floor(Date.now() / 1000));
      if ("error" in plan) throw invalid(["body", "units"], plan.error);
      const events = Array.from({ length: plan.count }, (_, n) => ({
        ...plan.event,
        customerId: hold.row.customerId,
        timestamp,
        externalId: plan.count === 1 ? `reservation:${id}` : `reservation:${id}:${n + 1}`,
      }));
      recorded = await recordUsageEvents(tx, organizationId, events);
    }
    const settled = await repo.settleReservation(tx, organizationId, id, { status: "committed", usedUnits: input.units, settledAt: new Date() });
    return { row: settled, recorded };
  });
  if (recorded > 0) await afterUsage(db, organizationId, row.customerId, log);
  return toReservationWire(row);
}

export async function releaseReservation(db: Db, organizationId: string, id: string): Promise<ReservationWire> {
  const row = await db.transaction(async (tx) => {
    const hold = await openHold(tx, organizationId, id, (r) => r.status === "released");
    if (hold.done) return hold.row;
    return repo.settleReservation(tx, organizationId, id, { status: "released", usedUnits: null, settledAt: new Date() });
  });
  return toReservationWire(row);
}

/** What an ingest does after storing a batch: usage alerts found, a wallet's usage debited (no query without). */
async function afterUsage(db: Db, organizationId: string, customerId: string, log: UsageLog): Promise<void> {
  const named = namedCustomers();
  named.ids.add(customerId.toLowerCase());
  named.events.push({ customer: `i:${customerId.toLowerCase()}`, metadata: undefined });
  // independent of each other (a wallet's debit, the alerts' thresholds): side by side, one wait instead of two
  await Promise.all([
    debitUsageAfterIngest(db, organizationId, named, (err) => log.error(err, "wallets: debiting usage failed")),
    checkAfterIngest(db, organizationId, named, (err) => log.error(err, "usage alerts: the check failed")),
  ]);
}

/** The schedule's pass: holds past their expiry are marked expired (they stopped counting at expiry already). */
export async function expireReservations(pass: ScheduledPass): Promise<number> {
  let total = 0;
  for (;;) {
    const n = await repo.expireHolds(pass.db, pass.now ?? new Date(), pass.batch ?? 500);
    total += n;
    if (n < (pass.batch ?? 500)) return total;
  }
}
