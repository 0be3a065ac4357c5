-- A cheaper deduplication (bench:hostile): each claim in `event_external_id` names the event that holds
-- its key (`event_id`, and its `event_timestamp`, the partition key, so a lookup reads one month). The ingest's
-- INSERT then keeps the events whose id it claimed, and a parent named by its external_id is found through the
-- claim, so the event table's own index on (organization_id, external_id) goes: a 1,000-event batch writes one
-- index less (with the claims' rows larger, about 115 KB less WAL and 6–9 % less of PostgreSQL's time for the
-- statement: bench/RESULTS.md). A claim whose event is gone (retention dropped its month) keeps its key and finds
-- no event.
-- On a large table the columns can be added and filled by hand, in batches, before upgrading (docs/scaling.md):
-- this then fills only the claims left without their event.
ALTER TABLE "event_external_id" ADD COLUMN IF NOT EXISTS "event_id" uuid, ADD COLUMN IF NOT EXISTS "event_timestamp" timestamptz;--> statement-breakpoint
UPDATE "event_external_id" c SET "event_id" = e."id", "event_timestamp" = e."timestamp"
	FROM "event" e WHERE c."event_id" IS NULL AND e."organization_id" = c."organization_id" AND e."external_id" = c."external_id";--> statement-breakpoint
DROP INDEX "event_org_external_idx";
