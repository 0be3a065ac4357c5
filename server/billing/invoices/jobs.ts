// The invoices' job: leases the pending invoices and credit notes, renders each PDF, stores it with the files and
// records it. A document is recorded only once stored; a worker that dies in between leaves its lease to expire
// and the document is made again (same path: the same version's bytes). It runs where the worker has a data
// directory (the files' storage).
import path from "node:path";
import { leasedJob } from "../../tasks/lease-loop.js";
import type { JobSubscriber } from "../../tasks/job.js";
import { localFileStorage } from "../files/storage.js";
import * as invoices from "./service.js";

export const jobs = [
  leasedJob({
    name: "invoices",
    counter: "invoiced",
    failure: "invoices: claiming due documents failed",
    // rendering is CPU work in this process: keep it small
    concurrency: (ctx) => ctx.opts.invoiceConcurrency,
    env: (ctx) => {
      const { dataDir } = ctx.config;
      return dataDir ? { ...ctx, storage: localFileStorage(path.join(dataDir, "files")) } : undefined;
    },
    claim: (c, lease) => invoices.claimDue(c.db, lease.limit, lease.leaseMs, lease.token),
    async work(c, due, token, hand) {
      await Promise.all(
        due.map(async (row) => {
          try {
            if (await invoices.generateDocument(c.db, c.storage, row, token)) hand.count();
          } catch (err) {
            if (hand.running()) c.log.warn(`invoices: could not make ${row.kind} ${row.number} (${row.id}): ${String(err)}`);
          }
        }),
      );
    },
  }),
];

export const subscribers: JobSubscriber[] = [{ subscriber: () => invoices.outboxSubscriber, wakes: "invoices" }];
