// The worker's invoice loop (billing/invoices): leases the pending invoices and credit notes, renders each PDF,
// stores it with the files and records it. A document is recorded only once stored; a worker that dies in
// between leaves its lease to expire and the document is made again (same path: the same version's bytes).
import { randomUUID } from "node:crypto";
import type { Db } from "../db/client.js";
import type { FileStorage } from "../billing/files/storage.js";
import * as invoices from "../billing/invoices/service.js";

export interface InvoiceLoopDeps {
  db: Db;
  storage: FileStorage;
  log: { error(obj: unknown, msg?: string): void; warn(msg: string): void };
  /** Documents made at once (rendering is CPU work in this process: keep it small). */
  concurrency: number;
  leaseMs: number;
  pollIntervalMs: number;
}

export interface InvoiceLoop {
  start(): void;
  /** Lets the documents in hand finish. */
  stop(): Promise<void>;
  /** Stops at once (a crash): what is in hand is not recorded. */
  kill(): void;
  wake(): void;
  /** Documents this loop made and recorded. */
  readonly generated: number;
}

export function createInvoiceLoop(deps: InvoiceLoopDeps): InvoiceLoop {
  let running = false;
  let done: Promise<void> = Promise.resolve();
  let generated = 0;
  let pending = false;
  let wakeUp: (() => void) | undefined;

  function wait(ms: number): Promise<void> {
    if (pending) {
      pending = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const timer = setTimeout(finish, ms);
      function finish() {
        clearTimeout(timer);
        wakeUp = undefined;
        pending = false;
        resolve();
      }
      wakeUp = finish;
    });
  }

  async function loop(): Promise<void> {
    while (running) {
      let claimed = 0;
      try {
        const token = randomUUID();
        const due = await invoices.claimDue(deps.db, deps.concurrency, deps.leaseMs, token);
        claimed = due.length;
        await Promise.all(
          due.map(async (row) => {
            try {
              if (await invoices.generateDocument(deps.db, deps.storage, row, token)) generated += 1;
            } catch (err) {
              if (running) deps.log.warn(`invoices: could not make ${row.kind} ${row.number} (${row.id}): ${String(err)}`);
            }
          }),
        );
      } catch (err) {
        if (!running) break;
        deps.log.error(err, "invoices: claiming due documents failed");
      }
      if (!running) break;
      if (claimed < deps.concurrency) await wait(deps.pollIntervalMs);
    }
  }

  return {
    get generated() {
      return generated;
    },
    start() {
      if (running) return;
      running = true;
      done = loop();
    },
    async stop() {
      running = false;
      wakeUp?.();
      await done;
    },
    kill() {
      running = false;
      wakeUp?.();
    },
    wake() {
      pending = true;
      wakeUp?.();
    },
  };
}
