// The benefit deliveries' job: runs the deliveries due (GitHub invitations, Discord roles), up to
// deliveryConcurrency at once, each recorded by its lease holder; a stop lets the ones in hand finish within
// stopGraceMs, a crash leaves their leases to expire. It needs the server secret (the integrations' credentials
// are sealed with it) and the benefits' configuration.
import { leasedJob } from "../../tasks/lease-loop.js";
import type { JobSubscriber } from "../../tasks/job.js";
import * as deliveries from "./service.js";

export const jobs = [
  leasedJob({
    name: "benefit-delivery",
    failure: "benefits: claiming due deliveries failed",
    concurrency: (ctx) => ctx.opts.deliveryConcurrency,
    stopsWithWorker: true,
    env: (ctx) => {
      const { secret, config } = ctx;
      return secret && config.benefits ? { ...ctx, delivery: { secret, services: config.benefits } } : undefined;
    },
    claim: (c, lease) => deliveries.claimDue(c.db, lease.limit, lease.leaseMs, lease.token),
    async work(c, due, token, hand) {
      await Promise.all(
        due.map((delivery) =>
          deliveries.run(c.db, c.delivery, delivery, token).catch((err: unknown) => {
            if (!hand.killed()) c.log.error(err, `benefits: delivery ${delivery.id} could not be recorded`);
          }),
        ),
      );
    },
  }),
];

export const subscribers: JobSubscriber[] = [
  { subscriber: () => deliveries.outboxSubscriber, wakes: "benefit-delivery" },
];
