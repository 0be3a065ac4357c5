-- Metrics. Saved metric dashboards per organization, and the history that MRR, active subscriptions
-- and their committed / trial variants are read from (docs/metrics.md): append-only delta rows written by a
-- row trigger on "subscription", in the causing transaction, whenever a change moves a subscription's monthly
-- amount or its counts. The value at any time is the sum of the rows up to it. A repeating discount's end is
-- known in advance: it is a row dated then ("scheduled"), replaced whenever the subscription changes again.
CREATE TABLE "metric_dashboard" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL REFERENCES "organization"("id") ON DELETE CASCADE,
	"name" text NOT NULL,
	"metrics" text[] DEFAULT '{}' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"modified_at" timestamp with time zone
);
--> statement-breakpoint
CREATE INDEX "metric_dashboard_org_created_idx" ON "metric_dashboard" USING btree ("organization_id","created_at");
--> statement-breakpoint
CREATE TABLE "metric_subscription_change" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL REFERENCES "organization"("id") ON DELETE CASCADE,
	"subscription_id" uuid NOT NULL REFERENCES "subscription"("id") ON DELETE CASCADE,
	"customer_id" uuid NOT NULL,
	"product_id" uuid NOT NULL,
	"at" timestamp with time zone NOT NULL,
	"currency" text NOT NULL,
	"active" integer NOT NULL,
	"committed" integer NOT NULL,
	"trialing" integer NOT NULL,
	"mrr" numeric NOT NULL,
	"committed_mrr" numeric NOT NULL,
	"trial_mrr" numeric NOT NULL,
	"trial_committed_mrr" numeric NOT NULL,
	"scheduled" boolean DEFAULT false NOT NULL
);
--> statement-breakpoint
CREATE INDEX "metric_subscription_change_org_at_idx" ON "metric_subscription_change" USING btree ("organization_id","at");
--> statement-breakpoint
CREATE INDEX "metric_subscription_change_scheduled_idx" ON "metric_subscription_change" USING btree ("subscription_id") WHERE "scheduled";
--> statement-breakpoint
-- What one subscription in a given state adds at `at`: its counts and its amount per month (yearly ÷ 12,
-- weekly × 52 ÷ 12, daily × 365 ÷ 12, ÷ the interval count), its discount deducted while the discount lasts
-- (forever, or repeating until first paid + its months; a "once" discount is not recurring revenue).
CREATE FUNCTION "till_metric_contribution"(
	p_status text, p_amount integer, p_currency text, p_interval text, p_count integer, p_canceling boolean,
	p_discount_id uuid, p_first_paid timestamptz, p_at timestamptz,
	OUT active integer, OUT committed integer, OUT trialing integer,
	OUT mrr numeric, OUT committed_mrr numeric, OUT trial_mrr numeric, OUT trial_committed_mrr numeric
) LANGUAGE plpgsql STABLE AS $$
DECLARE
	d record;
	v_amount numeric := greatest(p_amount, 0);
	monthly numeric;
BEGIN
	active := 0; committed := 0; trialing := 0; mrr := 0; committed_mrr := 0; trial_mrr := 0; trial_committed_mrr := 0;
	IF p_status NOT IN ('active', 'past_due', 'trialing') THEN RETURN; END IF;
	IF p_discount_id IS NOT NULL AND v_amount > 0 THEN
		SELECT x.type, x.basis_points, x.amounts, x.currency, x.amount AS fixed, x.duration, x.duration_in_months INTO d
		FROM discount x WHERE x.id = p_discount_id;
		IF FOUND AND (d.duration = 'forever' OR (d.duration = 'repeating'
				AND p_at < p_first_paid + make_interval(months => coalesce(d.duration_in_months, 1)))) THEN
			IF d.type = 'fixed' THEN
				v_amount := v_amount - least(v_amount, coalesce((d.amounts ->> p_currency)::integer, CASE WHEN d.currency = p_currency THEN d.fixed END, 0));
			ELSE
				v_amount := v_amount - least(v_amount, round(v_amount * coalesce(d.basis_points, 0) / 10000.0));
			END IF;
		END IF;
	END IF;
	monthly := v_amount * (CASE p_interval WHEN 'year' THEN 1 / 12.0 WHEN 'week' THEN 52 / 12.0 WHEN 'day' THEN 365 / 12.0 ELSE 1 END)
		/ greatest(coalesce(p_count, 1), 1);
	IF p_status = 'trialing' THEN
		trialing := 1;
		trial_mrr := monthly;
		IF NOT p_canceling THEN trial_committed_mrr := monthly; END IF;
	ELSE
		active := 1;
		mrr := monthly;
		IF NOT p_canceling THEN committed := 1; committed_mrr := monthly; END IF;
	END IF;
END $$;
--> statement-breakpoint
CREATE FUNCTION "till_metric_subscription_change"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
	change_at timestamptz;
	o record;
	n record;
	e record;
	first_paid timestamptz := coalesce(NEW.trial_end, NEW.started_at, NEW.created_at);
	months integer;
	ends timestamptz;
BEGIN
	IF TG_OP = 'INSERT' THEN
		change_at := coalesce(NEW.started_at, NEW.created_at);
	ELSIF NEW.ended_at IS NOT NULL AND OLD.ended_at IS NULL THEN
		change_at := NEW.ended_at;
	ELSIF NEW.current_period_start <> OLD.current_period_start THEN
		change_at := NEW.current_period_start;
	ELSE
		-- the organization's now: the wall clock moved by its test clock (sandbox), if any
		change_at := now() + coalesce((SELECT k.offset_ms FROM test_clock k WHERE k.organization_id = NEW.organization_id), 0) * interval '1 millisecond';
	END IF;
	n := till_metric_contribution(NEW.status, NEW.amount, NEW.currency, NEW.recurring_interval, NEW.recurring_interval_count,
		NEW.cancel_at_period_end OR NEW.ends_at IS NOT NULL, NEW.discount_id, first_paid, change_at);
	IF TG_OP = 'UPDATE' THEN
		o := till_metric_contribution(OLD.status, OLD.amount, OLD.currency, OLD.recurring_interval, OLD.recurring_interval_count,
			OLD.cancel_at_period_end OR OLD.ends_at IS NOT NULL, OLD.discount_id, coalesce(OLD.trial_end, OLD.started_at, OLD.created_at), change_at);
	ELSE
		o := till_metric_contribution('none', 0, NEW.currency, NULL, 1, false, NULL, NULL, change_at);
	END IF;
	IF TG_OP = 'INSERT' OR (OLD.currency = NEW.currency AND OLD.product_id = NEW.product_id AND OLD.customer_id = NEW.customer_id) THEN
		IF (n.active, n.committed, n.trialing, n.mrr, n.committed_mrr, n.trial_mrr, n.trial_committed_mrr)
				IS DISTINCT FROM (o.active, o.committed, o.trialing, o.mrr, o.committed_mrr, o.trial_mrr, o.trial_committed_mrr) THEN
			INSERT INTO metric_subscription_change (organization_id, subscription_id, customer_id, product_id, at, currency,
				active, committed, trialing, mrr, committed_mrr, trial_mrr, trial_committed_mrr)
			VALUES (NEW.organization_id, NEW.id, NEW.customer_id, NEW.product_id, change_at, NEW.currency,
				n.active - o.active, n.committed - o.committed, n.trialing - o.trialing, n.mrr - o.mrr,
				n.committed_mrr - o.committed_mrr, n.trial_mrr - o.trial_mrr, n.trial_committed_mrr - o.trial_committed_mrr);
		END IF;
	ELSE
		-- moved to another product, customer or currency: out of the old, into the new
		INSERT INTO metric_subscription_change (organization_id, subscription_id, customer_id, product_id, at, currency,
			active, committed, trialing, mrr, committed_mrr, trial_mrr, trial_committed_mrr)
		VALUES (OLD.organization_id, OLD.id, OLD.customer_id, OLD.product_id, change_at, OLD.currency,
			-o.active, -o.committed, -o.trialing, -o.mrr, -o.committed_mrr, -o.trial_mrr, -o.trial_committed_mrr),
			(NEW.organization_id, NEW.id, NEW.customer_id, NEW.product_id, change_at, NEW.currency,
			n.active, n.committed, n.trialing, n.mrr, n.committed_mrr, n.trial_mrr, n.trial_committed_mrr);
	END IF;
	-- a repeating discount's end, as the subscription now stands
	IF TG_OP = 'UPDATE' THEN
		DELETE FROM metric_subscription_change x WHERE x.subscription_id = NEW.id AND x.scheduled AND x.at > change_at;
	END IF;
	IF NEW.discount_id IS NOT NULL AND NEW.status IN ('active', 'past_due', 'trialing') THEN
		SELECT x.duration_in_months INTO months FROM discount x WHERE x.id = NEW.discount_id AND x.duration = 'repeating';
		IF FOUND THEN
			ends := first_paid + make_interval(months => coalesce(months, 1));
			IF ends > change_at THEN
				e := till_metric_contribution(NEW.status, NEW.amount, NEW.currency, NEW.recurring_interval, NEW.recurring_interval_count,
					NEW.cancel_at_period_end OR NEW.ends_at IS NOT NULL, NEW.discount_id, first_paid, ends);
				IF e.mrr <> n.mrr OR e.trial_mrr <> n.trial_mrr THEN
					INSERT INTO metric_subscription_change (organization_id, subscription_id, customer_id, product_id, at, currency,
						active, committed, trialing, mrr, committed_mrr, trial_mrr, trial_committed_mrr, scheduled)
					VALUES (NEW.organization_id, NEW.id, NEW.customer_id, NEW.product_id, ends, NEW.currency, 0, 0, 0,
						e.mrr - n.mrr, e.committed_mrr - n.committed_mrr, e.trial_mrr - n.trial_mrr, e.trial_committed_mrr - n.trial_committed_mrr, true);
				END IF;
			END IF;
		END IF;
	END IF;
	RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "subscription_metric_change" AFTER INSERT OR UPDATE ON "subscription" FOR EACH ROW EXECUTE FUNCTION till_metric_subscription_change();
--> statement-breakpoint
-- the subscriptions made before this migration: as they stand now, from their start (and out at their end)
INSERT INTO metric_subscription_change (organization_id, subscription_id, customer_id, product_id, at, currency,
	active, committed, trialing, mrr, committed_mrr, trial_mrr, trial_committed_mrr)
SELECT s.organization_id, s.id, s.customer_id, s.product_id, coalesce(s.started_at, s.created_at), s.currency,
	c.active, c.committed, c.trialing, c.mrr, c.committed_mrr, c.trial_mrr, c.trial_committed_mrr
FROM subscription s, LATERAL till_metric_contribution(CASE WHEN s.ended_at IS NOT NULL AND s.started_at IS NOT NULL THEN 'active' ELSE s.status END,
	s.amount, s.currency, s.recurring_interval, s.recurring_interval_count, s.ended_at IS NULL AND (s.cancel_at_period_end OR s.ends_at IS NOT NULL),
	s.discount_id, coalesce(s.trial_end, s.started_at, s.created_at), coalesce(s.started_at, s.created_at)) c
WHERE c.active <> 0 OR c.trialing <> 0;
--> statement-breakpoint
INSERT INTO metric_subscription_change (organization_id, subscription_id, customer_id, product_id, at, currency,
	active, committed, trialing, mrr, committed_mrr, trial_mrr, trial_committed_mrr)
SELECT s.organization_id, s.id, s.customer_id, s.product_id, s.ended_at, s.currency,
	-c.active, -c.committed, -c.trialing, -c.mrr, -c.committed_mrr, -c.trial_mrr, -c.trial_committed_mrr
FROM subscription s, LATERAL till_metric_contribution('active', s.amount, s.currency, s.recurring_interval, s.recurring_interval_count,
	false, s.discount_id, coalesce(s.trial_end, s.started_at, s.created_at), s.ended_at) c
WHERE s.ended_at IS NOT NULL AND s.started_at IS NOT NULL AND c.active <> 0;
