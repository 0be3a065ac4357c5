-- A grant made for a member of a team customer (the seat assigned to the member was claimed): the
-- grant stays the team customer's (customer_id) and names the member, as Polar's BenefitGrant.member_id. NULL on
-- the customer's own grants and on every grant made before 0065. A removed member's grants are revoked first; the
-- column then forgets them.
ALTER TABLE "benefit_grant" ADD COLUMN "member_id" uuid REFERENCES "customer_member"("id") ON DELETE set null;
--> statement-breakpoint
CREATE INDEX "benefit_grant_member_idx" ON "benefit_grant" USING btree ("member_id") WHERE "member_id" IS NOT NULL;
