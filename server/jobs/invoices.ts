// The worker's invoice loop (billing/invoices): leases the pending invoices and credit notes, renders each PDF,
// stores it with the files and records it. A document is recorded only once stored; a worker that dies in
// between leaves its lease to expire and the document is made again (same path: the same version's bytes).
import type { Db } from "../db/client.js";
import type { FileStorage } from "../billing/files/storage.js";
import * as invoices from "../billing/invoices/service.js";
import { createLeaseLoop, type LeaseLoop } from "./lease-loop.js";

export interface InvoiceLoopDeps {
  db: Db;
  storage: FileStorage;
  log: { error(obj: unknown, msg?: string): void; warn(msg: string): void };
  /** Documents made at once (rendering is CPU work in this process: keep it small). */
  concurrency: number;
  leaseMs: number;
  pollIntervalMs: number;
}

export interface InvoiceLoop extends LeaseLoop {
  /** Documents this loop made and recorded. */
  readonly generated: number;
}

export function createInvoiceLoop(deps: InvoiceLoopDeps): InvoiceLoop {
  let generated = 0;
  const loop = createLeaseLoop({
    ...deps,
    failure: "invoices: claiming due documents failed",
    claim: (token) => invoices.claimDue(deps.db, deps.concurrency, deps.leaseMs, token),
    async work(due, token, running) {
      await Promise.all(
        due.map(async (row) => {
          try {
            if (await invoices.generateDocument(deps.db, deps.storage, row, token)) generated += 1;
          } catch (err) {
            if (running()) deps.log.warn(`invoices: could not make ${row.kind} ${row.number} (${row.id}): ${String(err)}`);
          }
        }),
      );
    },
  });
  return {
    ...loop,
    get generated() {
      return generated;
    },
  };
}
