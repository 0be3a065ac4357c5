ALTER TABLE "outbox" ADD COLUMN "processed_xid" bigint;--> statement-breakpoint
CREATE INDEX "outbox_org_processed_idx" ON "outbox" USING btree ("organization_id","processed_xid","id") WHERE "outbox"."processed_xid" IS NOT NULL;--> statement-breakpoint
-- `till listen` streams processed outbox rows in the order of the transactions that processed them: the row
-- records its processing transaction's id, and the transaction wakes listeners (LISTEN till_listen) at commit.
CREATE OR REPLACE FUNCTION "till_outbox_processed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.processed_xid := pg_current_xact_id()::text::bigint;
  PERFORM pg_notify('till_listen', '');
  RETURN NEW;
END
$$;--> statement-breakpoint
CREATE TRIGGER "outbox_processed" BEFORE UPDATE OF "processed_at" ON "outbox" FOR EACH ROW
  WHEN (OLD."processed_at" IS NULL AND NEW."processed_at" IS NOT NULL) EXECUTE FUNCTION "till_outbox_processed"();
