// Teams and team members, and the organization roles of the product spec (owner, admin, member; several roles
// per member; AND checks; the two denial messages). Dynamic roles and GET /api/whoami:
// teams-roles-dynamic.test.ts.
import { beforeAll, describe, expect, it } from "vitest";
import { createOrg, joinAs, signedIn, type Org, type Person } from "./org-fixtures.js";
import { rolesFixture, type ApiError, type Team, type Member, A, SPEC_TABLE, hasPermission, grantedActions, memberIdOf, whoami, specPart, sorted } from "./roles-fixtures.js";

const fx = rolesFixture();

describe("teams", () => {
  let owner: Person;
  let org: Org;
  let mate: Person;
  beforeAll(async () => {
    owner = await signedIn(fx.server, "team-owner");
    org = await createOrg(owner.client, "Teams Org");
    mate = await joinAs(fx.server, owner.client, org.id, "member", "mate");
  });

  it("creates, renames and lists teams; an empty name is refused", async () => {
    const created = await owner.client.post<Team>(`${A}/create-team`, { name: "Support", organizationId: org.id });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ name: "Support", organizationId: org.id });

    for (const body of [{ name: "" }, {}]) {
      const refused = await owner.client.post<ApiError>(`${A}/create-team`, { ...body, organizationId: org.id });
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({ code: "VALIDATION_ERROR", message: "Invalid body parameters" });
    }
    const emptyRename = await owner.client.post<ApiError>(`${A}/update-team`, { teamId: created.body.id, data: { name: "" } });
    expect(emptyRename.status).toBe(400);
    expect(emptyRename.body).toMatchObject({ code: "VALIDATION_ERROR", message: "Invalid body parameters" });

    const renamed = await owner.client.post<Team>(`${A}/update-team`, { teamId: created.body.id, data: { name: "Help Desk" } });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ id: created.body.id, name: "Help Desk" });
    const oneChar = await owner.client.post<Team>(`${A}/create-team`, { name: "X", organizationId: org.id });
    expect(oneChar.status).toBe(200);

    const list = await owner.client.get<Team[]>(`${A}/list-teams?organizationId=${org.id}`);
    expect(list.body.map((t) => t.name).sort()).toEqual(["Help Desk", "Teams Org", "X"]);
  });

  it("adds, lists and removes team members; list-user-teams follows", async () => {
    const team = (await owner.client.post<Team>(`${A}/create-team`, { name: "Billing", organizationId: org.id })).body;
    const added = await owner.client.post<{ teamId: string; userId: string }>(`${A}/add-team-member`, {
      teamId: team.id,
      userId: mate.user.id,
      organizationId: org.id,
    });
    expect(added.status).toBe(200);
    expect(added.body).toMatchObject({ teamId: team.id, userId: mate.user.id });

    const outsider = await signedIn(fx.server, "not-in-org");
    const refused = await owner.client.post<ApiError>(`${A}/add-team-member`, { teamId: team.id, userId: outsider.user.id });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toBe("User is not a member of the organization");

    const members = await mate.client.get<Array<{ userId: string }>>(`${A}/list-team-members?teamId=${team.id}`);
    expect(members.status).toBe(200);
    expect(members.body.map((m) => m.userId)).toEqual([mate.user.id]);
    const mine = await mate.client.get<Team[]>(`${A}/list-user-teams?organizationId=${org.id}`);
    expect(mine.body.map((t) => t.id)).toEqual([team.id]);

    const removed = await owner.client.post(`${A}/remove-team-member`, { teamId: team.id, userId: mate.user.id });
    expect(removed.status).toBe(200);
    expect((await mate.client.get<Team[]>(`${A}/list-user-teams`)).body).toEqual([]);
    const notInTeam = await mate.client.get<ApiError>(`${A}/list-team-members?teamId=${team.id}`);
    expect(notInTeam.status).toBe(400);
    expect(notInTeam.body.message).toBe("User is not a member of the team");

    const gone = await owner.client.post<{ message: string }>(`${A}/remove-team`, { teamId: team.id, organizationId: org.id });
    expect(gone.status).toBe(200);
    expect(gone.body.message).toBe("Team removed successfully.");
    const again = await owner.client.post<ApiError>(`${A}/remove-team`, { teamId: team.id, organizationId: org.id });
    expect(again.body.message).toBe("Team not found");
  });

  it("puts an invitee into the invitation's team on accept", async () => {
    const team = (await owner.client.post<Team>(`${A}/create-team`, { name: "Onboarding", organizationId: org.id })).body;
    const invitee = await signedIn(fx.server, "team-invitee");
    const inv = await owner.client.post<{ id: string; teamId: string }>(`${A}/invite-member`, {
      email: invitee.email,
      role: "member",
      organizationId: org.id,
      teamId: team.id,
    });
    expect(inv.body.teamId).toBe(team.id);
    const accepted = await invitee.client.post(`${A}/accept-invitation`, { invitationId: inv.body.id });
    expect(accepted.status).toBe(200);
    const teams = await invitee.client.get<Team[]>(`${A}/list-user-teams`);
    expect(teams.body.map((t) => t.id)).toEqual([team.id]);
  });
});

describe("organization roles", () => {
  let owner: Person;
  let org: Org;
  let admin: Person;
  let member: Person;
  beforeAll(async () => {
    owner = await signedIn(fx.server, "role-owner");
    org = await createOrg(owner.client, "Roles Org");
    admin = await joinAs(fx.server, owner.client, org.id, "admin", "role-admin");
    member = await joinAs(fx.server, owner.client, org.id, "member", "role-member");
  });

  it("grants each role exactly the permissions of the spec's table", async () => {
    expect(sorted(await grantedActions(owner, org.id))).toEqual(sorted(SPEC_TABLE.owner));
    expect(sorted(await grantedActions(admin, org.id))).toEqual(sorted(SPEC_TABLE.admin));
    expect(sorted(await grantedActions(member, org.id))).toEqual(sorted(SPEC_TABLE.member));
  });

  it("checks all listed permissions (AND) and says which resource was denied", async () => {
    expect(await hasPermission(admin, org.id, { team: ["create", "update", "delete"], invitation: ["create"] })).toEqual({
      success: true,
      error: null,
    });
    expect(await hasPermission(admin, org.id, { organization: ["update", "delete"] })).toEqual({
      success: false,
      error: 'unauthorized to access resource "organization"',
    });
    expect(await hasPermission(member, org.id, { ac: ["read", "create"] })).toEqual({
      success: false,
      error: 'unauthorized to access resource "ac"',
    });
    expect(await hasPermission(member, org.id, { invitation: ["create"] })).toEqual({
      success: false,
      error: 'unauthorized to access resource "invitation"',
    });
    // a resource till does not know
    expect(await hasPermission(owner, org.id, { billing: ["read"] })).toEqual({
      success: false,
      error: "You are not allowed to access resource: billing",
    });
    // the active organization is used when none is given
    const res = await owner.client.post<{ success: boolean }>(`${A}/has-permission`, { permissions: { organization: ["delete"] } });
    expect(res.body.success).toBe(true);
  });

  it('checks any of the listed permissions with "connector": "OR", over resources and over actions', async () => {
    const anyOf = (p: Person, permissions: Record<string, string[]>) =>
      p.client.post<{ success: boolean; error: string | null }>(`${A}/has-permission`, { organizationId: org.id, permissions, connector: "OR" });
    const granted = { success: true, error: null };
    // a member holds ac:read only
    expect((await anyOf(member, { ac: ["create", "read"] })).body).toEqual(granted);
    expect((await anyOf(member, { team: ["create"], ac: ["read"] })).body).toEqual(granted);
    expect((await anyOf(member, { billing: ["read"], ac: ["read"] })).body).toEqual(granted);
    expect((await anyOf(admin, { organization: ["delete", "update"] })).body).toEqual(granted);
    // none granted: a denial in the spec's words, naming the first resource asked for
    expect((await anyOf(member, { team: ["create"], invitation: ["create", "cancel"] })).body).toEqual({
      success: false,
      error: 'unauthorized to access resource "team"',
    });
    expect((await anyOf(admin, { organization: ["delete"] })).body).toEqual({ success: false, error: 'unauthorized to access resource "organization"' });
    expect((await anyOf(owner, { billing: ["read"] })).body).toEqual({ success: false, error: "You are not allowed to access resource: billing" });
    // AND stays the default, and may be named
    const and = await member.client.post<{ success: boolean }>(`${A}/has-permission`, { organizationId: org.id, permissions: { ac: ["create", "read"] }, connector: "AND" });
    expect(and.body).toEqual({ success: false, error: 'unauthorized to access resource "ac"' });
    expect(await hasPermission(member, org.id, { ac: ["create", "read"] })).toEqual({ success: false, error: 'unauthorized to access resource "ac"' });
    const bad = await member.client.post<ApiError>(`${A}/has-permission`, { organizationId: org.id, permissions: { ac: ["read"] }, connector: "XOR" });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: "VALIDATION_ERROR", message: "Invalid body parameters" });

    // the platform's has-permission takes the connector as well (a user holds no platform permission)
    const platform = (p: Person, permissions: Record<string, string[]>) =>
      p.client.post<{ success: boolean; error: string | null }>("/api/auth/admin/has-permission", { permissions, connector: "OR" });
    expect((await platform(member, { user: ["list", "get"], session: ["list"] })).body).toEqual({ success: false, error: 'unauthorized to access resource "user"' });
  });

  it("lets an admin do everything but delete the organization", async () => {
    const deleted = await admin.client.post<ApiError>(`${A}/delete`, { organizationId: org.id });
    expect(deleted.status).toBe(403);
    expect(deleted.body).toMatchObject({
      code: "YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_ORGANIZATION",
      message: "You are not allowed to delete this organization",
    });
    const updated = await admin.client.post(`${A}/update`, { organizationId: org.id, data: { name: "Roles Org (renamed)" } });
    expect(updated.status).toBe(200);

    const invitee = await signedIn(fx.server, "admin-invitee");
    const invited = await admin.client.post<{ id: string }>(`${A}/invite-member`, { email: invitee.email, role: "member", organizationId: org.id });
    expect(invited.status).toBe(200);
    const canceled = await admin.client.post<{ status: string }>(`${A}/cancel-invitation`, { invitationId: invited.body.id });
    expect(canceled.body.status).toBe("canceled");
    // only an owner hands out the owner role
    const asOwner = await admin.client.post<ApiError>(`${A}/invite-member`, { email: invitee.email, role: "owner", organizationId: org.id });
    expect(asOwner.status).toBe(403);
    expect(asOwner.body.message).toBe("You are not allowed to invite a user with this role");

    const team = await admin.client.post<Team>(`${A}/create-team`, { name: "Admin team", organizationId: org.id });
    expect(team.status).toBe(200);
    expect((await admin.client.post(`${A}/update-team`, { teamId: team.body.id, data: { name: "Admins" } })).status).toBe(200);
    expect((await admin.client.post(`${A}/remove-team`, { teamId: team.body.id, organizationId: org.id })).status).toBe(200);

    const ownerMember = await memberIdOf(owner);
    const demoteOwner = await admin.client.post<ApiError>(`${A}/update-member-role`, { memberId: ownerMember, role: "member" });
    expect(demoteOwner.status).toBe(403);
    expect(demoteOwner.body.message).toBe("You are not allowed to update this member");
  });

  it("refuses a member every write of the table, with better-auth's messages", async () => {
    const invitee = await signedIn(fx.server, "member-invitee");
    const pending = await owner.client.post<{ id: string }>(`${A}/invite-member`, { email: invitee.email, role: "member", organizationId: org.id });
    const team = (await owner.client.post<Team>(`${A}/create-team`, { name: "Locked", organizationId: org.id })).body;
    const adminMember = await memberIdOf(admin);

    const attempts: Array<[string, unknown, number, string]> = [
      [`${A}/invite-member`, { email: "x@example.com", role: "member", organizationId: org.id }, 403, "You are not allowed to invite users to this organization"],
      [`${A}/update`, { organizationId: org.id, data: { name: "Mine now" } }, 403, "You are not allowed to update this organization"],
      [`${A}/delete`, { organizationId: org.id }, 403, "You are not allowed to delete this organization"],
      [`${A}/create-team`, { name: "Rogue", organizationId: org.id }, 403, "You are not allowed to create teams in this organization"],
      [`${A}/update-team`, { teamId: team.id, data: { name: "Rogue" } }, 403, "You are not allowed to update this team"],
      [`${A}/remove-team`, { teamId: team.id, organizationId: org.id }, 403, "You are not allowed to delete teams in this organization"],
      [`${A}/add-team-member`, { teamId: team.id, userId: member.user.id }, 403, "You are not allowed to create a new member"],
      [`${A}/remove-team-member`, { teamId: team.id, userId: owner.user.id }, 403, "You are not allowed to remove a team member"],
      [`${A}/update-member-role`, { memberId: adminMember, role: "member" }, 403, "You are not allowed to update this member"],
      [`${A}/remove-member`, { memberIdOrEmail: adminMember }, 401, "You are not allowed to delete this member"],
      [`${A}/cancel-invitation`, { invitationId: pending.body.id }, 403, "You are not allowed to cancel this invitation"],
      [`${A}/create-role`, { role: "sneaky", permission: { ac: ["read"] } }, 403, "You are not allowed to create a role"],
    ];
    for (const [path, json, status, message] of attempts) {
      const res = await member.client.post<ApiError>(path, json);
      expect({ path, status: res.status, message: res.body.message }).toEqual({ path, status, message });
    }
    const invitations = await member.client.get<ApiError>(`${A}/list-invitations?organizationId=${org.id}`);
    expect(invitations.status).toBe(403);
    expect(invitations.body.message).toBe("You are not allowed to list invitations for this organization");
    // ac:read is the member's one permission
    const roles = await member.client.get(`${A}/list-roles?organizationId=${org.id}`);
    expect(roles.status).toBe(200);
  });

  it("grants the union of several comma-separated roles", async () => {
    const both = await joinAs(fx.server, owner.client, org.id, "member", "two-roles");
    const memberId = await memberIdOf(both);
    const set = await owner.client.post<Member>(`${A}/update-member-role`, { memberId, role: "member,admin" });
    expect(set.status).toBe(200);
    expect(set.body.role).toBe("member,admin");
    expect((await both.client.get<{ role: string }>(`${A}/get-active-member-role`)).body).toEqual({ role: "member,admin" });

    expect(sorted(await grantedActions(both, org.id))).toEqual(sorted(SPEC_TABLE.admin));
    const invitee = await signedIn(fx.server, "union-invitee");
    const invited = await both.client.post(`${A}/invite-member`, { email: invitee.email, role: "member", organizationId: org.id });
    expect(invited.status).toBe(200);
    const deleted = await both.client.post<ApiError>(`${A}/delete`, { organizationId: org.id });
    expect(deleted.status).toBe(403);
    expect(deleted.body.message).toBe("You are not allowed to delete this organization");

    const who = await whoami(both);
    expect(who.body.roles).toEqual(["member", "admin"]);
    expect(specPart(who.body.permissions)).toEqual(sorted(SPEC_TABLE.admin));
  });
});
