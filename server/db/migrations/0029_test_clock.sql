CREATE TABLE "test_clock" (
	"organization_id" uuid PRIMARY KEY NOT NULL,
	"offset_ms" bigint DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"modified_at" timestamp with time zone,
	CONSTRAINT "test_clock_offset_not_negative" CHECK ("offset_ms" >= 0)
);
--> statement-breakpoint
ALTER TABLE "test_clock" ADD CONSTRAINT "test_clock_organization_id_organization_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organization"("id") ON DELETE cascade ON UPDATE no action;
