// Organizations, members and invitations (the product spec's entities, invitation states, calls and limits): the
// creator is owner, invitations start pending and are mailed with a link, and every id a client can send
// is answered with a 4xx, never a 500.
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { invitation as invitationTable } from "../../server/db/schema/auth.js";
import { Client } from "../helpers/client.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { createOrg, joinAs, signedIn, type Org, type Person } from "./org-fixtures.js";

interface Member {
  id: string;
  userId: string;
  organizationId: string;
  role: string;
}
interface Invitation {
  id: string;
  organizationId: string;
  email: string;
  role: string;
  status: string;
  inviterId: string;
  expiresAt: string;
  teamId?: string | null;
}
interface FullOrg extends Org {
  members: Array<Member & { user: { id: string; email: string } }>;
  invitations: Invitation[];
  teams: Array<{ id: string; name: string }>;
  metadata: unknown;
}
interface ApiError {
  message: string;
  code?: string;
}

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => server?.close());

const A = "/api/auth/organization";

async function invite(from: Client, orgId: string, email: string, role = "member") {
  return from.post<Invitation & ApiError>(`${A}/invite-member`, { email, role, organizationId: orgId });
}

async function verifyEmail(person: Person): Promise<void> {
  const mail = await server.mailbox.waitFor(person.email, /Verify your email address/);
  const link = mail.links.find((l) => l.includes("/verify-email?token="));
  expect(link).toBeDefined();
  const res = await person.client.get(link ?? "");
  expect(res.status).toBeLessThan(400);
}

describe("organizations", () => {
  it("makes the creator its owner, activates it and gives it a default team", async () => {
    const owner = await signedIn(server, "creator");
    const org = await createOrg(owner.client, "Creator Co");
    const created = org as Org & { members: Member[] };
    expect(created.members).toEqual([expect.objectContaining({ userId: owner.user.id, organizationId: org.id, role: "owner" })]);

    const session = await owner.client.get<{ session: { activeOrganizationId: string | null } }>("/api/auth/get-session");
    expect(session.body.session.activeOrganizationId).toBe(org.id);

    const active = await owner.client.get<Member>(`${A}/get-active-member`);
    expect(active.status).toBe(200);
    expect(active.body).toMatchObject({ userId: owner.user.id, organizationId: org.id, role: "owner" });
    const role = await owner.client.get<{ role: string }>(`${A}/get-active-member-role`);
    expect(role.body).toEqual({ role: "owner" });

    const full = await owner.client.get<FullOrg>(`${A}/get-full-organization`);
    expect(full.body).toMatchObject({ id: org.id, name: "Creator Co", slug: org.slug });
    expect(full.body.teams.map((t) => t.name)).toEqual(["Creator Co"]);
    const teams = await owner.client.get<Array<{ id: string; organizationId: string }>>(`${A}/list-user-teams`);
    expect(teams.body).toEqual([expect.objectContaining({ id: full.body.teams[0]?.id, organizationId: org.id })]);
  });

  it("refuses a taken slug, and a caller without a session", async () => {
    const owner = await signedIn(server, "slug");
    const org = await createOrg(owner.client, "Slugged");
    const again = await owner.client.post<ApiError>(`${A}/create`, { name: "Other", slug: org.slug });
    expect(again.status).toBe(400);
    expect(again.body).toMatchObject({ code: "ORGANIZATION_ALREADY_EXISTS", message: "Organization already exists" });
    const anonymous = await new Client(server.url).post(`${A}/create`, { name: "Nobody", slug: "nobody-org" });
    expect(anonymous.status).toBe(401);
    const noName = await owner.client.post<ApiError>(`${A}/create`, { name: "", slug: "empty-name" });
    expect(noName.status).toBe(400);
    expect(noName.body).toMatchObject({ code: "VALIDATION_ERROR", message: "Invalid body parameters" });
  });

  it("lists the user's organizations and switches the active one", async () => {
    const owner = await signedIn(server, "lister");
    const first = await createOrg(owner.client, "First");
    const second = await createOrg(owner.client, "Second");
    const stranger = await signedIn(server, "stranger");
    const foreign = await createOrg(stranger.client, "Foreign");

    const list = await owner.client.get<Org[]>(`${A}/list`);
    expect(list.status).toBe(200);
    expect(list.body.map((o) => o.id).sort()).toEqual([first.id, second.id].sort());

    const switched = await owner.client.post<Org>(`${A}/set-active`, { organizationId: first.id });
    expect(switched.status).toBe(200);
    expect(switched.body.id).toBe(first.id);
    expect((await owner.client.get<FullOrg>(`${A}/get-full-organization`)).body.id).toBe(first.id);
    const bySlug = await owner.client.post<Org>(`${A}/set-active`, { organizationSlug: second.slug });
    expect(bySlug.body.id).toBe(second.id);
    // another organization in full, without switching to it
    const other = await owner.client.get<FullOrg>(`${A}/get-full-organization?organizationId=${first.id}`);
    expect(other.body.id).toBe(first.id);

    const notMine = await owner.client.get<ApiError>(`${A}/get-full-organization?organizationId=${foreign.id}`);
    expect(notMine.status).toBe(403);
    expect(notMine.body).toMatchObject({ code: "USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION", message: "User is not a member of the organization" });
    const refused = await owner.client.post<ApiError>(`${A}/set-active`, { organizationId: foreign.id });
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBe("User is not a member of the organization");

    const cleared = await owner.client.post(`${A}/set-active`, { organizationId: null });
    expect(cleared.status).toBe(200);
    expect(cleared.body).toBeNull();
    expect((await owner.client.get(`${A}/get-full-organization`)).body).toBeNull();
    const noActive = await owner.client.get<ApiError>(`${A}/get-active-member`);
    expect(noActive.status).toBe(400);
    expect(noActive.body).toMatchObject({ code: "NO_ACTIVE_ORGANIZATION", message: "No active organization" });
  });

  it("updates an organization (name, slug, logo, metadata)", async () => {
    const owner = await signedIn(server, "updater");
    const org = await createOrg(owner.client, "Before");
    const res = await owner.client.post<Org & { logo: string; metadata: unknown }>(`${A}/update`, {
      organizationId: org.id,
      data: { name: "After", slug: `${org.slug}-after`, logo: "https://example.com/logo.png", metadata: { plan: "pro" } },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: org.id, name: "After", slug: `${org.slug}-after`, logo: "https://example.com/logo.png" });
    // metadata is an object on every read, not the JSON text it is stored as
    const full = await owner.client.get<FullOrg>(`${A}/get-full-organization`);
    expect(full.body).toMatchObject({ name: "After", metadata: { plan: "pro" } });
    const listed = await owner.client.get<Array<Org & { metadata: unknown }>>(`${A}/list`);
    expect(listed.body.find((o) => o.id === org.id)?.metadata).toEqual({ plan: "pro" });
    const activated = await owner.client.post<Org & { metadata: unknown }>(`${A}/set-active`, { organizationId: org.id });
    expect(activated.body.metadata).toEqual({ plan: "pro" });

    const other = await createOrg(owner.client, "Taken");
    const clash = await owner.client.post<ApiError>(`${A}/update`, { organizationId: org.id, data: { slug: other.slug } });
    expect(clash.status).toBe(400);
    expect(clash.body).toMatchObject({ code: "ORGANIZATION_SLUG_ALREADY_TAKEN", message: "Organization slug already taken" });
  });

  it("deletes an organization: gone from the list and no longer active", async () => {
    const owner = await signedIn(server, "deleter");
    const keep = await createOrg(owner.client, "Keep");
    const doomed = await createOrg(owner.client, "Doomed");
    const outsider = await signedIn(server, "outsider");
    const notMember = await outsider.client.post<ApiError>(`${A}/delete`, { organizationId: doomed.id });
    expect(notMember.status).toBe(400);
    expect(notMember.body.message).toBe("User is not a member of the organization");

    const res = await owner.client.post<Org>(`${A}/delete`, { organizationId: doomed.id });
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(doomed.id);
    const list = await owner.client.get<Org[]>(`${A}/list`);
    expect(list.body.map((o) => o.id)).toEqual([keep.id]);
    const session = await owner.client.get<{ session: { activeOrganizationId: string | null } }>("/api/auth/get-session");
    expect(session.body.session.activeOrganizationId).toBeNull();
  });
});

describe("invitations", () => {
  let owner: Person;
  let org: Org;
  beforeAll(async () => {
    owner = await signedIn(server, "inviter");
    org = await createOrg(owner.client, "Invite Inc");
  });

  it("creates a pending invitation and mails it with a link to the SMTP peer", async () => {
    const invitee = await signedIn(server, "invitee");
    const res = await invite(owner.client, org.id, invitee.email, "admin");
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ organizationId: org.id, email: invitee.email, role: "admin", status: "pending", inviterId: owner.user.id });
    expect(new Date(res.body.expiresAt).getTime()).toBeGreaterThan(Date.now());

    const mail = await server.mailbox.waitFor(invitee.email, /invited you to Invite Inc on till/);
    expect(mail.subject).toBe("inviter invited you to Invite Inc on till");
    expect(mail.text).toContain('join the organization "Invite Inc" as admin');
    expect(mail.links).toContain(`${server.url}/accept-invitation/${res.body.id}`);

    const listed = await owner.client.get<Invitation[]>(`${A}/list-invitations?organizationId=${org.id}`);
    expect(listed.status).toBe(200);
    expect(listed.body).toContainEqual(expect.objectContaining({ id: res.body.id, status: "pending" }));
    const full = await owner.client.get<FullOrg>(`${A}/get-full-organization?organizationId=${org.id}`);
    expect(full.body.invitations).toContainEqual(expect.objectContaining({ id: res.body.id, status: "pending" }));

    // the invitee reads it (their email must be verified to list invitations sent to it)
    const unverified = await invitee.client.get<ApiError>(`${A}/list-user-invitations`);
    expect(unverified.status).toBe(403);
    expect(unverified.body.message).toBe("Email verification required to view or list invitations for the session email");
    await verifyEmail(invitee);
    const mine = await invitee.client.get<Invitation[]>(`${A}/list-user-invitations`);
    expect(mine.body).toEqual([expect.objectContaining({ id: res.body.id, organizationId: org.id, status: "pending" })]);
    const one = await invitee.client.get<Invitation & { organizationName: string; inviterEmail: string }>(
      `${A}/get-invitation?id=${res.body.id}`,
    );
    expect(one.body).toMatchObject({ id: res.body.id, organizationName: "Invite Inc", inviterEmail: owner.email });
  });

  it("accepts an invitation: the invitee becomes a member with the invited role", async () => {
    const invitee = await signedIn(server, "accepter");
    const inv = await invite(owner.client, org.id, invitee.email, "admin");
    const res = await invitee.client.post<{ invitation: Invitation; member: Member }>(`${A}/accept-invitation`, {
      invitationId: inv.body.id,
    });
    expect(res.status).toBe(200);
    expect(res.body.invitation.status).toBe("accepted");
    expect(res.body.member).toMatchObject({ userId: invitee.user.id, organizationId: org.id, role: "admin" });
    // accepting makes the organization active
    expect((await invitee.client.get<{ role: string }>(`${A}/get-active-member-role`)).body).toEqual({ role: "admin" });

    const again = await invitee.client.post<ApiError>(`${A}/accept-invitation`, { invitationId: inv.body.id });
    expect(again.status).toBe(400);
    expect(again.body).toMatchObject({ code: "INVITATION_NOT_FOUND", message: "Invitation not found" });
    const dup = await invite(owner.client, org.id, invitee.email);
    expect(dup.status).toBe(400);
    expect(dup.body.message).toBe("User is already a member of this organization");
  });

  it("rejects an invitation", async () => {
    const invitee = await signedIn(server, "rejecter");
    const inv = await invite(owner.client, org.id, invitee.email);
    const res = await invitee.client.post<{ invitation: Invitation; member: null }>(`${A}/reject-invitation`, {
      invitationId: inv.body.id,
    });
    expect(res.status).toBe(200);
    expect(res.body.invitation.status).toBe("rejected");
    expect(res.body.member).toBeNull();
    const late = await invitee.client.post<ApiError>(`${A}/accept-invitation`, { invitationId: inv.body.id });
    expect(late.body.message).toBe("Invitation not found");
    expect((await invitee.client.get<Org[]>(`${A}/list`)).body).toEqual([]);
  });

  it("cancels an invitation; a canceled one cannot be accepted", async () => {
    const invitee = await signedIn(server, "canceled");
    const inv = await invite(owner.client, org.id, invitee.email);
    const res = await owner.client.post<Invitation>(`${A}/cancel-invitation`, { invitationId: inv.body.id });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: inv.body.id, status: "canceled" });
    const late = await invitee.client.post<ApiError>(`${A}/accept-invitation`, { invitationId: inv.body.id });
    expect(late.status).toBe(400);
    expect(late.body.message).toBe("Invitation not found");
  });

  it("refuses a duplicate invitation, the wrong recipient and an expired invitation", async () => {
    const invitee = await signedIn(server, "expiring");
    const inv = await invite(owner.client, org.id, invitee.email);
    const dup = await invite(owner.client, org.id, invitee.email);
    expect(dup.status).toBe(400);
    expect(dup.body).toMatchObject({ code: "USER_IS_ALREADY_INVITED_TO_THIS_ORGANIZATION", message: "User is already invited to this organization" });

    const intruder = await signedIn(server, "intruder");
    const wrong = await intruder.client.post<ApiError>(`${A}/accept-invitation`, { invitationId: inv.body.id });
    expect(wrong.status).toBe(403);
    expect(wrong.body.message).toBe("You are not the recipient of the invitation");

    await server.database.db
      .update(invitationTable)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(invitationTable.id, inv.body.id));
    const expired = await invitee.client.post<ApiError>(`${A}/accept-invitation`, { invitationId: inv.body.id });
    expect(expired.status).toBe(400);
    expect(expired.body).toEqual({ message: "Invitation expired", code: "INVITATION_EXPIRED" });

    const badEmail = await invite(owner.client, org.id, "not-an-email");
    expect(badEmail.status).toBe(400);
    expect(badEmail.body.message).toBe("Invalid email");
  });
});

describe("members", () => {
  it("lists members and changes a member's role (get-active-member-role follows)", async () => {
    const owner = await signedIn(server, "boss");
    const org = await createOrg(owner.client, "Members Ltd");
    const m = await joinAs(server, owner.client, org.id, "member");
    const list = await owner.client.get<{ members: Member[]; total: number }>(`${A}/list-members?organizationId=${org.id}`);
    expect(list.status).toBe(200);
    expect(list.body.total).toBe(2);
    const row = list.body.members.find((x) => x.userId === m.user.id);
    expect(row?.role).toBe("member");
    expect((await m.client.get<{ role: string }>(`${A}/get-active-member-role`)).body).toEqual({ role: "member" });

    const updated = await owner.client.post<Member>(`${A}/update-member-role`, { memberId: row?.id, role: "admin", organizationId: org.id });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ id: row?.id, role: "admin" });
    expect((await m.client.get<{ role: string }>(`${A}/get-active-member-role`)).body).toEqual({ role: "admin" });
    const ofOther = await owner.client.get<{ role: string }>(`${A}/get-active-member-role?userId=${m.user.id}`);
    expect(ofOther.body).toEqual({ role: "admin" });
    expect((await m.client.get<Member>(`${A}/get-active-member`)).body.role).toBe("admin");

    const unknown = await owner.client.post<ApiError>(`${A}/update-member-role`, { memberId: row?.id, role: "wizard" });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({ code: "ROLE_NOT_FOUND", message: "ROLE_NOT_FOUND: wizard" });
  });

  it("removes a member (by id or email) and lets a member leave, but not the only owner", async () => {
    const owner = await signedIn(server, "remover");
    const org = await createOrg(owner.client, "Churn");
    const a = await joinAs(server, owner.client, org.id, "member", "removed");
    const b = await joinAs(server, owner.client, org.id, "member", "leaver");
    const c = await joinAs(server, owner.client, org.id, "admin", "by-email");

    const aRow = (await a.client.get<Member>(`${A}/get-active-member`)).body;
    const removed = await owner.client.post<{ member: Member }>(`${A}/remove-member`, { memberIdOrEmail: aRow.id, organizationId: org.id });
    expect(removed.status).toBe(200);
    expect(removed.body.member).toMatchObject({ id: aRow.id, userId: a.user.id });
    const byEmail = await owner.client.post<{ member: Member }>(`${A}/remove-member`, { memberIdOrEmail: c.email, organizationId: org.id });
    expect(byEmail.body.member.userId).toBe(c.user.id);
    expect((await a.client.get<Org[]>(`${A}/list`)).body).toEqual([]);

    const left = await b.client.post<Member>(`${A}/leave`, { organizationId: org.id });
    expect(left.status).toBe(200);
    expect(left.body.userId).toBe(b.user.id);
    expect((await b.client.get<Org[]>(`${A}/list`)).body).toEqual([]);

    const lonely = await owner.client.post<ApiError>(`${A}/leave`, { organizationId: org.id });
    expect(lonely.status).toBe(400);
    expect(lonely.body.message).toBe("You cannot leave the organization as the only owner");
    const self = await owner.client.get<Member>(`${A}/get-active-member`);
    const demote = await owner.client.post<ApiError>(`${A}/update-member-role`, { memberId: self.body.id, role: "member" });
    expect(demote.status).toBe(400);
    expect(demote.body.message).toBe("You cannot leave the organization without an owner");
    const members = await owner.client.get<{ members: Member[] }>(`${A}/list-members`);
    expect(members.body.members.map((x) => x.userId)).toEqual([owner.user.id]);
  });

  it("adds a member directly only from the server (add-member is server-only in better-auth 1.7.25)", async () => {
    const owner = await signedIn(server, "adder");
    const org = await createOrg(owner.client, "Direct");
    const person = await signedIn(server, "direct");
    const overHttp = await owner.client.post(`${A}/add-member`, { userId: person.user.id, role: "member", organizationId: org.id });
    expect(overHttp.status).toBe(404);

    const added = await server.auth.api.addMember({ body: { userId: person.user.id, role: "member", organizationId: org.id } });
    expect(added).toMatchObject({ userId: person.user.id, organizationId: org.id, role: "member" });
    const list = await person.client.get<Org[]>(`${A}/list`);
    expect(list.body.map((o) => o.id)).toEqual([org.id]);
  });
});

describe("ids a client can send", () => {
  it("answers ids that are not UUIDs with 4xx errors, never 500", async () => {
    const owner = await signedIn(server, "fuzzer");
    await createOrg(owner.client, "Fuzz");
    const calls: Array<[string, string, unknown?]> = [
      ["POST", `${A}/set-active`, { organizationId: "nope" }],
      ["GET", `${A}/get-full-organization?organizationId=nope`],
      ["POST", `${A}/update`, { organizationId: "nope", data: { name: "x" } }],
      ["POST", `${A}/delete`, { organizationId: "nope" }],
      ["POST", `${A}/accept-invitation`, { invitationId: "nope" }],
      ["POST", `${A}/reject-invitation`, { invitationId: "nope" }],
      ["POST", `${A}/cancel-invitation`, { invitationId: "nope" }],
      ["GET", `${A}/get-invitation?id=nope`],
      ["POST", `${A}/remove-member`, { memberIdOrEmail: "nope" }],
      ["POST", `${A}/update-member-role`, { memberId: "nope", role: "admin" }],
      ["POST", `${A}/leave`, { organizationId: "nope" }],
      ["GET", `${A}/list-members?organizationId=nope`],
      ["POST", `${A}/invite-member`, { email: "x@example.com", role: "member", teamId: "nope" }],
      ["POST", `${A}/has-permission`, { organizationId: "nope", permissions: { team: ["create"] } }],
      ["GET", `${A}/get-active-member-role?userId=nope`],
    ];
    for (const [method, path, json] of calls) {
      const res = await owner.client.request(method, path, json === undefined ? {} : { json });
      expect(res.status, `${method} ${path}: ${res.text}`).toBeGreaterThanOrEqual(400);
      expect(res.status, `${method} ${path}: ${res.text}`).toBeLessThan(500);
    }
  });
});
