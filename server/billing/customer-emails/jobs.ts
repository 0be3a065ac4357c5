// The customer emails' job: sends the emails due, up to mailConcurrency at once. An email is recorded as sent
// only after the transport took it; a worker that dies in between leaves its lease to expire and the email is
// sent again with the same Message-ID. A stop lets the emails in hand finish within stopGraceMs; one hanging on a
// slow SMTP server does not hold it, and records nothing once the stop stopped waiting (its lease expires).
import { leasedJob } from "../../tasks/lease-loop.js";
import type { JobSubscriber } from "../../tasks/job.js";
import * as customerEmails from "./service.js";

export const jobs = [
  leasedJob({
    name: "customer-emails",
    counter: "mailed",
    failure: "mail: claiming due customer emails failed",
    concurrency: (ctx) => ctx.opts.mailConcurrency,
    stopsWithWorker: true,
    // the emails' links point at the base URL: without it, another worker sends them
    env: (ctx) => (ctx.config.baseURL ? { ...ctx, url: ctx.config.baseURL } : undefined),
    claim: (c, lease) => customerEmails.claimDue(c.db, lease.limit, lease.leaseMs, lease.token),
    async work(c, due, token, hand) {
      await Promise.all(
        due.map(async (email) => {
          let error: unknown;
          try {
            hand.count();
            await customerEmails.deliver(c.mailer, email, c.url);
          } catch (err) {
            error = err ?? new Error("mail transport failed");
          }
          // a crash (kill), or a stop that stopped waiting, records nothing: the lease decides who sends again
          if (hand.killed() || hand.abandoned()) return;
          if (error !== undefined) {
            c.log.warn(`mail: could not send the ${email.type} email ${email.id}: ${String(error)}`);
          }
          await customerEmails
            .record(c.db, email, token, error)
            .catch((err: unknown) => c.log.error(err, `mail: could not record email ${email.id}`));
        }),
      );
    },
  }),
];

export const subscribers: JobSubscriber[] = [
  { subscriber: () => customerEmails.outboxSubscriber, wakes: "customer-emails" },
];
