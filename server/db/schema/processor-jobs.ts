// Calls to the payment processor an outbox event causes (an open bank transfer canceled, a wallet's auto-recharge
// charged): recorded by the fan-out's transaction, made by a leased job outside of it (server/tasks/processor-jobs.ts).
import { sql } from "drizzle-orm";
import { index, integer, jsonb, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { id, org, timestamptz } from "./columns.js";

export const processorJob = pgTable(
  "processor_job",
  {
    id: id(),
    organizationId: org(),
    /** transfer_cancel | wallet_recharge: which domain's job does it. */
    kind: text("kind").notNull(),
    /** What the call is about (the order, the wallet): one call per subject at a time. */
    subject: text("subject").notNull(),
    /** What caused it (the order paid, the movement that spent the wallet): one job per kind and cause. */
    cause: text("cause").notNull(),
    /** What the call was sent with once started (a retry after a lost answer sends exactly the same). */
    data: jsonb("data").$type<Record<string, unknown>>(),
    /** pending | done */
    status: text("status").default("pending").notNull(),
    attempts: integer("attempts").default(0).notNull(),
    nextAttemptAt: timestamptz("next_attempt_at").defaultNow().notNull(),
    lockedUntil: timestamptz("locked_until"),
    lockedBy: text("locked_by"),
    /** When the call may have reached the processor: from then on a retry asks again, whatever changed since. */
    startedAt: timestamptz("started_at"),
    /** What the job did (the domain's word). */
    outcome: text("outcome"),
    lastError: text("last_error"),
    createdAt: timestamptz("created_at").defaultNow().notNull(),
    finishedAt: timestamptz("finished_at"),
  },
  (t) => [
    uniqueIndex("processor_job_cause_key").on(t.organizationId, t.kind, t.cause),
    index("processor_job_due_idx").on(t.kind, t.nextAttemptAt).where(sql`${t.status} = 'pending'`),
    index("processor_job_subject_idx").on(t.organizationId, t.subject).where(sql`${t.status} = 'pending'`),
  ],
);
