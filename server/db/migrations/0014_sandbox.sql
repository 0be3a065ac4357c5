CREATE TABLE "organization_sandbox" (
	"organization_id" uuid PRIMARY KEY NOT NULL,
	"live_organization_id" uuid NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "organization_sandbox_live_uq" UNIQUE("live_organization_id")
);
--> statement-breakpoint
ALTER TABLE "organization_sandbox" ADD CONSTRAINT "organization_sandbox_organization_id_organization_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organization"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "organization_sandbox" ADD CONSTRAINT "organization_sandbox_live_organization_id_organization_id_fk" FOREIGN KEY ("live_organization_id") REFERENCES "public"."organization"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- Deleting an organization deletes its link row (cascade); the twin's own row goes with it here, and the
-- twin's foreign keys then delete every sandbox row. Whichever way the organization is deleted.
CREATE OR REPLACE FUNCTION "till_sandbox_unlinked"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM "organization" WHERE "id" = OLD."organization_id";
  RETURN OLD;
END
$$;--> statement-breakpoint
CREATE TRIGGER "organization_sandbox_unlinked" AFTER DELETE ON "organization_sandbox" FOR EACH ROW
  EXECUTE FUNCTION "till_sandbox_unlinked"();
