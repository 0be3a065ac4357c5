// Reservations: hold units of a meter's balance, then settle. A hold is taken under a lock of the (customer, meter)
// balance, after the balance is read again in that transaction (held units of others included), so N clients
// reserving at once never overdraw it; a commit takes the same lock. A commit records the units used as usage
// events in the same transaction as the reservation's new status (external ids `reservation:<id>`: a retried
// commit records nothing twice), so a crash between reserve and commit leaves a hold that expires, and one during
// the commit leaves nothing half done.
import type { Db, Queryable } from "../../db/client.js";
import { pipelinedTransaction, sendQuery } from "../../db/prepared.js";
import type { ScheduledPass } from "../../tasks/claim.js";
import { answer } from "../../../shared/entitlements.js";
import type { Aggregation, Filter } from "../../../shared/meter-filter.js";
import { nowAtOffset } from "../clock.js";
import { invalid } from "../errors.js";
import { isUuid } from "../http.js";
import { readUsageAhead, usageEventFlight } from "../events/usage-events.js";
import { checkAfterIngest } from "../usage-alerts/coalesce.js";
import { namedCustomers } from "../usage-alerts/check.js";
import { debitUsageAfterIngest } from "../wallets/service.js";
import { commitAhead, forgetHold, GENERIC_PLANS, rememberCommitReads, rememberHold } from "./commit-ahead.js";
import { reservationNotFound, reservationRefused, reservationSettled } from "./errors.js";
import { entitlementFacts, type CustomerFacts } from "./facts.js";
import * as repo from "./reservations-repository.js";
import { customerRefOf } from "./service.js";
import { commitEvents, usageEventFor } from "./usage-event.js";
import { toReservationWire, type ReservationCommitInput, type ReservationCreateInput, type ReservationWire } from "./wire.js";

const NOT_A_METER = "No live meter of this organization is this feature (by id or name): reservations hold a meter's units.";

/** The usage event a commit of `units` of the meter records, or the 422 saying why the meter takes none. */
function eventPlan(meter: { filter: unknown; aggregation: unknown }, units: number, at: Array<string | number>) {
  const plan = usageEventFor({ filter: meter.filter as Filter, aggregation: meter.aggregation as Aggregation }, units, Math.floor(Date.now() / 1000));
  if ("error" in plan) throw invalid(at, plan.error);
  return plan;
}

/**
 * A hold, in a pipelined transaction (two round trips, three the first time): BEGIN, the statement finding the meter
 * and the customer and taking the balance's lock, and the facts' statement behind it (so it reads under the lock:
 * every hold taken before is counted) with the read of the usage they measure (read ahead: the customer's last
 * total of that meter read in this process, else read once the facts say which); the INSERT with the COMMIT.
 */
export async function createReservation(db: Db, organizationId: string, input: ReservationCreateInput): Promise<ReservationWire> {
  const ref = customerRefOf(input);
  const byId = "id" in ref;
  const customerParam = byId ? (isUuid(ref.id) ? ref.id.toLowerCase() : null) : ref.externalId;
  // the facts of the meter the feature names by id, read in the first round trip (a name: once the id is known)
  const featureId = isUuid(input.feature) ? input.feature.toLowerCase() : null;
  const row = await pipelinedTransaction(db, async (ptx) => {
    const first = ptx.first(byId ? repo.HOLDER_BY_ID : repo.HOLDER_BY_EXTERNAL_ID, [organizationId, customerParam, input.feature]);
    const early = featureId && customerParam ? entitlementFacts(ptx.db, organizationId, ref, featureId) : null;
    // the usage the facts will ask for, sent with them (the customer's last read total of this meter, with its
    // stamp: taken when the facts' stamp is the same, so the hold saves the round trip after the facts)
    if (early && byId && customerParam && featureId) readUsageAhead(ptx.db, organizationId, customerParam, featureId);
    // both settled before anything else: the facts' read of the usage follows their first statement
    const [rows, facts] = await Promise.allSettled([first, early]);
    if (rows.status === "rejected") throw rows.reason;
    const holder = repo.holderOf(rows.value);
    if (!holder) throw invalid(["body", "feature"], NOT_A_METER);
    eventPlan(holder, input.units, ["body", "feature"]);
    const refused = (f: CustomerFacts | null) => reservationRefused(answer(f?.facts ?? null, holder.meterId, input.units), input.units);
    if (!holder.customerId) throw refused(null);
    if (facts.status === "rejected") throw facts.reason;
    let found = facts.value;
    // read again by what the lock names: the feature was a name, or the external id moved to another customer
    if (!found || found.customerId !== holder.customerId || holder.meterId !== featureId) {
      found = await entitlementFacts(ptx.db, organizationId, { id: holder.customerId }, holder.meterId);
    }
    const verdict = answer(found?.facts ?? null, holder.meterId, input.units);
    if (!found || !verdict.allowed) throw refused(found);
    const now = new Date();
    const values = { organizationId, customerId: holder.customerId, meterId: holder.meterId, units: input.units, metadata: input.metadata ?? {}, createdAt: now };
    const [inserted] = await ptx.last(repo.INSERT_HOLD, repo.insertHoldParams({ ...values, expiresAt: new Date(now.getTime() + input.expires_in * 1000) }));
    const hold = repo.reservationOf(inserted!);
    // what its commit can be sent ahead with (commit-ahead.ts)
    const definition = { filter: holder.filter as unknown as Filter, aggregation: holder.aggregation as unknown as Aggregation };
    rememberHold(hold.id, { organizationId, customerId: holder.customerId, meterId: holder.meterId, units: input.units, ...definition });
    return hold;
  }, GENERIC_PLANS);
  return toReservationWire(row);
}

export async function getReservation(db: Queryable, organizationId: string, id: string): Promise<ReservationWire> {
  const row = await repo.findReservation(db, organizationId, id);
  if (!row) throw reservationNotFound();
  return toReservationWire(row);
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

/**
 * A commit, sent ahead in one round trip when it can be (commit-ahead.ts), else in a pipelined transaction (two
 * round trips): BEGIN, the reservation locked with the balance's lock,
 * its meter and the clock, and the events' ingest lock and kept meters; then the usage events' INSERT, the
 * settlement and the COMMIT. The held units become used ones under the balance's lock: a hold reading the balance
 * meanwhile (the held units, then the usage) would otherwise count them twice and refuse units that are there.
 */
export async function commitReservation(db: Db, organizationId: string, id: string, input: ReservationCommitInput, log: UsageLog): Promise<ReservationWire> {
  const flight = usageEventFlight(organizationId);
  // in one round trip when this process took the hold (commit-ahead.ts); else, or when that found the hold changed
  const ahead = await commitAhead(db, organizationId, id, input.units, flight);
  const { row, recorded } = ahead ?? (await pipelinedTransaction(db, async (ptx) => {
    const first = ptx.first(repo.LOCK_FOR_COMMIT, [organizationId, id]);
    const ahead = Promise.all([sendQuery(ptx.db, flight.lock), sendQuery(ptx.db, flight.meters)]);
    const [locked, kept] = await Promise.allSettled([first, ahead]);
    if (locked.status === "rejected") throw locked.reason;
    if (kept.status === "rejected") throw kept.reason;
    const raw = locked.value[0];
    rememberCommitReads(organizationId, raw, kept.value[1]);
    if (!raw) throw reservationNotFound();
    const hold = repo.reservationOf(raw);
    // a retry of the commit made: answered as it was, nothing recorded again
    if (hold.status === "committed" && hold.usedUnits === input.units) {
      await ptx.last("SELECT 1", []);
      return { row: hold, recorded: 0 };
    }
    const status = toReservationWire(hold).status;
    if (status !== "held") throw reservationSettled(status);
    if (input.units > hold.units) throw invalid(["body", "units"], `A commit uses at most the units held (${hold.units}); reserve more first.`);
    const settlement = repo.settleParams(organizationId, id, { status: "committed", usedUnits: input.units, settledAt: new Date() });
    if (input.units === 0) return { row: repo.reservationOf((await ptx.last(repo.SETTLE, settlement))[0]!), recorded: 0 };
    if (raw.filter === null || raw.filter === undefined) throw invalid(["path", "id"], "This reservation's meter was archived: record the usage as an event.");
    const plan = eventPlan({ filter: JSON.parse(String(raw.filter)), aggregation: JSON.parse(String(raw.aggregation)) }, input.units, ["body", "units"]);
    const timestamp = nowAtOffset(raw.offset_ms === null || raw.offset_ms === undefined ? null : Number(raw.offset_ms));
    const events = commitEvents(plan, hold.customerId, id, timestamp);
    // sent together: the INSERT, the settlement behind it, the COMMIT (a failed INSERT makes it a ROLLBACK)
    const [inserted, settled] = await Promise.allSettled([sendQuery(ptx.db, flight.insert(events, kept.value[1])), ptx.last(repo.SETTLE, settlement)]);
    if (inserted.status === "rejected") throw inserted.reason;
    if (settled.status === "rejected") throw settled.reason;
    return { row: repo.reservationOf(settled.value[0]!), recorded: flight.inserted(inserted.value) };
  }, GENERIC_PLANS));
  forgetHold(id);
  if (recorded > 0) await afterUsage(db, organizationId, row.customerId, log);
  return toReservationWire(row);
}

export async function releaseReservation(db: Db, organizationId: string, id: string): Promise<ReservationWire> {
  forgetHold(id);
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
