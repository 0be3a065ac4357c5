// Customer seats: after a seat-based purchase the seller (customerSeats) and the buyer
// (customerPortal.seats) hand seats out by email; the invitation is mailed once per invitation (read from the
// SMTP peer), the claim (by its token, public) makes the person a customer of the seller with the product's
// benefits, and revoking the seat revokes those grants. Seats never outnumber the purchase (also under
// concurrent assignments), other organizations and the sandbox see nothing, and both SDK versions parse every
// answer and the seat webhooks.
import { Polar } from "@polar-sh/sdk";
import type { Product } from "@polar-sh/sdk/models/components/product.js";
import { Polar as Polar049 } from "polar-sdk-049";
import { validateEvent } from "@polar-sh/sdk/webhooks";
import { validateEvent as validateEvent049 } from "polar-sdk-049/webhooks";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { customerEmail, outbox } from "../../server/db/schema/index.js";
import { rawRequest } from "../helpers/api.js";
import { Receiver } from "../helpers/receiver.js";
import { createProduct, pay, publicSdk, uniqueBuyer } from "../helpers/checkout.js";
import { createSeller, sdkFor, type Seller } from "../helpers/seller.js";
import { buySeats, invitationToken, seatsProduct } from "../helpers/seats.js";
import { startServer, type TestServer } from "../helpers/server.js";

let server: TestServer;
const receiver = new Receiver();
let seller: Seller;
let other: Seller;
let benefitId: string;
let product: Product;

const raw = (token: string, method: string, path: string, body?: unknown) => rawRequest(server.url, token, method, path, body);

async function keyed(token: string, path: string, body: unknown, key: string) {
  const res = await fetch(`${server.url}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json", "idempotency-key": key },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as unknown };
}

async function grantsOf(customerId: string) {
  return (await seller.sdk.benefitGrants.list({ customerId, limit: 100 })).result.items;
}

beforeAll(async () => {
  await receiver.start();
  server = await startServer({ TILL_WEBHOOKS_ALLOW_PRIVATE: "true" });
  seller = await createSeller(server, "seats");
  other = await createSeller(server, "seats-other");
  ({ benefitId, product } = await seatsProduct(seller, { description: "Team workspace", note: "Welcome aboard" }));
  await server.worker.start();
}, 120_000);
afterAll(async () => {
  await server?.close();
  await receiver.stop();
});

describe("customerSeats (seller)", () => {
  it("assigns, lists, mails the invitation, claims, and revokes — with both SDKs", async () => {
    const bought = await buySeats(server, seller, product, 3);
    const email = uniqueBuyer("seat-holder");
    const seat = await seller.sdk.customerSeats.assignSeat({ subscriptionId: bought.subscriptionId, email, metadata: { team: "core" } });
    expect(seat).toMatchObject({ status: "pending", email, subscriptionId: bought.subscriptionId, customerId: null, seatMetadata: { team: "core" } });
    expect(seat.invitationTokenExpiresAt?.getTime()).toBeGreaterThan(Date.now() + 6 * 24 * 3600_000);

    for (const list of [
      await seller.sdk.customerSeats.listSeats({ subscriptionId: bought.subscriptionId }),
      await seller.sdk049.customerSeats.listSeats({ subscriptionId: bought.subscriptionId }),
    ]) {
      expect(list.totalSeats).toBe(3);
      expect(list.availableSeats).toBe(2);
      expect(list.seats.map((s) => s.id)).toEqual([seat.id]);
    }

    // the invitation: from the seller, HTML and text, with the claim link; the token never reaches a webhook
    const mail = await server.mailbox.waitFor(email, /seat/);
    const org = await seller.sdk.organizations.get({ id: seller.organizationId });
    expect(mail.fromName).toBe(org.name);
    expect(mail.subject).toBe(`You have been given a seat of ${product.name} from ${org.name}`);
    expect(mail.html).toContain("Claim your seat");
    expect(mail.text).toContain(product.name);
    const token = await invitationToken(server, email, mail);
    expect(token).toMatch(/^till_seat_/);
    const events = await server.database.db.select().from(outbox).where(eq(outbox.organizationId, seller.organizationId));
    expect(JSON.stringify(events.map((e) => e.payload))).not.toContain(token);
    // nor does the sent email's row keep it
    await expect
      .poll(async () => (await server.database.db.select().from(customerEmail).where(eq(customerEmail.recipient, email)))[0]?.sentAt ?? null)
      .not.toBeNull();
    const [sentRow] = await server.database.db.select().from(customerEmail).where(eq(customerEmail.recipient, email));
    expect(JSON.stringify(sentRow?.data)).not.toContain(token);
    expect(sentRow?.data).toMatchObject({ seat_id: seat.id, email });

    const info = await publicSdk(server).customerSeats.getClaimInfo({ invitationToken: token });
    expect(info).toEqual({
      productName: product.name,
      productId: product.id,
      organizationName: org.name,
      organizationSlug: org.slug,
      customerEmail: email,
      canClaim: true,
    });
    const info049 = await new Polar049({ serverURL: server.url }).customerSeats.getClaimInfo({ invitationToken: token });
    expect(info049.canClaim).toBe(true);

    // the claim makes the person a customer with the product's benefit, and a portal session
    const claimed = await publicSdk(server).customerSeats.claimSeat({ invitationToken: token });
    expect(claimed.seat).toMatchObject({ id: seat.id, status: "claimed", customerEmail: email });
    expect(claimed.seat.claimedAt).toBeInstanceOf(Date);
    const holderId = claimed.seat.customerId ?? "";
    const holder = await seller.sdk.customers.get({ id: holderId });
    expect(holder.email).toBe(email);
    expect((await grantsOf(holderId)).map((g) => [g.benefitId, g.isGranted])).toEqual([[benefitId, true]]);
    const portal = new Polar({ serverURL: server.url });
    const me = await portal.customerPortal.customers.get({ customerSession: claimed.customerSessionToken });
    expect(me.email).toBe(email);
    const claimedSubs = await portal.customerPortal.seats.listClaimedSubscriptions({ customerSession: claimed.customerSessionToken }, {});
    expect(claimedSubs.result.items.map((s) => s.id)).toEqual([bought.subscriptionId]);
    const claimedSubs049 = await new Polar049({ serverURL: server.url }).customerPortal.seats.listClaimedSubscriptions(
      { customerSession: claimed.customerSessionToken },
      {},
    );
    expect(claimedSubs049.result.items.map((s) => s.id)).toEqual([bought.subscriptionId]);

    // the token is spent
    await expect(publicSdk(server).customerSeats.claimSeat({ invitationToken: token })).rejects.toMatchObject({ statusCode: 404 });
    const again = await fetch(`${server.url}/v1/customer-seats/claim/${token}`);
    expect(again.status).toBe(404);

    // revoking the seat revokes the holder's grant; the buyer keeps their own
    const revoked = await seller.sdk049.customerSeats.revokeSeat({ seatId: seat.id });
    expect(revoked).toMatchObject({ status: "revoked", customerId: holderId });
    expect(revoked.revokedAt).toBeInstanceOf(Date);
    expect((await grantsOf(holderId)).map((g) => g.isGranted)).toEqual([false]);
    expect((await grantsOf(bought.customerId)).map((g) => g.isGranted)).toEqual([true]);
    const after = await seller.sdk.customerSeats.listSeats({ subscriptionId: bought.subscriptionId });
    expect(after.availableSeats).toBe(3);
  });

  it("delivers customer_seat.*, the grant events and customer.state_changed to an endpoint; both SDKs validate them", async () => {
    const path = "/seats";
    const endpoint = await seller.sdk.webhooks.createWebhookEndpoint({
      url: `${receiver.url}${path}`,
      format: "raw",
      events: ["customer_seat.assigned", "customer_seat.claimed", "customer_seat.revoked", "benefit_grant.created", "benefit_grant.revoked", "customer.state_changed"],
    });
    const bought = await buySeats(server, seller, product, 2);
    const email = uniqueBuyer("seat-events");
    const seat = await seller.sdk.customerSeats.assignSeat({ subscriptionId: bought.subscriptionId, email, immediateClaim: true });
    expect(seat.status).toBe("claimed");
    await seller.sdk.customerSeats.revokeSeat({ seatId: seat.id });
    const holderId = seat.customerId ?? "";
    const wanted = ["customer_seat.assigned", "customer_seat.claimed", "customer_seat.revoked", "benefit_grant.created", "benefit_grant.revoked", "customer.state_changed"];
    const events = await receiver.until((all) => {
      const mine = all
        .filter((h) => h.path === path)
        .map((h) => ({ hit: h, event: validateEvent(h.body, h.headers, endpoint.secret) }))
        .filter(({ event }) => JSON.stringify(event.data).includes(holderId) || JSON.stringify(event.data).includes(seat.id));
      return wanted.every((t) => mine.some((m) => m.event.type === t)) && mine;
    }, 30_000);
    for (const { hit, event } of events) {
      expect(validateEvent049(hit.body, hit.headers, endpoint.secret).type).toBe(event.type);
    }
    const ofType = (t: string) => events.filter((e) => e.event.type === t).map((e) => e.event.data as unknown as Record<string, unknown>);
    expect(ofType("customer_seat.revoked")[0]).toMatchObject({ id: seat.id, status: "revoked", customerId: holderId });
    expect(ofType("benefit_grant.revoked")[0]).toMatchObject({ customerId: holderId, benefitId });
    // immediate_claim sends no invitation
    const mails = await server.database.db.select().from(customerEmail).where(eq(customerEmail.recipient, email));
    expect(mails).toEqual([]);
  });

  it("mails the invitation even when every customer_email_setting is off (no setting covers it)", async () => {
    const quiet = await createSeller(server, "seats-quiet");
    const off = Object.fromEntries([
      "order_confirmation", "subscription_confirmation", "subscription_cycled", "subscription_updated",
      "subscription_cancellation", "subscription_uncanceled", "subscription_past_due", "subscription_revoked",
    ].map((k) => [k, false]));
    const patched = await raw(quiet.token, "PATCH", `/v1/organizations/${quiet.organizationId}`, { customer_email_settings: off });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    const p = await createProduct(quiet, "seats");
    const bought = await buySeats(server, quiet, p, 1);
    const email = uniqueBuyer("quiet-seat");
    await quiet.sdk.customerSeats.assignSeat({ subscriptionId: bought.subscriptionId, email });
    expect((await server.mailbox.waitFor(email, /seat/)).subject).toContain(p.name);
    const receipts = await server.database.db.select().from(customerEmail).where(eq(customerEmail.recipient, bought.buyer));
    expect(receipts).toEqual([]);
  });

  it("never assigns more seats than were bought, also when assignments race", async () => {
    const bought = await buySeats(server, seller, product, 3);
    const attempts = await Promise.allSettled(
      Array.from({ length: 8 }, (_, i) => seller.sdk.customerSeats.assignSeat({ subscriptionId: bought.subscriptionId, email: `racer-${i}-${Date.now()}@example.com` })),
    );
    expect(attempts.filter((a) => a.status === "fulfilled")).toHaveLength(3);
    for (const a of attempts.filter((x): x is PromiseRejectedResult => x.status === "rejected")) {
      expect(a.reason).toMatchObject({ name: "HTTPValidationError" });
      expect(JSON.stringify((a.reason as { detail: unknown }).detail)).toContain("No seats available");
    }
    const list = await seller.sdk.customerSeats.listSeats({ subscriptionId: bought.subscriptionId });
    expect(list.seats.filter((s) => s.status !== "revoked")).toHaveLength(3);
    expect(list.availableSeats).toBe(0);
  });

  it("does not let the subscription's seats go below the assigned ones", async () => {
    const bought = await buySeats(server, seller, product, 3);
    for (const tag of ["lower-a", "lower-b"]) await seller.sdk.customerSeats.assignSeat({ subscriptionId: bought.subscriptionId, email: uniqueBuyer(tag) });
    const below = await raw(seller.token, "PATCH", `/v1/subscriptions/${bought.subscriptionId}`, { seats: 1 });
    expect(below.status).toBe(422);
    expect(JSON.stringify(below.body)).toContain("2 seats are assigned");
    const session = await seller.sdk.customerSessions.create({ customerId: bought.customerId });
    const fromPortal = await raw(session.token, "PATCH", `/v1/customer-portal/subscriptions/${bought.subscriptionId}`, { seats: 1 });
    expect(fromPortal.status).toBe(422);
    const down = await raw(seller.token, "PATCH", `/v1/subscriptions/${bought.subscriptionId}`, { seats: 2 });
    expect(down.status, JSON.stringify(down.body)).toBe(200);
    expect((await seller.sdk.customerSeats.listSeats({ subscriptionId: bought.subscriptionId })).availableSeats).toBe(0);
  });

  it("a product change of the subscription re-grants its seat holders: the new benefits granted, the dropped ones revoked", async () => {
    const bought = await buySeats(server, seller, product, 2);
    const email = uniqueBuyer("regrant");
    const seat = await seller.sdk.customerSeats.assignSeat({ subscriptionId: bought.subscriptionId, email, immediateClaim: true });
    const holderId = seat.customerId ?? "";
    const { benefitId: otherBenefitId, product: next } = await seatsProduct(seller, { description: "Other workspace", note: null });
    const changed = await raw(seller.token, "PATCH", `/v1/subscriptions/${bought.subscriptionId}`, { product_id: next.id });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    const grants = await grantsOf(holderId);
    expect(grants.map((g) => [g.benefitId, g.isGranted]).sort()).toEqual([[benefitId, false], [otherBenefitId, true]].sort());
    expect((await grantsOf(bought.customerId)).filter((g) => g.isGranted).map((g) => g.benefitId)).toEqual([otherBenefitId]);
  });

  it("refuses a second seat for one email, a product without seats, and a malformed member id (422, nothing changed)", async () => {
    const bought = await buySeats(server, seller, product, 5);
    const email = uniqueBuyer("twice");
    await seller.sdk.customerSeats.assignSeat({ subscriptionId: bought.subscriptionId, email });
    const twice = await raw(seller.token, "POST", "/v1/customer-seats", { subscription_id: bought.subscriptionId, email: email.toUpperCase() });
    expect(twice.status).toBe(422);
    expect(JSON.stringify(twice.body)).toContain("already has a seat");

    const plain = await createProduct(seller, "monthly");
    const checkout = await seller.sdk.checkouts.create({ products: [plain.id] });
    await pay(server, checkout);
    const order = (await seller.sdk.orders.list({ productId: plain.id })).result.items[0]!;
    const noSeats = await raw(seller.token, "POST", "/v1/customer-seats", { subscription_id: order.subscriptionId, email: uniqueBuyer() });
    expect(noSeats.status).toBe(422);
    expect(JSON.stringify(noSeats.body)).toContain("not sold per seat");

    const member = await raw(seller.token, "POST", "/v1/customer-seats", { subscription_id: bought.subscriptionId, member_id: "m1" });
    expect(member.status).toBe(422);
    const neither = await raw(seller.token, "GET", "/v1/customer-seats");
    expect(neither.status).toBe(422);
    expect((await seller.sdk.customerSeats.listSeats({ subscriptionId: bought.subscriptionId })).seats).toHaveLength(1);
  });

  it("assigns a seat to a member of the buyer's team (member_id, external_member_id), shown with the member by both SDKs", async () => {
    const bought = await buySeats(server, seller, product, 3);
    await seller.sdk.customers.update({ id: bought.customerId, customerUpdate: { type: "team" } });
    const ann = await seller.sdk.members.createMember({ customerId: bought.customerId, email: uniqueBuyer("member-ann"), name: "Ann" });
    const bob = await seller.sdk049.customers.members.create({ id: bought.customerId, memberCreateFromCustomer: { email: uniqueBuyer("member-bob"), externalId: "bob" } });
    const seat = await seller.sdk.customerSeats.assignSeat({ subscriptionId: bought.subscriptionId, memberId: ann.id });
    expect(seat).toMatchObject({ memberId: ann.id, email: ann.email, status: "pending" });
    expect(seat.member?.email).toBe(ann.email);
    const seat049 = await seller.sdk049.customerSeats.assignSeat({ subscriptionId: bought.subscriptionId, externalMemberId: "bob" });
    expect(seat049.memberId).toBe(bob.id);
    const listed = await seller.sdk049.customerSeats.listSeats({ subscriptionId: bought.subscriptionId });
    expect(listed.seats.map((x) => x.member?.id).sort()).toEqual([ann.id, bob.id].sort());
    // a member of another customer (or none) is refused, and so is a second seat for the same member
    const stranger = await seller.sdk.customers.create({ type: "team", email: uniqueBuyer("other-team") });
    const [strangerOwner] = (await seller.sdk.members.listMembers({ customerId: stranger.id })).result.items;
    const foreign = await raw(seller.token, "POST", "/v1/customer-seats", { subscription_id: bought.subscriptionId, member_id: strangerOwner!.id });
    expect(foreign.status).toBe(422);
    expect(JSON.stringify(foreign.body)).toContain("Member does not exist");
    const again = await raw(seller.token, "POST", "/v1/customer-seats", { subscription_id: bought.subscriptionId, member_id: ann.id });
    expect(again.status).toBe(422);
    expect(JSON.stringify(again.body)).toContain("already has a seat");
  });

  it("assigns by customer id and by checkout id, and resends with a new token (the old one stops working)", async () => {
    const bought = await buySeats(server, seller, product, 3);
    const knownEmail = uniqueBuyer("known");
    const known = await seller.sdk.customers.create({ email: knownEmail, externalId: `ext-${Date.now()}` });
    const byId = await seller.sdk.customerSeats.assignSeat({ checkoutId: bought.checkoutId, externalCustomerId: known.externalId ?? "" });
    expect(byId).toMatchObject({ customerId: known.id, email: knownEmail, customerEmail: knownEmail, subscriptionId: bought.subscriptionId });
    const first = await invitationToken(server, knownEmail);
    const resent = await seller.sdk049.customerSeats.resendInvitation({ seatId: byId.id });
    expect(resent.status).toBe("pending");
    const second = await invitationToken(server, knownEmail);
    expect(second).not.toBe(first);
    expect((await fetch(`${server.url}/v1/customer-seats/claim/${first}`)).status).toBe(404);
    const claimed = await publicSdk(server).customerSeats.claimSeat({ invitationToken: second });
    expect(claimed.seat.customerId).toBe(known.id);
    // one email per invitation: the assignment's and the resend's, no more
    const rows = await server.database.db.select().from(customerEmail).where(eq(customerEmail.recipient, knownEmail));
    expect(rows.map((r) => r.type)).toEqual(["seat_invitation", "seat_invitation"]);
    const resendClaimed = await raw(seller.token, "POST", `/v1/customer-seats/${byId.id}/resend`, {});
    expect(resendClaimed.status).toBe(422);
  });
});

describe("customerPortal.seats (buyer)", () => {
  it("the buyer assigns, lists, resends and revokes their own seats; another customer's are 404", async () => {
    const bought = await buySeats(server, seller, product, 2);
    const session = await seller.sdk.customerSessions.create({ customerId: bought.customerId });
    const portal = new Polar({ serverURL: server.url });
    const portal049 = new Polar049({ serverURL: server.url });
    const sec = { customerSession: session.token };
    const email = uniqueBuyer("colleague");
    const seat = await portal.customerPortal.seats.assignSeat(sec, { subscriptionId: bought.subscriptionId, email });
    expect(seat.status).toBe("pending");
    const list = await portal049.customerPortal.seats.listSeats(sec, { subscriptionId: bought.subscriptionId });
    expect(list).toMatchObject({ totalSeats: 2, availableSeats: 1 });
    expect((await portal.customerPortal.seats.resendInvitation(sec, { seatId: seat.id })).id).toBe(seat.id);
    await invitationToken(server, email);
    const immediate = await raw(session.token, "POST", "/v1/customer-portal/seats", { subscription_id: bought.subscriptionId, email: uniqueBuyer(), immediate_claim: true });
    expect(immediate.status).toBe(422);

    // someone else's purchase and seat are missing for this buyer
    const elses = await buySeats(server, seller, product, 2);
    const elseSeat = await seller.sdk.customerSeats.assignSeat({ subscriptionId: elses.subscriptionId, email: uniqueBuyer() });
    expect((await raw(session.token, "GET", `/v1/customer-portal/seats?subscription_id=${elses.subscriptionId}`)).status).toBe(404);
    expect((await raw(session.token, "DELETE", `/v1/customer-portal/seats/${elseSeat.id}`)).status).toBe(404);
    expect((await raw(session.token, "POST", `/v1/customer-portal/seats/${elseSeat.id}/resend`, {})).status).toBe(404);

    const revoked = await portal049.customerPortal.seats.revokeSeat(sec, { seatId: seat.id });
    expect(revoked.status).toBe("revoked");
    expect((await raw("till_cst_nope", "GET", `/v1/customer-portal/seats?subscription_id=${bought.subscriptionId}`)).status).toBe(401);
  });
});

describe("tenancy, scopes, sandbox and idempotency", () => {
  it("another organization's key and the sandbox see no seat of this one", async () => {
    const bought = await buySeats(server, seller, product, 2);
    const seat = await seller.sdk.customerSeats.assignSeat({ subscriptionId: bought.subscriptionId, email: uniqueBuyer() });
    for (const token of [other.token, await seller.createSandboxKey()]) {
      const sdk = sdkFor(server, token);
      await expect(sdk.customerSeats.listSeats({ subscriptionId: bought.subscriptionId })).rejects.toMatchObject({ statusCode: 404 });
      await expect(sdk.customerSeats.revokeSeat({ seatId: seat.id })).rejects.toMatchObject({ statusCode: 404 });
      await expect(sdk.customerSeats.resendInvitation({ seatId: seat.id })).rejects.toMatchObject({ statusCode: 404 });
      const assign = await raw(token, "POST", "/v1/customer-seats", { subscription_id: bought.subscriptionId, email: uniqueBuyer() });
      expect(assign.status).toBe(404);
    }
    expect((await seller.sdk.customerSeats.listSeats({ subscriptionId: bought.subscriptionId })).seats).toHaveLength(1);
  });

  it("needs customer_seats:read to list and customer_seats:write to assign", async () => {
    const bought = await buySeats(server, seller, product, 2);
    const readOnly = await seller.createKey({ customer_seats: ["read"] });
    expect((await raw(readOnly, "GET", `/v1/customer-seats?subscription_id=${bought.subscriptionId}`)).status).toBe(200);
    expect((await raw(readOnly, "POST", "/v1/customer-seats", { subscription_id: bought.subscriptionId, email: uniqueBuyer() })).status).toBe(403);
    const none = await seller.createKey({ products: ["read"] });
    expect((await raw(none, "GET", `/v1/customer-seats?subscription_id=${bought.subscriptionId}`)).status).toBe(403);
  });

  it("an assignment repeated with its Idempotency-Key is answered again, not made twice", async () => {
    const bought = await buySeats(server, seller, product, 4);
    const body = { subscription_id: bought.subscriptionId, email: uniqueBuyer("idem") };
    const key = `seat-${Date.now()}`;
    const first = await keyed(seller.token, "/v1/customer-seats", body, key);
    const second = await keyed(seller.token, "/v1/customer-seats", body, key);
    expect(first.status).toBe(200);
    expect(second.body).toEqual(first.body);
    expect((await seller.sdk.customerSeats.listSeats({ subscriptionId: bought.subscriptionId })).seats).toHaveLength(1);
  });
});
