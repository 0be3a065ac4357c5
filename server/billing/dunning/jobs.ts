// Dunning's schedule: invoices with terms reminded or overdue (invoices.ts), failed renewal charges whose retry is
// due, after the renewals of the same pass of the
// schedules (server/jobs/schedules.ts).
import type { JobSubscriber, Schedule } from "../../tasks/job.js";
import { runInvoiceReminders } from "./invoices.js";
import { runDunning, type DunningRun } from "./service.js";
import { runTransferCancels, transferCancelSubscriber } from "./transfer-cancel.js";

// an order paid another way has its open bank transfer canceled (the schedule's pass asks again for one left open)
export const subscribers: JobSubscriber[] = [{ subscriber: (ctx) => transferCancelSubscriber(ctx.processor) }];

// invoices with terms first: one that went overdue in this pass is then in dunning's hands
export const schedules: Schedule<DunningRun>[] = [
  { name: "invoice-reminders", run: runInvoiceReminders },
  { name: "dunning", run: runDunning },
  { name: "transfer-cancels", run: runTransferCancels },
];
