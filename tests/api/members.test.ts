// Team customers: Polar's members API through both SDKs (members.* of 0.47.1, customers.members.*
// and members.list of 0.49.0; each SDK validates its answers), the one-owner rule, emails unique per customer,
// tenancy, the customer portal's members routes by role (owner, billing manager, member), a member's session
// (by the seller's customer session and by the portal's email code) and the member.* webhooks both SDKs validate.
import { Polar } from "@polar-sh/sdk";
import { Polar as Polar049 } from "polar-sdk-049";
import { validateEvent } from "@polar-sh/sdk/webhooks";
import { validateEvent as validateEvent049 } from "polar-sdk-049/webhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawRequest } from "../helpers/api.js";
import { uniqueEmail } from "../helpers/client.js";
import { Receiver, eventually } from "../helpers/receiver.js";
import { createSeller, sdk049For, sdkFor, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";

let server: TestServer;
let seller: Seller;
let other: Seller;
let receiver: Receiver;
let key: string;
let sdk: Polar;
let sdk049: Polar049;
let endpointSecret: string;

const raw = (method: string, path: string, body?: unknown, token = key) => rawRequest(server.url, token, method, path, body);

beforeAll(async () => {
  receiver = new Receiver();
  await receiver.start();
  server = await startServer({ TILL_WEBHOOKS_ALLOW_PRIVATE: "true" });
  await server.worker.start();
  seller = await createSeller(server, "members");
  other = await createSeller(server, "members-other");
  key = await seller.createKey();
  sdk = sdkFor(server, key);
  sdk049 = sdk049For(server, key);
  const endpoint = await sdk.webhooks.createWebhookEndpoint({ url: `${receiver.url}/members`, format: "raw", events: ["member.created", "member.updated", "member.deleted"] });
  endpointSecret = endpoint.secret;
});
afterAll(async () => {
  await server?.close();
  await receiver?.stop();
});

const portalOf = (token: string) => ({ v047: new Polar({ serverURL: server.url, accessToken: token }), v049: new Polar049({ serverURL: server.url, accessToken: token }) });

describe("members API (seller)", () => {
  it("a team customer is created with its owner; members are added, listed, changed and removed through both SDKs", async () => {
    // names of this run's own (a retried test meets none of the first run's)
    const acme = `acme-${Date.now().toString(36)}`;
    const [acmeEmail, globex, soloEmail] = [uniqueEmail("acme"), uniqueEmail("globex"), uniqueEmail("solo")];
    const team = await sdk.customers.create({ type: "team", email: acmeEmail, name: "Acme", externalId: acme, owner: { email: "Olga@Example.com", name: "Olga", externalId: "olga" } });
    expect(team.type).toBe("team");

    const owners = await sdk.members.listMembers({ customerId: team.id });
    expect(owners.result.items.map((m) => [m.email, m.role, m.externalId])).toEqual([["olga@example.com", "owner", "olga"]]);
    const owner = owners.result.items[0]!;

    // 0.47.1: POST /v1/members/
    const bill = await sdk.members.createMember({ customerId: team.id, email: "bill@example.com", name: "Bill", externalId: "bill", role: "billing_manager" });
    expect(bill).toMatchObject({ customerId: team.id, email: "bill@example.com", role: "billing_manager", externalId: "bill" });
    // 0.49.0: POST /v1/customers/{id}/members and …/external/{external_id}/members
    const mia = await sdk049.customers.members.create({ id: team.id, memberCreateFromCustomer: { email: "mia@example.com", name: "Mia" } });
    expect(mia.role).toBe("member");
    const max = await sdk049.customers.members.createExternal({ externalId: acme, memberCreateFromCustomer: { email: "max@example.com", externalId: "max" } });

    expect((await sdk.members.getMember({ id: mia.id })).email).toBe("mia@example.com");
    expect((await sdk049.customers.members.get({ id: team.id, memberId: bill.id })).name).toBe("Bill");
    expect((await sdk049.customers.members.getExternal({ externalId: acme, memberExternalId: "max" })).id).toBe(max.id);
    expect((await sdk.members.getMemberByExternalId({ externalId: "bill", externalCustomerId: acme })).id).toBe(bill.id);

    // lists: both SDKs, filters by role and by the customer's external id, pages
    const all049 = await sdk049.members.listMembers({ externalCustomerId: acme, limit: 2 });
    expect(all049.result.pagination).toEqual({ totalCount: 4, maxPage: 2 });
    expect((await sdk.members.listMembers({ customerId: team.id, role: "member" })).result.items.map((m) => m.email).sort()).toEqual(["max@example.com", "mia@example.com"]);

    const renamed = await sdk.members.updateMember({ id: mia.id, memberUpdate: { name: "Mia R." } });
    expect(renamed.name).toBe("Mia R.");
    const promoted = await sdk049.customers.members.update({ id: team.id, memberId: max.id, memberUpdate: { role: "billing_manager" } });
    expect(promoted.role).toBe("billing_manager");
    expect((await sdk.members.updateMemberByExternalId({ externalId: "max", customerId: team.id, memberUpdate: { role: "member" } })).role).toBe("member");

    await sdk.members.deleteMember({ id: mia.id });
    await sdk049.customers.members.deleteExternal({ externalId: acme, memberExternalId: "max" });
    expect((await raw("GET", `/v1/members/${mia.id}`)).status).toBe(404);
    expect((await sdk.members.listMembers({ customerId: team.id })).result.items.map((m) => m.id)).toEqual([owner.id, bill.id]);

    // ownership is handed on by an update; the owner is never demoted or removed otherwise
    const demote = await raw("PATCH", `/v1/members/${owner.id}`, { role: "member" });
    expect(demote.status).toBe(422);
    expect(JSON.stringify(demote.body)).toContain("exactly one owner");
    const removeOwner = await raw("DELETE", `/v1/members/${owner.id}`);
    expect(removeOwner.status).toBe(403);
    expect(removeOwner.body.error).toBe("NotPermitted");
    const handed = await sdk.members.updateMember({ id: bill.id, memberUpdate: { role: "owner" } });
    expect(handed.role).toBe("owner");
    expect((await sdk.members.getMember({ id: owner.id })).role).toBe("billing_manager");
    expect((await sdk.members.listMembers({ customerId: team.id, role: "owner" })).result.items.map((m) => m.id)).toEqual([bill.id]);

    // emails (any case) and external ids are unique within the customer, not across customers
    const dup = await raw("POST", "/v1/members/", { customer_id: team.id, email: "BILL@example.com" });
    expect(dup.status).toBe(422);
    expect((dup.body.detail as Array<{ loc: unknown[] }>)[0]!.loc).toEqual(["body", "email"]);
    expect((await raw("POST", `/v1/customers/${team.id}/members`, { email: "new@example.com", external_id: "olga" })).status).toBe(422);
    // nobody is created as owner
    expect((await raw("POST", `/v1/customers/${team.id}/members`, { email: "x@example.com", role: "owner" })).status).toBe(422);
    const team2 = await sdk.customers.create({ type: "team", email: globex });
    expect((await sdk.members.createMember({ customerId: team2.id, email: "bill@example.com" })).customerId).toBe(team2.id);
    // the second team's owner is the customer itself
    expect((await sdk.members.listMembers({ customerId: team2.id, role: "owner" })).result.items[0]?.email).toBe(globex);

    // individual customers have no members; an individual can become a team, never back
    const solo = await sdk.customers.create({ email: soloEmail, name: "Solo" });
    expect(solo.type).toBe("individual");
    const refused = await raw("POST", "/v1/members/", { customer_id: solo.id, email: "friend@example.com" });
    expect(refused.status).toBe(403);
    const upgraded = await sdk.customers.update({ id: solo.id, customerUpdate: { type: "team" } });
    expect(upgraded.type).toBe("team");
    expect((await sdk.members.listMembers({ customerId: solo.id })).result.items.map((m) => [m.email, m.role])).toEqual([[soloEmail, "owner"]]);
    expect((await raw("PATCH", `/v1/customers/${solo.id}`, { type: "individual" })).status).toBe(422);
    // both SDKs parse a team customer
    expect((await sdk049.customers.get({ id: team.id })).type).toBe("team");
  });

  it("answers 404 for another organization's members and customers, and 422 for bad input", async () => {
    const team = await sdk.customers.create({ type: "team", email: uniqueEmail("tenant-team") });
    const [owner] = (await sdk.members.listMembers({ customerId: team.id })).result.items;
    const otherKey = await other.createKey();
    for (const [method, path] of [
      ["GET", `/v1/members/${owner!.id}`],
      ["PATCH", `/v1/members/${owner!.id}`],
      ["DELETE", `/v1/members/${owner!.id}`],
      ["GET", `/v1/customers/${team.id}/members/${owner!.id}`],
      ["POST", `/v1/customers/${team.id}/members`],
      ["GET", `/v1/customers/${team.id}/members`],
    ] as const) {
      const res = await raw(method, path, method === "POST" ? { email: "intruder@example.com" } : method === "PATCH" ? { name: "x" } : undefined, otherKey);
      expect(res.status, `${method} ${path}`).toBe(404);
    }
    expect((await raw("POST", "/v1/members/", { customer_id: team.id, email: "intruder@example.com" }, otherKey)).status).toBe(404);
    expect((await rawRequest(server.url, otherKey, "GET", `/v1/members/?customer_id=${team.id}`)).body.items).toEqual([]);
    expect((await raw("POST", "/v1/members/", { customer_id: team.id, email: "not-an-email" })).status).toBe(422);
    expect((await raw("GET", "/v1/members/external/olga")).status).toBe(422);
    expect((await raw("GET", "/v1/members/?role=admin")).status).toBe(422);
  });

  it("a write retried with the same Idempotency-Key adds one member", async () => {
    const team = await sdk.customers.create({ type: "team", email: uniqueEmail("idem") });
    const post = () =>
      fetch(`${server.url}/v1/customers/${team.id}/members`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json", "idempotency-key": "member-once" },
        body: JSON.stringify({ email: "once@example.com" }),
      });
    const [a, b] = [await post(), await post()];
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(b.headers.get("idempotent-replayed")).toBe("true");
    expect((await sdk.members.listMembers({ customerId: team.id })).result.items).toHaveLength(2);
  });
});

describe("customer portal members", () => {
  it("the owner and billing managers manage the team; a member sees only what a member may", async () => {
    const team = await sdk.customers.create({ type: "team", email: uniqueEmail("portal-team"), owner: { email: "boss@example.com", name: "Boss" } });
    const ownerSession = await sdk.customerSessions.create({ customerId: team.id });
    const owner = portalOf(ownerSession.token);
    const me = await owner.v047.customerPortal.customerSession.getAuthenticatedUser({ customerSession: ownerSession.token });
    expect(me).toMatchObject({ type: "member", email: "boss@example.com", role: "owner", customerId: team.id });

    const ann = await owner.v047.customerPortal.members.addMember({ email: "ann@example.com", name: "Ann", role: "billing_manager" });
    expect(ann.role).toBe("billing_manager");
    const joe = await owner.v049.customerPortal.members.addMember({ email: "joe@example.com" });
    expect(joe.role).toBe("member");
    // an email already in the team answers that member
    expect((await owner.v047.customerPortal.members.addMember({ email: "JOE@example.com" })).id).toBe(joe.id);
    const listed = await owner.v049.customerPortal.members.listMembers({});
    expect(listed.result.items.map((m) => [m.email, m.role])).toEqual([["boss@example.com", "owner"], ["ann@example.com", "billing_manager"], ["joe@example.com", "member"]]);

    // a billing manager's session: manages members, never their own role nor ownership
    const annSession = await sdk.customerSessions.create({ customerId: team.id, memberId: ann.id });
    const annPortal = portalOf(annSession.token);
    const promoted = await annPortal.v047.customerPortal.members.updateMember({ id: joe.id, customerPortalMemberUpdate: { role: "billing_manager" } });
    expect(promoted.role).toBe("billing_manager");
    await annPortal.v049.customerPortal.members.updateMember({ id: joe.id, customerPortalMemberUpdate: { role: "member" } });
    expect((await raw("PATCH", `/v1/customer-portal/members/${ann.id}`, { role: "member" }, annSession.token)).status).toBe(403);
    expect((await raw("PATCH", `/v1/customer-portal/members/${joe.id}`, { role: "owner" }, annSession.token)).status).toBe(403);
    expect((await raw("DELETE", `/v1/customer-portal/members/${ann.id}`, undefined, annSession.token)).status).toBe(403);
    const ownerRow = listed.result.items[0]!;
    expect((await raw("DELETE", `/v1/customer-portal/members/${ownerRow.id}`, undefined, annSession.token)).status).toBe(403);
    expect((await raw("POST", "/v1/customer-portal/members", { email: "new-owner@example.com", role: "owner" }, annSession.token)).status).toBe(422);

    // a plain member: the benefits, not the team nor the billing
    const joeSession = await sdk.customerSessions.create({ customerId: team.id, memberId: joe.id });
    const joePortal = portalOf(joeSession.token);
    expect((await joePortal.v047.customerPortal.customerSession.getAuthenticatedUser({ customerSession: joeSession.token })).role).toBe("member");
    expect((await joePortal.v049.customerPortal.benefitGrants.list({ customerSession: joeSession.token }, {})).result.items).toEqual([]);
    expect((await raw("GET", "/v1/customer-portal/members", undefined, joeSession.token)).status).toBe(403);
    expect((await raw("GET", "/v1/customer-portal/orders/", undefined, joeSession.token)).status).toBe(403);
    expect((await raw("GET", "/v1/customer-portal/customers/me", undefined, joeSession.token)).status).toBe(200);
    expect((await raw("PATCH", "/v1/customer-portal/customers/me", { name: "Joe's team" }, joeSession.token)).status).toBe(403);

    // the owner removes Joe: his session ends with his membership
    await owner.v047.customerPortal.members.removeMember({ id: joe.id });
    expect((await raw("GET", "/v1/customer-portal/customers/me", undefined, joeSession.token)).status).toBe(401);
    // handing ownership on in the portal: the owner becomes a billing manager
    await owner.v049.customerPortal.members.updateMember({ id: ann.id, customerPortalMemberUpdate: { role: "owner" } });
    expect((await annPortal.v047.customerPortal.customerSession.getAuthenticatedUser({ customerSession: annSession.token })).role).toBe("owner");
    expect((await owner.v047.customerPortal.customerSession.getAuthenticatedUser({ customerSession: ownerSession.token })).role).toBe("billing_manager");

    // a session for a member of another customer is refused
    const solo = await sdk.customers.create({ email: uniqueEmail("portal-solo") });
    expect((await raw("POST", "/v1/customer-sessions/", { customer_id: solo.id, member_id: ann.id })).status).toBe(422);
    // an individual customer has no members to manage
    const soloSession = await sdk.customerSessions.create({ customerId: solo.id });
    expect((await raw("GET", "/v1/customer-portal/members", undefined, soloSession.token)).status).toBe(403);
  });

  it("a member signs in by email with a code and gets a member's session", async () => {
    const team = await sdk.customers.create({ type: "team", email: uniqueEmail("code-team") });
    const member = await sdk.members.createMember({ customerId: team.id, email: "code-member@example.com" });
    const ask = await raw("POST", "/v1/customer-portal/customer-session/request", { email: "code-member@example.com", organization_id: seller.organizationId }, "");
    expect(ask.status).toBe(202);
    const mail = await server.mailbox.waitFor("code-member@example.com", /^Access your .+ purchases$/);
    const code = /^ *([A-Z2-9]{8})$/m.exec(mail.text)?.[1] ?? "";
    expect(code).toHaveLength(8);
    const auth = await raw("POST", "/v1/customer-portal/customer-session/authenticate", { code }, "");
    expect(auth.status).toBe(200);
    const user = await new Polar049({ serverURL: server.url }).customerPortal.customerSession.getAuthenticatedUser({ customerSession: auth.body.token as string });
    expect(user).toMatchObject({ type: "member", memberId: member.id, role: "member", customerId: team.id });
  });
});

describe("member webhooks", () => {
  it("member.created, member.updated and member.deleted are delivered and valid for both SDKs", async () => {
    const types = await eventually(async () => {
      const seen = new Set(receiver.at("/members").map((h) => (JSON.parse(h.body) as { type: string }).type));
      return seen.has("member.created") && seen.has("member.updated") && seen.has("member.deleted") ? seen : undefined;
    }, 30_000);
    expect([...types].sort()).toEqual(["member.created", "member.deleted", "member.updated"]);
    for (const hit of receiver.at("/members")) {
      const a = validateEvent(hit.body, hit.headers, endpointSecret);
      const b = validateEvent049(hit.body, hit.headers, endpointSecret);
      expect(a.type).toBe(b.type);
      expect(["member.created", "member.updated", "member.deleted"]).toContain(a.type);
    }
  });
});
