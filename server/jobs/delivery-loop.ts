// The worker's benefit-delivery loop (billing/benefit-delivery): runs the deliveries due (GitHub invitations,
// Discord roles), up to deliveryConcurrency at once, each recorded by its lease holder; a stop lets the ones in
// hand finish, a crash leaves their leases to expire.
import { randomUUID } from "node:crypto";
import type { Db } from "../db/client.js";
import * as deliveries from "../billing/benefit-delivery/service.js";
import { Signal, within, type WorkerState } from "./signal.js";

export interface DeliveryLoopDeps {
  db: Db;
  /** Without it (no secret or no benefits configuration) the loop never starts. */
  delivery: deliveries.DeliveryDeps | undefined;
  opts: { deliveryConcurrency: number; leaseMs: number; pollIntervalMs: number };
  log: { error(obj: unknown, msg?: string): void };
  state(): WorkerState;
}

export function createDeliveryLoop(c: DeliveryLoopDeps) {
  const signal = new Signal();
  let done: Promise<void> = Promise.resolve();

  async function loop(d: deliveries.DeliveryDeps): Promise<void> {
    const { db, opts, log } = c;
    while (c.state() === "running") {
      let claimed = 0;
      try {
        const token = randomUUID();
        const due = await deliveries.claimDue(db, opts.deliveryConcurrency, opts.leaseMs, token);
        claimed = due.length;
        await Promise.all(
          due.map((delivery) =>
            deliveries.run(db, d, delivery, token).catch((err: unknown) => {
              if (c.state() !== "dead") log.error(err, `benefits: delivery ${delivery.id} could not be recorded`);
            }),
          ),
        );
      } catch (err) {
        if (c.state() !== "running") break;
        log.error(err, "benefits: claiming due deliveries failed");
      }
      if (c.state() !== "running") break;
      if (claimed < opts.deliveryConcurrency) await signal.wait(opts.pollIntervalMs);
    }
  }

  return {
    wake: () => signal.fire(),
    start(): void {
      if (c.delivery) done = loop(c.delivery);
    },
    stop: (graceMs: number) => within(done, graceMs),
  };
}
