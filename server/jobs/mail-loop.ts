// The worker's customer-email loop (billing/customer-emails): sends the emails due, up to mailConcurrency at
// once. An email is recorded as sent only after the transport took it; a worker that dies in between leaves its
// lease to expire and the email is sent again with the same Message-ID. A stop lets the emails in hand finish.
import { randomUUID } from "node:crypto";
import type { Db } from "../db/client.js";
import type { Mailer } from "../mail/mailer.js";
import * as customerEmails from "../billing/customer-emails/service.js";
import { Signal, within, type WorkerState } from "./signal.js";

export interface MailLoopDeps {
  db: Db;
  mailer: Mailer;
  /** Where the emails' links point; without it the loop never starts (another worker sends). */
  baseURL: string | undefined;
  opts: { mailConcurrency: number; leaseMs: number; pollIntervalMs: number };
  log: { warn(msg: string): void; error(obj: unknown, msg?: string): void };
  state(): WorkerState;
}

export function createMailLoop(c: MailLoopDeps) {
  const signal = new Signal();
  let done: Promise<void> = Promise.resolve();
  /**
   * Bumped by every stop: a loop (and its sends in hand) of an earlier run stops and records nothing once a
   * stop stopped waiting for it (their leases expire, and the emails are sent again with the same Message-ID).
   */
  let run = 0;
  let mailed = 0;

  async function loop(url: string, mine: number): Promise<void> {
    const abandoned = () => mine !== run;
    const { db, opts, log } = c;
    while (c.state() === "running" && !abandoned()) {
      let claimed = 0;
      try {
        const token = randomUUID();
        const due = await customerEmails.claimDue(db, opts.mailConcurrency, opts.leaseMs, token);
        claimed = due.length;
        await Promise.all(
          due.map(async (email) => {
            let error: unknown;
            try {
              mailed += 1;
              await customerEmails.deliver(c.mailer, email, url);
            } catch (err) {
              error = err ?? new Error("mail transport failed");
            }
            // a crash (kill), or a stop that stopped waiting, records nothing: the lease decides who sends again
            if (c.state() === "dead" || abandoned()) return;
            if (error !== undefined) log.warn(`mail: could not send the ${email.type} email ${email.id}: ${String(error)}`);
            await customerEmails.record(db, email, token, error).catch((err: unknown) => log.error(err, `mail: could not record email ${email.id}`));
          }),
        );
      } catch (err) {
        if (c.state() !== "running") break;
        log.error(err, "mail: claiming due customer emails failed");
      }
      if (c.state() !== "running" || abandoned()) break;
      if (claimed < opts.mailConcurrency) await signal.wait(opts.pollIntervalMs);
    }
  }

  return {
    /** Customer emails handed to the mail transport (recorded or not). */
    get mailed() {
      return mailed;
    },
    wake: () => signal.fire(),
    /** Not part of the worker's loops: a crash (kill) must not wait for a send in flight. */
    start(): void {
      if (c.baseURL) done = loop(c.baseURL, run);
    },
    /** Sends in hand may finish within `graceMs`; one hanging on a slow SMTP server does not hold the stop. */
    async stop(graceMs: number): Promise<void> {
      await within(done, graceMs);
      run += 1;
    },
  };
}
