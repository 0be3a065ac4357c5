// The webhook worker's steps: fan an outbox event out to the endpoints that want it, claim due events, and record
// each attempt with its retry schedule — disabling endpoints that are gone (410) or keep failing, and the mail
// that tells their owners.
import { randomUUID } from "node:crypto";
import type { Db, Queryable } from "../../db/client.js";
import { getCustomerState } from "../customer-state/state.js";
import { originOf } from "./address.js";
import { formatBody } from "./format.js";
import { ownerEmails } from "../organizations/service.js";
import * as repo from "./repository.js";
import type { AttemptResult } from "./sender.js";
import type { ClaimedEvent } from "./wire.js";

/**
 * Delays before attempts 2…10 (seconds): ten attempts over about 2.9 days. Each is stretched or shrunk by up to
 * 10% so that events that failed together do not all come back in the same second.
 */
export const RETRY_DELAYS_S = [15, 120, 600, 3_600, 3 * 3_600, 6 * 3_600, 12 * 3_600, 18 * 3_600, 30 * 3_600] as const;
export const MAX_ATTEMPTS = RETRY_DELAYS_S.length + 1;

/** When attempt `attempt + 1` is due after attempt `attempt` failed, or null when none is left. */
export function nextAttemptAt(attempt: number, now: Date, random: () => number = Math.random): Date | null {
  const base = RETRY_DELAYS_S[attempt - 1];
  if (base === undefined) return null;
  return new Date(now.getTime() + base * 1000 * (0.9 + 0.2 * random()));
}

/**
 * Another consumer of the outbox (customer emails): called with the events being processed, in the transaction
 * that marks them processed, so what it records exists exactly when the events count as handled.
 */
export type OutboxSubscriber = (tx: Queryable, rows: repo.OutboxRow[]) => Promise<void>;

/**
 * Moves up to `limit` outbox events into webhook events, one per enabled endpoint of the organization that
 * subscribes to the type, in one transaction: an outbox row is marked processed exactly when its events exist.
 * With `lease`, up to `lease.room` of the new events are leased to `lease.token` at once and returned, so the
 * worker attempts them without claiming them first.
 */
export async function fanOut(
  db: Db,
  limit: number,
  lease?: { room: number; leaseMs: number; token: string },
  subscribers: OutboxSubscriber[] = [],
): Promise<{ moved: number; claimed: ClaimedEvent[] }> {
  return db.transaction(async (tx) => {
    const taken = await repo.takeDueOutbox(tx, limit);
    if (taken.length === 0) return { moved: 0, claimed: [] };
    const due = await materialize(tx, taken);
    for (const subscriber of subscribers) await subscriber(tx, due);
    const endpoints = await repo.enabledEndpointsOf(tx, [...new Set(due.map((o) => o.organizationId))]);
    const now = new Date();
    const leased: Array<ClaimedEvent> = [];
    const rows = due
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime())
      .flatMap((o) =>
        endpoints
          .filter((e) => e.organizationId === o.organizationId && e.events.includes(o.type))
          .map((e) => {
            const row = {
              id: randomUUID(),
              organizationId: o.organizationId,
              endpointId: e.id,
              outboxId: o.id,
              type: o.type,
              payload: formatBody(e.format, { type: o.type, timestamp: o.createdAt.toISOString(), data: o.payload }),
              nextAttemptAt: now,
              createdAt: now,
            };
            if (!lease || leased.length >= lease.room) return row;
            leased.push({
              id: row.id,
              organizationId: row.organizationId,
              endpointId: e.id,
              type: row.type,
              payload: row.payload,
              attempts: 0,
              url: e.url,
              secret: e.secret,
              enabled: true,
              failedEventsInRow: e.failedEventsInRow,
            });
            return { ...row, lockedUntil: repo.leaseUntil(lease.leaseMs), lockedBy: lease.token };
          }),
      );
    const inserted = await repo.insertEvents(tx, rows);
    return { moved: due.length, claimed: leased.filter((e) => inserted.has(e.id)) };
  });
}

/**
 * Computes the payloads recorded by reference (`customer.state_changed` holds the customer's id; the state is
 * read now, after its cause committed) and stores them on the outbox rows, so every reader of the outbox sees
 * the same payload. An event whose customer is gone is dropped (marked processed, sent nowhere).
 */
async function materialize(tx: Queryable, rows: repo.OutboxRow[]): Promise<repo.OutboxRow[]> {
  const out: repo.OutboxRow[] = [];
  for (const row of rows) {
    if (row.type !== "customer.state_changed" || "email" in row.payload) {
      out.push(row);
      continue;
    }
    const id = row.payload.id;
    const state = typeof id === "string" ? await getCustomerState(tx, row.organizationId, { id }).catch(() => null) : null;
    if (!state || state.deleted_at) continue;
    const payload = JSON.parse(JSON.stringify(state)) as Record<string, unknown>;
    await repo.setOutboxPayload(tx, row.id, payload);
    out.push({ ...row, payload });
  }
  return out;
}

export const claimDueEvents = (db: Db, limit: number, leaseMs: number, token: string) =>
  repo.claimDueEvents(db, limit, leaseMs, token);

export const releaseEvents = (db: Db, token: string, ids: string[]) => repo.releaseEvents(db, token, ids);

/** One finished claim: an attempt made, or an event dropped because its endpoint is disabled. */
export type ClaimOutcome =
  | { kind: "attempt"; event: ClaimedEvent; token: string; result: AttemptResult }
  | { kind: "skipped"; event: ClaimedEvent; token: string };

export interface DisabledEndpoint {
  id: string;
  organizationId: string;
  url: string;
  reason: "gone" | "failing";
}

/**
 * Records a batch of outcomes in one transaction: the delivery log rows, each event's next attempt (or its end),
 * and the endpoints' failure counts. Only the lease holder writes an event's state; an attempt whose lease
 * expired meanwhile is still logged. An event deleted meanwhile (with its endpoint) fails the batch: the worker
 * then records outcome by outcome. Returns the endpoints this disabled.
 */
export async function recordOutcomes(
  db: Db,
  outcomes: ClaimOutcome[],
  opts: { disableAfterFailedEvents: number; random?: () => number },
): Promise<DisabledEndpoint[]> {
  const attempts = outcomes.flatMap((o) => (o.kind === "attempt" ? [o] : []));
  const now = new Date();
  return db.transaction(async (tx) => {
    await repo.insertDeliveries(
      tx,
      attempts.map(({ event, result }) => ({
        organizationId: event.organizationId,
        endpointId: event.endpointId,
        eventId: event.id,
        attempt: event.attempts + 1,
        succeeded: result.succeeded,
        httpCode: result.httpCode,
        response: result.response,
        error: result.error,
        durationMs: result.durationMs,
        createdAt: result.startedAt,
      })),
    );
    const skippedByToken = new Map<string, string[]>();
    for (const o of outcomes) if (o.kind === "skipped") skippedByToken.set(o.token, [...(skippedByToken.get(o.token) ?? []), o.event.id]);
    for (const [token, ids] of skippedByToken) await repo.markSkipped(tx, token, ids);
    await repo.finishEvents(
      tx,
      attempts.map(({ event, token, result }) => {
        const attempt = event.attempts + 1;
        const gone = result.httpCode === 410;
        return {
          id: event.id,
          token,
          attempts: attempt,
          succeeded: result.succeeded,
          httpCode: result.httpCode,
          nextAttemptAt: result.succeeded || gone ? null : nextAttemptAt(attempt, now, opts.random),
        };
      }),
    );

    // per endpoint, in the order the attempts started: a success restarts the count of failed events
    type Tally = { reset: boolean; failed: number; gone: boolean; counted: number; url: string; organizationId: string };
    const perEndpoint = new Map<string, Tally>();
    for (const { event, result } of [...attempts].sort((a, b) => a.result.startedAt.getTime() - b.result.startedAt.getTime())) {
      const t = perEndpoint.get(event.endpointId) ?? {
        reset: false,
        failed: 0,
        gone: false,
        counted: event.failedEventsInRow,
        url: event.url,
        organizationId: event.organizationId,
      };
      if (result.succeeded) Object.assign(t, { reset: true, failed: 0 });
      else if (result.httpCode === 410) t.gone = true;
      else if (event.attempts + 1 >= MAX_ATTEMPTS) t.failed += 1;
      perEndpoint.set(event.endpointId, t);
    }
    const disabled: DisabledEndpoint[] = [];
    for (const [endpointId, t] of perEndpoint) {
      let reason: DisabledEndpoint["reason"] | null = t.gone ? "gone" : null;
      // a healthy endpoint's row is not written on every success (replicas would queue on its lock)
      if (t.failed > 0 || (t.reset && t.counted > 0)) {
        const counted = await repo.countFailedEvents(tx, endpointId, t.reset, t.failed);
        if (!reason && counted?.enabled && counted.failedEventsInRow >= opts.disableAfterFailedEvents) reason = "failing";
      }
      if (reason && (await repo.disableEndpoint(tx, endpointId, reason))) {
        await repo.skipPendingEvents(tx, endpointId);
        disabled.push({ id: endpointId, organizationId: t.organizationId, url: t.url, reason });
      }
    }
    return disabled;
  });
}

export const eventExists = (db: Db, id: string) => repo.eventExists(db, id);

/** The mail telling an organization's owners that till disabled one of their endpoints. */
export async function disabledEndpointMail(db: Db, d: DisabledEndpoint, disableAfterFailedEvents: number) {
  const orgName = await repo.organizationName(db, d.organizationId);
  const emails = await ownerEmails(db, d.organizationId);
  const why =
    d.reason === "gone"
      ? "it answered 410 Gone, which asks senders to stop."
      : `${disableAfterFailedEvents} events in a row could not be delivered to it after ${MAX_ATTEMPTS} attempts each.`;
  return {
    to: emails,
    // the subject travels further than the body (mail logs, the dev mailbox's log line): origin only
    subject: `Webhook endpoint disabled: ${originOf(d.url)}`,
    text: [
      `The webhook endpoint ${d.url} of ${orgName} (id ${d.id}) was disabled because ${why}`,
      "",
      "Events are no longer sent to it. Once it works again, enable it with",
      `PATCH /v1/webhooks/endpoints/${d.id} {"enabled": true}, and redeliver the events it missed`,
      "with POST /v1/webhooks/events/{id}/redeliver.",
    ].join("\n"),
  };
}
