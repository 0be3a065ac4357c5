// Dunning's schedule: invoices with terms reminded or overdue (invoices.ts), failed renewal charges whose retry is
// due, after the renewals of the same pass of the schedules (server/jobs/schedules.ts); and the job canceling the
// bank transfer of an order paid another way.
import type { JobSubscriber, Schedule } from "../../tasks/job.js";
import { processorCallJob } from "../../tasks/processor-jobs.js";
import { runInvoiceReminders } from "./invoices.js";
import { runDunning, type DunningRun } from "./service.js";
import { runTransferCancelJob, runTransferCancels, transferCancelSubscriber } from "./transfer-cancel.js";

// an order paid another way has its open bank transfer canceled by a job the fan-out records (the processor is asked
// after the fan-out's commit); the schedule's pass asks again for one left open
export const jobs = [processorCallJob({ name: "transfer-cancels", kind: "transfer_cancel", run: runTransferCancelJob })];
export const subscribers: JobSubscriber[] = [{ subscriber: () => transferCancelSubscriber(), wakes: "transfer-cancels" }];

// invoices with terms first: one that went overdue in this pass is then in dunning's hands
export const schedules: Schedule<DunningRun>[] = [
  { name: "invoice-reminders", run: runInvoiceReminders },
  { name: "dunning", run: runDunning },
  { name: "transfer-cancels", run: runTransferCancels },
];
