// Every domain's jobs.ts, in order: the worker builds the jobs in this order (and stops them in the reverse), the
// fan-out runs the outbox subscribers in it, and the schedules run in it in each pass. A test fails when a jobs.ts
// under server/billing is missing here (tests/unit/jobs-registry.test.ts): a module listed by hand, rather than
// discovered at start, keeps the order written down and the imports visible to the import tests.
import type { Job, JobSubscriber, Schedule } from "../tasks/job.js";
import type { RenewalRun } from "../billing/renewal/run.js";
import * as webhooks from "../billing/webhooks/jobs.js";
import * as customerEmails from "../billing/customer-emails/jobs.js";
import * as invoices from "../billing/invoices/jobs.js";
import * as productBenefits from "../billing/subscriptions/jobs.js";
import * as benefitDelivery from "../billing/benefit-delivery/jobs.js";
import * as processorEvents from "../billing/processor-events/jobs.js";
import * as wallets from "../billing/wallets/jobs.js";
import * as events from "../billing/events/jobs.js";
import * as renewal from "../billing/renewal/jobs.js";
import * as dunning from "../billing/dunning/jobs.js";
import * as checkouts from "../billing/checkouts/jobs.js";
import * as imports from "../billing/imports/jobs.js";
import * as entitlements from "../billing/entitlements/jobs.js";
import * as cleanup from "./cleanup.js";

/** What a pass of the schedules is given (server/jobs/schedules.ts). */
export type SchedulePass = Omit<RenewalRun, "now" | "organizationId">;

/** What a domain's jobs.ts exports. */
export interface DomainJobs {
  jobs?: readonly Job[];
  subscribers?: readonly JobSubscriber[];
  schedules?: readonly Schedule<SchedulePass>[];
}

export const DOMAIN_JOBS: readonly DomainJobs[] = [
  webhooks,
  customerEmails,
  invoices,
  productBenefits,
  benefitDelivery,
  processorEvents,
  wallets,
  events,
  renewal,
  dunning,
  checkouts,
  imports,
  entitlements,
  cleanup,
];

export const JOBS: readonly Job[] = DOMAIN_JOBS.flatMap((d) => d.jobs ?? []);
export const SUBSCRIBERS: readonly JobSubscriber[] = DOMAIN_JOBS.flatMap((d) => d.subscribers ?? []);
export const SCHEDULES: readonly Schedule<SchedulePass>[] = DOMAIN_JOBS.flatMap((d) => d.schedules ?? []);
