-- Invoices with terms: a customer or a subscription is billed by charging the saved method (null or
-- `charge_automatically`) or by an invoice the customer pays within `days_until_due` (`send_invoice`); a
-- subscription's null takes its customer's. The buyer's purchase order number travels from the checkout or the
-- subscription to each order's invoice. An invoiced order is due at `due_at`, reminded once before (`reminded_at`),
-- and may be marked paid by the seller for money received outside the processor (who and when).
ALTER TABLE "customer" ADD COLUMN "collection_method" text;
--> statement-breakpoint
ALTER TABLE "customer" ADD COLUMN "days_until_due" integer;
--> statement-breakpoint
ALTER TABLE "subscription" ADD COLUMN "collection_method" text;
--> statement-breakpoint
ALTER TABLE "subscription" ADD COLUMN "days_until_due" integer;
--> statement-breakpoint
ALTER TABLE "subscription" ADD COLUMN "purchase_order" text;
--> statement-breakpoint
ALTER TABLE "checkout" ADD COLUMN "purchase_order" text;
--> statement-breakpoint
ALTER TABLE "order" ADD COLUMN "purchase_order" text;
--> statement-breakpoint
ALTER TABLE "order" ADD COLUMN "due_at" timestamp with time zone;
--> statement-breakpoint
ALTER TABLE "order" ADD COLUMN "reminded_at" timestamp with time zone;
--> statement-breakpoint
ALTER TABLE "order" ADD COLUMN "overdue_at" timestamp with time zone;
--> statement-breakpoint
ALTER TABLE "order" ADD COLUMN "marked_paid_at" timestamp with time zone;
--> statement-breakpoint
ALTER TABLE "order" ADD COLUMN "marked_paid_by" jsonb;
--> statement-breakpoint
-- the reminder schedule's claim: invoiced orders still owed, by due date
CREATE INDEX "order_invoice_due_idx" ON "order" ("due_at", "id") WHERE "status" = 'pending' AND "due_at" IS NOT NULL;
