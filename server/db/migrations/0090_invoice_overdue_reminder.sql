-- Invoices with terms: a reminder after the due date too. An invoice still owed OVERDUE_REMINDER_DAYS after it went
-- overdue is reminded once more with its pay link (`overdue_reminded_at`), beside the organization's dunning.
ALTER TABLE "order" ADD COLUMN "overdue_reminded_at" timestamp with time zone;
