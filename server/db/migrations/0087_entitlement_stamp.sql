-- A stamp per (organization, customer) that every change able to alter the customer's entitlement facts moves
-- (entitlements/facts-repository.ts reads them): its grants, its subscriptions and the status of those its grants
-- came from, its reservations, its usage (meter_usage_stamp, itself kept by the rollups' triggers), the customer
-- row; and a stamp per organization (customer_id = the organization's id) for what every customer's facts read:
-- benefits, products' benefits and prices, meters and their rollups' state, the organization's billing settings.
-- A check that reads the same two stamps reuses the facts it read before (entitlements/facts-cache.ts). Kept by
-- triggers so that every writer counts, the previous release's processes during a rolling upgrade too. A stamp is
-- set from a sequence, never counted: a value is never seen twice, even if a row were removed and made again.
CREATE SEQUENCE "entitlement_stamp_seq";
--> statement-breakpoint
CREATE TABLE "entitlement_stamp" (
  "organization_id" uuid NOT NULL,
  "customer_id" uuid NOT NULL,
  "stamp" bigint NOT NULL,
  CONSTRAINT "entitlement_stamp_pk" PRIMARY KEY ("organization_id", "customer_id")
);
--> statement-breakpoint
-- the subscription's grants held by others (seats): their facts carry the subscription's status
CREATE INDEX "benefit_grant_subscription_idx" ON "benefit_grant" ("subscription_id") WHERE "subscription_id" IS NOT NULL;
--> statement-breakpoint
CREATE FUNCTION "entitlement_stamp_bump"(org uuid, customers uuid[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  -- in the customers' order: two writers bumping the same stamps wait for each other instead of deadlocking
  INSERT INTO entitlement_stamp AS s (organization_id, customer_id, stamp)
    SELECT org, c, nextval('entitlement_stamp_seq') FROM (SELECT DISTINCT c FROM unnest(customers) AS c WHERE c IS NOT NULL ORDER BY c) AS x
    ON CONFLICT (organization_id, customer_id) DO UPDATE SET stamp = excluded.stamp;
END $$;
--> statement-breakpoint
-- rows of one customer: benefit_grant, entitlement_reservation
CREATE FUNCTION "entitlement_stamp_customer_row"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN PERFORM entitlement_stamp_bump(OLD.organization_id, ARRAY[OLD.customer_id]); END IF;
  IF TG_OP <> 'DELETE' THEN PERFORM entitlement_stamp_bump(NEW.organization_id, ARRAY[NEW.customer_id]); END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "benefit_grant_entitlement_stamp" AFTER INSERT OR UPDATE OR DELETE ON "benefit_grant"
  FOR EACH ROW EXECUTE FUNCTION entitlement_stamp_customer_row();
--> statement-breakpoint
CREATE TRIGGER "entitlement_reservation_entitlement_stamp" AFTER INSERT OR UPDATE OR DELETE ON "entitlement_reservation"
  FOR EACH ROW EXECUTE FUNCTION entitlement_stamp_customer_row();
--> statement-breakpoint
-- the customer itself (its external id, its deletion); a new customer has no facts read before
CREATE FUNCTION "entitlement_stamp_customer"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM entitlement_stamp_bump(OLD.organization_id, ARRAY[OLD.id]);
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "customer_entitlement_stamp" AFTER UPDATE OR DELETE ON "customer"
  FOR EACH ROW EXECUTE FUNCTION entitlement_stamp_customer();
--> statement-breakpoint
-- a subscription: its customer's, and the holders of the grants it made (a seat holder's facts carry its status)
CREATE FUNCTION "entitlement_stamp_subscription"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  r record;
BEGIN
  IF TG_OP = 'DELETE' THEN r := OLD; ELSE r := NEW; END IF;
  PERFORM entitlement_stamp_bump(r.organization_id,
    ARRAY[r.customer_id, CASE WHEN TG_OP = 'UPDATE' THEN OLD.customer_id END]
      || ARRAY(SELECT g.customer_id FROM benefit_grant g WHERE g.subscription_id = r.id AND g.organization_id = r.organization_id));
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "subscription_entitlement_stamp" AFTER INSERT OR UPDATE OR DELETE ON "subscription"
  FOR EACH ROW EXECUTE FUNCTION entitlement_stamp_subscription();
--> statement-breakpoint
-- what every customer's facts of the organization read: benefit, product_price, meter, meter_rollup_state,
-- billing_organization (each with its organization_id)
CREATE FUNCTION "entitlement_stamp_organization_row"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN PERFORM entitlement_stamp_bump(OLD.organization_id, ARRAY[OLD.organization_id]); END IF;
  IF TG_OP <> 'DELETE' THEN PERFORM entitlement_stamp_bump(NEW.organization_id, ARRAY[NEW.organization_id]); END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "benefit_entitlement_stamp" AFTER INSERT OR UPDATE OR DELETE ON "benefit"
  FOR EACH ROW EXECUTE FUNCTION entitlement_stamp_organization_row();
--> statement-breakpoint
CREATE TRIGGER "product_price_entitlement_stamp" AFTER INSERT OR UPDATE OR DELETE ON "product_price"
  FOR EACH ROW EXECUTE FUNCTION entitlement_stamp_organization_row();
--> statement-breakpoint
CREATE TRIGGER "meter_entitlement_stamp" AFTER INSERT OR UPDATE OR DELETE ON "meter"
  FOR EACH ROW EXECUTE FUNCTION entitlement_stamp_organization_row();
--> statement-breakpoint
CREATE TRIGGER "meter_rollup_state_entitlement_stamp" AFTER INSERT OR UPDATE OR DELETE ON "meter_rollup_state"
  FOR EACH ROW EXECUTE FUNCTION entitlement_stamp_organization_row();
--> statement-breakpoint
CREATE TRIGGER "billing_organization_entitlement_stamp" AFTER INSERT OR UPDATE OR DELETE ON "billing_organization"
  FOR EACH ROW EXECUTE FUNCTION entitlement_stamp_organization_row();
--> statement-breakpoint
-- a product's benefits (what an unpaid subscription's product would give): the organization through the product
CREATE FUNCTION "entitlement_stamp_product_benefit"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  org uuid;
BEGIN
  SELECT p.organization_id INTO org FROM product p WHERE p.id = (CASE WHEN TG_OP = 'DELETE' THEN OLD.product_id ELSE NEW.product_id END);
  IF org IS NOT NULL THEN PERFORM entitlement_stamp_bump(org, ARRAY[org]); END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "product_benefit_entitlement_stamp" AFTER INSERT OR UPDATE OR DELETE ON "product_benefit"
  FOR EACH ROW EXECUTE FUNCTION entitlement_stamp_product_benefit();
--> statement-breakpoint
-- usage: the customers whose usage stamps moved, by id or by external id, once per statement (an ingest's batch)
CREATE FUNCTION "entitlement_stamp_usage"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  r record;
BEGIN
  FOR r IN
    SELECT org, array_agg(customer) AS customers FROM (
      SELECT m.organization_id AS org, nullif(u.customer_id, '')::uuid AS customer
      FROM changed_stamps u JOIN meter m ON m.id = u.meter_id WHERE u.customer_id ~ '^[0-9a-fA-F-]{36}$'
      UNION
      SELECT m.organization_id, c.id FROM changed_stamps u JOIN meter m ON m.id = u.meter_id
        JOIN customer c ON c.organization_id = m.organization_id AND c.external_id = u.external_customer_id AND c.deleted_at IS NULL
      WHERE u.external_customer_id <> ''
    ) AS named GROUP BY org ORDER BY org
  LOOP
    PERFORM entitlement_stamp_bump(r.org, r.customers);
  END LOOP;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "meter_usage_stamp_entitlement_ins" AFTER INSERT ON "meter_usage_stamp" REFERENCING NEW TABLE AS changed_stamps
  FOR EACH STATEMENT EXECUTE FUNCTION entitlement_stamp_usage();
--> statement-breakpoint
CREATE TRIGGER "meter_usage_stamp_entitlement_upd" AFTER UPDATE ON "meter_usage_stamp" REFERENCING NEW TABLE AS changed_stamps
  FOR EACH STATEMENT EXECUTE FUNCTION entitlement_stamp_usage();
