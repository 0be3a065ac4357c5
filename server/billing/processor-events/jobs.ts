// The processor events' job (recorded by the inbound endpoint): leases the due events, oldest first, and runs each
// one's handler; the handler's outcome is recorded by the lease holder only. A worker that dies while processing
// leaves its lease to expire and the event is processed again (handlers are safe to run twice). It runs where the
// worker has the server secret (the organizations' keys are sealed with it) and the payments' configuration.
import { leasedJob } from "../../tasks/lease-loop.js";
import type { JobSubscriber } from "../../tasks/job.js";
import * as processorEvents from "./service.js";

export const jobs = [
  leasedJob({
    name: "stripe-events",
    failure: "stripe: processing Stripe events failed",
    concurrency: () => 8,
    env: ({ db, log, secret, config }) =>
      secret && config.payments ? { db, log, secret, stripeApiUrl: config.payments.stripeApiUrl, baseURL: config.baseURL ?? "" } : undefined,
    claim: (c, lease) => processorEvents.claimDue(c.db, lease.limit, lease.leaseMs, lease.token),
    // one at a time, oldest first: events of one object apply in Stripe's order where they can
    async work(c, due, token, hand) {
      for (const row of due) {
        if (!hand.running()) break;
        const outcome = await processorEvents.processEvent(c, row, token);
        if (outcome && outcome !== "retry") hand.count();
        if (outcome === "failed" || outcome === "retry") {
          c.log.warn(`stripe: event ${row.id} (${row.type}) of organization ${row.organizationId} was not processed (${outcome})`);
        }
      }
    },
  }),
];

export const subscribers: JobSubscriber[] = [{ subscriber: () => processorEvents.outboxSubscriber, wakes: "stripe-events" }];
