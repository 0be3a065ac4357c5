// Alert checks of one organization coalesced: while a check runs, the customers of the batches that finish
// meanwhile wait together for one next check (which measures after their batches committed), so concurrent
// ingest requests share checks instead of each measuring the same customers. Each request still answers only
// once a check that saw its batch is done; a failed check is logged and does not fail the ingest (the batch is
// stored, and the customer's next batch measures the same totals).
import type { Db } from "../../db/client.js";
import { checkUsageAlerts, namedCustomers, type NamedCustomers } from "./check.js";

interface Flight {
  running: Promise<number>;
  queued?: { named: NamedCustomers; done: Promise<number> };
}

const flights = new Map<string, Flight>();

function start(db: Db, organizationId: string, named: NamedCustomers, onError: (err: unknown) => void): Promise<number> {
  const flight: Flight = { running: Promise.resolve(0) };
  flight.running = checkUsageAlerts(db, organizationId, named)
    .catch((err: unknown) => {
      onError(err);
      return 0;
    })
    .finally(() => {
      if (flights.get(organizationId) === flight && !flight.queued) flights.delete(organizationId);
    });
  flights.set(organizationId, flight);
  return flight.running;
}

/** Checks the alerts of the customers a stored batch named, sharing a check with batches finishing meanwhile. */
export function checkAfterIngest(db: Db, organizationId: string, named: NamedCustomers, onError: (err: unknown) => void): Promise<number> {
  if (named.ids.size === 0 && named.externalIds.size === 0) return Promise.resolve(0);
  const flight = flights.get(organizationId);
  if (!flight) return start(db, organizationId, named, onError);
  if (!flight.queued) {
    const queued = { named: namedCustomers(), done: Promise.resolve(0) };
    queued.done = flight.running.then(() => {
      flight.queued = undefined;
      return start(db, organizationId, queued.named, onError);
    });
    flight.queued = queued;
  }
  for (const id of named.ids) flight.queued.named.ids.add(id);
  for (const id of named.externalIds) flight.queued.named.externalIds.add(id);
  for (const e of named.events) flight.queued.named.events.push(e);
  return flight.queued.done;
}
