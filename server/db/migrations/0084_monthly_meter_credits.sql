-- Monthly meter credits within longer billing periods: a meter_credit grant with a `monthly` schedule names its next
-- credit in its properties (`next_credit_at`, an ISO date-time); the schedule finds the due ones by this index.
CREATE INDEX "benefit_grant_next_credit_idx" ON "benefit_grant" (("properties"->>'next_credit_at'))
  WHERE "properties"->>'next_credit_at' IS NOT NULL;
