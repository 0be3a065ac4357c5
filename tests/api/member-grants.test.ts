// Benefits granted per team member (Polar's member model): a seat of a team customer's purchase
// assigned to one of its members and claimed gives the product's benefits to that member — grants of the team
// customer that name the member (member_id, member) — beside the team's own grant. Both SDK versions read them
// (benefits.grants with member_id, benefitGrants.list, the portal's benefitGrants for the member's session) and
// validate the benefit_grant.created / revoked webhooks; revoking the seat or removing the member revokes the
// member's grants only; another organization sees nothing.
import { Polar } from "@polar-sh/sdk";
import type { Product } from "@polar-sh/sdk/models/components/product.js";
import type { WebhookEndpoint } from "@polar-sh/sdk/models/components/webhookendpoint.js";
import { Polar as Polar049 } from "polar-sdk-049";
import { validateEvent } from "@polar-sh/sdk/webhooks";
import { validateEvent as validateEvent049 } from "polar-sdk-049/webhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawRequest } from "../helpers/api.js";
import { eventually, Receiver } from "../helpers/receiver.js";
import { createProduct, pay, uniqueBuyer } from "../helpers/checkout.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { buySeats, claimSeat, seatsProduct } from "../helpers/seats.js";
import { startServer, type TestServer } from "../helpers/server.js";

let server: TestServer;
const receiver = new Receiver();
let seller: Seller;
let other: Seller;
let benefitId: string;
let product: Product;
let endpoint: WebhookEndpoint;
const HOOK = "/member-grants";

const raw = (token: string, method: string, path: string, body?: unknown) => rawRequest(server.url, token, method, path, body);

/** A paid seat-based subscription of a team customer (with a member "member-ann"); answers the ids. */
async function teamWithSeats(seats: number) {
  const bought = await buySeats(server, seller, product, seats, "team-buyer");
  await seller.sdk.customers.update({ id: bought.customerId, customerUpdate: { type: "team" } });
  const ann = await seller.sdk.members.createMember({ customerId: bought.customerId, email: uniqueBuyer("member-ann"), name: "Ann" });
  return { subscriptionId: bought.subscriptionId, teamId: bought.customerId, ann };
}

/** The grant webhooks of `type` naming `grantId`, validated by both SDKs. */
async function grantHooks(type: "benefit_grant.created" | "benefit_grant.revoked", grantId: string) {
  const hits = await receiver.until((all) => {
    const mine = all.filter((h) => h.path === HOOK && h.body.includes(grantId) && h.body.includes(`"${type}"`));
    return mine.length > 0 && mine;
  }, 30_000);
  return hits.map((hit) => {
    const event = validateEvent(hit.body, hit.headers, endpoint.secret);
    const event049 = validateEvent049(hit.body, hit.headers, endpoint.secret);
    expect([event.type, event049.type]).toEqual([type, type]);
    return { data: event.data as unknown as Record<string, unknown>, data049: event049.data as unknown as Record<string, unknown>, raw: JSON.parse(hit.body) as { data: Record<string, unknown> } };
  });
}

beforeAll(async () => {
  await receiver.start();
  server = await startServer({ TILL_WEBHOOKS_ALLOW_PRIVATE: "true" });
  seller = await createSeller(server, "member-grants");
  other = await createSeller(server, "member-grants-other");
  ({ benefitId, product } = await seatsProduct(seller, { description: "Team console", note: "Welcome" }));
  endpoint = await seller.sdk.webhooks.createWebhookEndpoint({
    url: `${receiver.url}${HOOK}`,
    format: "raw",
    events: ["benefit_grant.created", "benefit_grant.revoked", "customer_seat.claimed", "customer_seat.revoked"],
  });
  await server.worker.start();
}, 120_000);
afterAll(async () => {
  await server?.close();
  await receiver.stop();
});

describe("benefit grants of team members", () => {
  it("a member's claimed seat grants the benefit to the member (team customer, member_id), listed and filtered by both SDKs; revoking the seat revokes it", async () => {
    const team = await teamWithSeats(3);
    const seat = await seller.sdk.customerSeats.assignSeat({ subscriptionId: team.subscriptionId, memberId: team.ann.id });
    const claimed = await claimSeat(server, team.ann.email);
    // the seat stays the team's: no customer is made for the member
    expect(claimed.seat).toMatchObject({ id: seat.id, status: "claimed", customerId: team.teamId, memberId: team.ann.id });
    expect((await seller.sdk.customers.list({ email: team.ann.email })).result.items).toEqual([]);

    const all = (await seller.sdk.benefits.grants({ id: benefitId, customerId: team.teamId })).result.items;
    expect(all.map((g) => g.memberId ?? null).sort()).toEqual([team.ann.id, null].sort());
    const annGrant = all.find((g) => g.memberId === team.ann.id);
    expect(annGrant).toMatchObject({ customerId: team.teamId, subscriptionId: team.subscriptionId, isGranted: true, benefitId });
    expect(annGrant?.member).toMatchObject({ id: team.ann.id, email: team.ann.email, customerId: team.teamId, role: "member" });
    // the member_id filter, 0.47.1 and 0.49.0
    const only = await seller.sdk.benefits.grants({ id: benefitId, memberId: team.ann.id });
    expect(only.result.items.map((g) => g.id)).toEqual([annGrant?.id]);
    const only049 = await seller.sdk049.benefits.grants({ id: benefitId, memberId: [team.ann.id] });
    expect(only049.result.items.map((g) => [g.id, g.memberId, g.member?.email])).toEqual([[annGrant?.id, team.ann.id, team.ann.email]]);
    // the team's own grant stays as it was; benefitGrants.list shows both, with the member on the member's
    for (const sdk of [seller.sdk, seller.sdk049]) {
      const listed = (await sdk.benefitGrants.list({ customerId: team.teamId })).result.items;
      expect(listed.map((g) => [g.memberId ?? null, g.isGranted]).sort()).toEqual([[null, true], [team.ann.id, true]].sort());
    }

    // the webhook carries member_id and member; both SDKs validate it
    const [created] = await grantHooks("benefit_grant.created", annGrant?.id ?? "");
    expect(created?.raw.data).toMatchObject({ customer_id: team.teamId, member_id: team.ann.id, member: { id: team.ann.id, email: team.ann.email } });
    expect(created?.data049).toMatchObject({ memberId: team.ann.id, member: { id: team.ann.id } });

    // the claim's session is the member's, in the team's portal: it sees the team's grant and its own
    const portal = new Polar({ serverURL: server.url });
    const mine = await portal.customerPortal.benefitGrants.list({ customerSession: claimed.customerSessionToken }, {});
    expect(mine.result.items.map((g) => g.memberId ?? null).sort()).toEqual([team.ann.id, null].sort());
    const mine049 = await new Polar049({ serverURL: server.url }).customerPortal.benefitGrants.list({ customerSession: claimed.customerSessionToken }, { memberId: team.ann.id });
    expect(mine049.result.items.map((g) => g.id)).toEqual([annGrant?.id]);

    // revoking the seat revokes the member's grant only
    await seller.sdk.customerSeats.revokeSeat({ seatId: seat.id });
    const after = (await seller.sdk.benefits.grants({ id: benefitId, customerId: team.teamId })).result.items;
    expect(after.find((g) => g.id === annGrant?.id)).toMatchObject({ isGranted: false, isRevoked: true, memberId: team.ann.id });
    expect(after.find((g) => !g.memberId)).toMatchObject({ isGranted: true });
    expect((await seller.sdk.benefits.grants({ id: benefitId, memberId: team.ann.id, isGranted: true })).result.items).toEqual([]);
    const [revoked] = await grantHooks("benefit_grant.revoked", annGrant?.id ?? "");
    expect(revoked?.raw.data).toMatchObject({ member_id: team.ann.id, is_revoked: true, member: { id: team.ann.id } });
  }, 90_000);

  it("a plain member's portal shows the team's grant and its own, not another member's; the owner's shows every one", async () => {
    const team = await teamWithSeats(3);
    const bob = await seller.sdk.members.createMember({ customerId: team.teamId, email: uniqueBuyer("member-bob"), name: "Bob" });
    for (const m of [team.ann, bob]) {
      const s = await seller.sdk.customerSeats.assignSeat({ subscriptionId: team.subscriptionId, memberId: m.id, immediateClaim: true });
      expect(s).toMatchObject({ status: "claimed", memberId: m.id, customerId: team.teamId });
    }
    const sessionOf = async (memberId?: string) =>
      (await seller.sdk.customerSessions.create({ customerId: team.teamId, memberId: memberId ?? null })).token;
    const portal = new Polar({ serverURL: server.url });
    const seen = async (token: string) =>
      (await portal.customerPortal.benefitGrants.list({ customerSession: token }, {})).result.items.map((g) => g.memberId ?? "team").sort();
    expect(await seen(await sessionOf(team.ann.id))).toEqual([team.ann.id, "team"].sort());
    expect(await seen(await sessionOf())).toEqual([team.ann.id, bob.id, "team"].sort());
    // a grant of another member is a 404 to Ann
    const bobGrant = (await seller.sdk.benefits.grants({ id: benefitId, memberId: bob.id })).result.items[0];
    await expect(portal.customerPortal.benefitGrants.get({ customerSession: await sessionOf(team.ann.id) }, { id: bobGrant?.id ?? "" })).rejects.toMatchObject({ statusCode: 404 });
  }, 90_000);

  it("removing a member revokes its seat and its grants (the webhooks name the member)", async () => {
    const team = await teamWithSeats(2);
    const seat = await seller.sdk.customerSeats.assignSeat({ subscriptionId: team.subscriptionId, memberId: team.ann.id, immediateClaim: true });
    const grant = (await seller.sdk.benefits.grants({ id: benefitId, memberId: team.ann.id })).result.items[0];
    expect(grant?.isGranted).toBe(true);
    await seller.sdk049.customers.members.delete({ id: team.teamId, memberId: team.ann.id });
    const seats = await seller.sdk.customerSeats.listSeats({ subscriptionId: team.subscriptionId });
    expect(seats.seats.find((s) => s.id === seat.id)?.status).toBe("revoked");
    expect(seats.availableSeats).toBe(2);
    const [revoked] = await grantHooks("benefit_grant.revoked", grant?.id ?? "");
    expect(revoked?.raw.data).toMatchObject({ member_id: team.ann.id, member: { id: team.ann.id }, customer_id: team.teamId });
    // the team keeps its own grant
    const left = (await seller.sdk.benefitGrants.list({ customerId: team.teamId, isGranted: true })).result.items;
    expect(left.map((g) => g.memberId ?? null)).toEqual([null]);
  }, 90_000);

  it("a benefit added to the product is granted to each member holding a seat too, naming the member", async () => {
    const extra = await seller.sdk.benefits.create({ type: "custom", description: "Extra seat perk", properties: { note: null } });
    const p = await createProduct(seller, "seats");
    await seller.sdk.products.updateBenefits({ id: p.id, productBenefitsUpdate: { benefits: [benefitId] } });
    const buyer = uniqueBuyer("team-regrant");
    const checkout = await seller.sdk.checkouts.create({ products: [p.id], seats: 2 });
    await pay(server, checkout, { customerEmail: buyer });
    const [sub] = (await seller.sdk.subscriptions.list({ productId: p.id, limit: 10 })).result.items;
    await seller.sdk.customers.update({ id: sub!.customerId, customerUpdate: { type: "team" } });
    const dan = await seller.sdk.members.createMember({ customerId: sub!.customerId, email: uniqueBuyer("member-dan") });
    await seller.sdk.customerSeats.assignSeat({ subscriptionId: sub!.id, memberId: dan.id, immediateClaim: true });
    await seller.sdk.products.updateBenefits({ id: p.id, productBenefitsUpdate: { benefits: [benefitId, extra.id] } });
    const granted = await eventually(async () => {
      const items = (await seller.sdk.benefits.grants({ id: extra.id, customerId: sub!.customerId, isGranted: true })).result.items;
      return items.length === 2 && items;
    }, 30_000);
    expect(granted.map((g) => g.memberId ?? null).sort()).toEqual([dan.id, null].sort());
    expect(granted.find((g) => g.memberId === dan.id)?.member?.email).toBe(dan.email);
  }, 90_000);

  it("another organization sees nothing: its member_id filter matches none, the seller's benefit is a 404; a malformed member_id is a 422", async () => {
    const team = await teamWithSeats(1);
    await seller.sdk.customerSeats.assignSeat({ subscriptionId: team.subscriptionId, memberId: team.ann.id, immediateClaim: true });
    await expect(other.sdk.benefits.grants({ id: benefitId, memberId: team.ann.id })).rejects.toMatchObject({ statusCode: 404 });
    const own = await other.sdk.benefits.create({ type: "custom", description: "Other perk", properties: { note: null } });
    for (const sdk of [other.sdk, other.sdk049]) {
      expect((await sdk.benefits.grants({ id: own.id, memberId: team.ann.id })).result.items).toEqual([]);
    }
    expect((await raw(seller.token, "GET", `/v1/benefits/${benefitId}/grants?member_id=ann`)).status).toBe(422);
  }, 90_000);
});
