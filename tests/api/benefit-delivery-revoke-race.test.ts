// A revoke whose delivery is superseded by a grant delivery of the same grant (a heal that read the grant before
// the revoke and inserted its delivery after the revoke's): the grant delivery carries out the revoke, so the
// access is removed at GitHub's loopback peer (tests/helpers/delivery-peers.ts) all the same.
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { insertDeliveries } from "../../server/billing/benefit-delivery/repository.js";
import { deliveryFixture } from "./delivery-fixtures.js";

const fx = deliveryFixture();

type DeliveryView = { id: string; action: string; status: string; attempts: number; locked_until: string | null };

describe("a revoke superseded by a grant delivery", () => {
  it("a grant delivery inserted after the revoke's delivery of a revoked grant still removes the access", async () => {
    // the purchase's delivery and the connect's heal settle first: what follows is about the revoke's delivery alone
    const { benefitId, productId, customerId, invitation, grant } = await fx.githubGrant("hal", 9292);
    fx.github.accept(invitation[0]);
    const deliveries = () =>
      fx.sqlRows<DeliveryView>(sql`SELECT id, action, status, attempts, locked_until FROM benefit_delivery WHERE grant_id = ${grant.id} ORDER BY created_at`);
    expect(fx.github.collaborators.get("acme/private")?.has("hal")).toBe(true);

    // the refund revokes the grant; GitHub fails the removal in passing (the client's own retry too), so the
    // revoke's delivery waits for its retry, pending and held by nobody
    fx.github.fail("DELETE", "/repos/acme/private/collaborators/hal", 502);
    fx.github.fail("DELETE", "/repos/acme/private/collaborators/hal", 502);
    const [order] = (await fx.seller.sdk.orders.list({ productId })).result.items;
    await fx.seller.sdk.refunds.create({ orderId: order!.id, reason: "customer_request", amount: order!.totalAmount, revokeBenefits: true });
    const revoke = await fx.until("the revoke's delivery waiting to retry", async () =>
      (await deliveries()).find((d) => d.action === "revoke" && d.status === "pending" && d.attempts > 0 && d.locked_until === null));
    expect((await fx.grantOf(benefitId, customerId))?.is_revoked).toBe(true);

    // a heal that read the grant before the revoke inserts its grant delivery now: it supersedes the revoke's
    const calls = fx.github.seen.length;
    await insertDeliveries(fx.server.database.db, [{ organizationId: fx.seller.organizationId, grantId: grant.id, action: "grant", outboxId: null }]);
    expect((await deliveries()).find((d) => d.id === revoke.id)?.status).toBe("superseded");

    // the grant delivery is all that is left, and it carries out the revoke: hal is removed from the repository
    await fx.until("the grant delivery done", async () => (await deliveries()).every((d) => d.status !== "pending"));
    expect(fx.github.collaborators.get("acme/private")?.has("hal")).toBe(false);
    expect(fx.github.invitationOf("acme/private", "hal")).toBeUndefined();
    const revoked = await fx.grantOf(benefitId, customerId);
    expect(revoked).toMatchObject({ is_revoked: true, error: null, properties: { granted_repository: null } });
    // the grant delivery was done as a revoke, never as a new invitation
    expect((await deliveries()).at(-1)).toMatchObject({ action: "grant", status: "done" });
    expect(fx.github.seen.slice(calls).filter((s) => s.method === "PUT")).toEqual([]);
  }, 60_000);
});
