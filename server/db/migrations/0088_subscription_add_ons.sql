-- Add-ons: products sold on a base product's subscription (same interval), each with its own price, quantity and
-- benefits. The base product lists the products offered as its add-ons (`add_on_ids`); a subscription holds its
-- add-ons on its row (`add_ons`: id, product, price, quantity, amount per period), so a change writes them with the
-- rest of the row under the row's lock and a preview's rolled-back transaction sees them as the change leaves them.
ALTER TABLE "product" ADD COLUMN "add_on_ids" uuid[] DEFAULT '{}' NOT NULL;
--> statement-breakpoint
ALTER TABLE "subscription" ADD COLUMN "add_ons" jsonb DEFAULT '[]'::jsonb NOT NULL;
--> statement-breakpoint
-- what the add-ons add to the subscription's amount per period (their amounts are quantity × unit, or seats)
CREATE FUNCTION "till_add_ons_amount"(items jsonb) RETURNS integer LANGUAGE sql IMMUTABLE AS $$
	SELECT coalesce(sum((i ->> 'amount')::integer), 0)::integer FROM jsonb_array_elements(coalesce(items, '[]'::jsonb)) i
$$;
--> statement-breakpoint
-- the recurring revenue of a subscription counts its add-ons (0042's function, the amount now with the add-ons')
CREATE OR REPLACE FUNCTION "till_metric_subscription_change"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
	change_at timestamptz;
	n record;
	o record;
	e record;
	first_paid timestamptz := coalesce(NEW.trial_end, NEW.started_at, NEW.created_at);
	months integer;
	ends timestamptz;
	new_amount integer := NEW.amount + till_add_ons_amount(NEW.add_ons);
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
	n := till_metric_contribution(NEW.status, new_amount, NEW.currency, NEW.recurring_interval, NEW.recurring_interval_count,
		NEW.cancel_at_period_end OR NEW.ends_at IS NOT NULL, NEW.discount_id, first_paid, change_at);
	IF TG_OP = 'UPDATE' THEN
		o := till_metric_contribution(OLD.status, OLD.amount + till_add_ons_amount(OLD.add_ons), OLD.currency, OLD.recurring_interval, OLD.recurring_interval_count,
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
				e := till_metric_contribution(NEW.status, new_amount, NEW.currency, NEW.recurring_interval, NEW.recurring_interval_count,
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
