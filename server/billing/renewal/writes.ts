// A billing run's deferred renewals (server/jobs/schedules.ts). Most renewals of a batch change only their own
// rows: the subscription's new terms, the order and its items, the charge attempt, a dunning start after a
// declined charge, and the touch of their grants. Such a renewal computes them without writing (no savepoint:
// nothing to roll back), and the batch writes all of them at its end, one statement per table — instead of a
// savepoint and five or six statements per renewal. The rest (a subscription ending, a balance to use or
// credit, carried prorations, meter credits to cycle, no payment method on file) take the savepoint path as
// before. If the batch's statements fail, each deferred renewal's rows are written again in a savepoint of
// its own, so one bad row fails one renewal, as before (docs/decisions.md, "The billing run").
import type { Queryable } from "../../db/client.js";
import { customerStateChanged, type OutboxEvent } from "../../db/outbox.js";
import { cycleGrants, cycleGrantsOf } from "../benefits/service.js";
import { toBenefitGrantWire } from "../benefits/wire.js";
import { insertDunnings } from "../dunning/service.js";
import { insertUnnumberedOrders } from "../orders/service.js";
import type { OrderItemRow, OrderRow } from "../orders/wire.js";
import { insertPayments, type NewPayment } from "../payments/service.js";
import type { orderDunning } from "../../db/schema/index.js";
import type { RenewalBatch, RenewalOutput } from "./batch.js";
import type { SubscriptionRow } from "../subscriptions/wire.js";
import { writeRenewedTerms } from "../subscriptions/service.js";

/** Thrown by a deferred renewal, before it charges anything, when it must take the savepoint path. */
export class NeedsSavepoint extends Error {
  constructor() {
    super("this renewal writes rows that name its order: renewed in a savepoint");
  }
}

/** The rows a deferred renewal leaves for the batch's statements. */
export interface DeferredWrites {
  /** The subscription as updateSubscription would have written it. */
  terms: SubscriptionRow;
  order: { row: OrderRow; items: OrderItemRow[] };
  payments: Array<NewPayment & { id: string }>;
  dunning: Array<typeof orderDunning.$inferInsert>;
  /** Its grants are cycled at `now`; their benefit_grant.cycled events go in at index `at` of its events. */
  cycle: { at: number; now: Date } | null;
}

/**
 * benefit_grant.cycled of each grant a renewal touched (cycleGrants), and customer.state_changed of each seat holder
 * among them: its credits cycled with the team's renewal (the buyer's own state change is the renewal's).
 */
export function cycledEvents(organizationId: string, rows: Awaited<ReturnType<typeof cycleGrants>>): OutboxEvent[] {
  const cycled: OutboxEvent[] = rows.map((r) => ({ type: "benefit_grant.cycled", organizationId, data: toBenefitGrantWire(r.grant, r.benefit, r.customer, r.member) }));
  const holders = new Set(rows.filter((r) => r.grant.customerSeatId !== null).map((r) => r.customer.id));
  return [...cycled, ...[...holders].map((id) => customerStateChanged(organizationId, id))];
}

/** A renewal of a batch; `deferred`: it writes nothing itself (canDefer said so), its rows go with the batch's. */
export interface Batched {
  batch: RenewalBatch;
  out: RenewalOutput;
  deferred?: boolean;
}

/** Whether the renewal of `sub` can be deferred: it will write only its own rows (see the module's note). */
export function canDefer(batch: RenewalBatch, sub: SubscriptionRow): boolean {
  return (
    !sub.cancelAtPeriodEnd &&
    batch.embeds.has(sub.id) &&
    batch.summaries.has(sub.productId) &&
    batch.prorations.get(sub.id)?.length === 0 &&
    batch.creditGrants.get(sub.id)?.length === 0 &&
    batch.methods.has(sub.customerId) &&
    !batch.moved.has(sub.customerId) &&
    (batch.balances.get(`${sub.customerId}:${sub.currency.toLowerCase()}`) ?? 0) <= 0
  );
}

/**
 * Writes the deferred renewals' rows (one statement per table for all of them) and puts their grants' cycled
 * events in place. Answers the outputs to keep: a renewal whose rows could not be written, even alone, is
 * dropped (its order is not numbered, its events not recorded) and reported to `failed`.
 */
export async function writeDeferred(tx: Queryable, outputs: RenewalOutput[], failed: (out: RenewalOutput, err: unknown) => void): Promise<RenewalOutput[]> {
  const deferred = outputs.filter((o) => o.deferred);
  if (deferred.length === 0) return outputs;
  const placeAll = (cycled: Map<RenewalOutput, OutboxEvent[]>) => {
    for (const [out, events] of cycled) if (out.deferred?.cycle) out.events.splice(out.deferred.cycle.at, 0, ...events);
  };
  try {
    placeAll(await tx.transaction((sp) => writeRows(sp, deferred)));
    return outputs;
  } catch {
    // one renewal's rows broke the batch's statements: each renewal's again, in a savepoint of its own
    const dropped = new Set<RenewalOutput>();
    for (const out of deferred) {
      try {
        placeAll(await tx.transaction((sp) => writeRows(sp, [out])));
      } catch (err) {
        dropped.add(out);
        failed(out, err);
      }
    }
    return outputs.filter((o) => !dropped.has(o));
  }
}

/** The rows of `outs`, a statement per table (pipelined, parents first); their grants' cycled events. */
async function writeRows(tx: Queryable, outs: RenewalOutput[]): Promise<Map<RenewalOutput, OutboxEvent[]>> {
  const rows = outs.flatMap((o) => (o.deferred ? [o.deferred] : []));
  await Promise.all([
    writeRenewedTerms(tx, rows.map((w) => w.terms)),
    insertUnnumberedOrders(tx, rows.map((w) => w.order)),
    insertPayments(tx, rows.flatMap((w) => w.payments)),
    insertDunnings(tx, rows.flatMap((w) => w.dunning)),
  ]);
  // the grants: one statement per organization and its now (all of a batch's renewals of one organization share it)
  const groups = new Map<string, { organizationId: string; now: Date; outs: RenewalOutput[] }>();
  for (const out of outs) {
    const w = out.deferred;
    if (!w?.cycle) continue;
    const key = `${w.terms.organizationId}:${w.cycle.now.getTime()}`;
    const group = groups.get(key) ?? { organizationId: w.terms.organizationId, now: w.cycle.now, outs: [] };
    group.outs.push(out);
    groups.set(key, group);
  }
  const cycled = new Map<RenewalOutput, OutboxEvent[]>();
  for (const { organizationId, now, outs: group } of groups.values()) {
    const grants = await cycleGrantsOf(tx, organizationId, group.map((o) => o.deferred?.terms.id ?? ""), now);
    for (const out of group) {
      const of = grants.get(out.deferred?.terms.id ?? "") ?? [];
      cycled.set(out, cycledEvents(organizationId, of));
    }
  }
  return cycled;
}
