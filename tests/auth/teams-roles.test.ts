// Teams and team members, the organization roles of product spec §6 (owner, admin, member; several roles
// per member; AND checks; the two denial messages), dynamic roles per organization, and what the request
// helper (GET /api/whoami) makes of each role.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/server.js";
import { bearer, createOrg, joinAs, signedIn, type Org, type Person } from "./org-fixtures.js";

interface ApiError {
  message: string;
  code?: string;
  details?: string;
  missingPermissions?: string[];
}
interface Team {
  id: string;
  name: string;
  organizationId: string;
}
interface Member {
  id: string;
  userId: string;
  role: string;
}
interface OrgRole {
  id: string;
  role: string;
  organizationId: string;
  permission: Record<string, string[]>;
}
interface Whoami {
  kind: string;
  user: { id: string } | null;
  organization_id: string | null;
  roles: string[];
  permissions: Record<string, string[]>;
}

const A = "/api/auth/organization";

/** The organization permissions of product spec §6, role by role. */
const SPEC_TABLE = {
  owner: {
    organization: ["update", "delete"],
    member: ["create", "update", "delete"],
    invitation: ["create", "cancel"],
    team: ["create", "update", "delete"],
    ac: ["create", "read", "update", "delete"],
  },
  admin: {
    organization: ["update"],
    member: ["create", "update", "delete"],
    invitation: ["create", "cancel"],
    team: ["create", "update", "delete"],
    ac: ["create", "read", "update", "delete"],
  },
  member: { ac: ["read"] },
} satisfies Record<string, Record<string, string[]>>;
const ALL_ACTIONS = SPEC_TABLE.owner;

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => server?.close());

async function hasPermission(p: Person, orgId: string, permissions: Record<string, string[]>) {
  const res = await p.client.post<{ success: boolean; error: string | null }>(`${A}/has-permission`, {
    organizationId: orgId,
    permissions,
  });
  expect(res.status, res.text).toBe(200);
  return res.body;
}

/** Every (resource, action) of §6 the person holds in the organization, asked one by one. */
async function grantedActions(p: Person, orgId: string): Promise<Record<string, string[]>> {
  const granted: Record<string, string[]> = {};
  for (const [resource, actions] of Object.entries(ALL_ACTIONS)) {
    for (const action of actions) {
      if ((await hasPermission(p, orgId, { [resource]: [action] })).success) (granted[resource] ??= []).push(action);
    }
  }
  return granted;
}

async function memberIdOf(p: Person): Promise<string> {
  const res = await p.client.get<Member>(`${A}/get-active-member`);
  expect(res.status, res.text).toBe(200);
  return res.body.id;
}

async function whoami(p: Person, orgId?: string) {
  return p.client.get<Whoami & { error?: string; detail?: string }>(
    `/api/whoami${orgId ? `?organization_id=${orgId}` : ""}`,
    bearer(p),
  );
}

/** §6 resources only, actions sorted (other areas may add resources of their own, e.g. apiKey). */
function specPart(permissions: Record<string, string[]>): Record<string, string[]> {
  return Object.fromEntries(
    Object.entries(permissions)
      .filter(([r, actions]) => r in ALL_ACTIONS && actions.length > 0)
      .map(([r, actions]) => [r, [...actions].sort()]),
  );
}
const sorted = (t: Record<string, string[]>) => Object.fromEntries(Object.entries(t).map(([r, a]) => [r, [...a].sort()]));

describe("teams", () => {
  let owner: Person;
  let org: Org;
  let mate: Person;
  beforeAll(async () => {
    owner = await signedIn(server, "team-owner");
    org = await createOrg(owner.client, "Teams Org");
    mate = await joinAs(server, owner.client, org.id, "member", "mate");
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

    const outsider = await signedIn(server, "not-in-org");
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
    const invitee = await signedIn(server, "team-invitee");
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

describe("organization roles (§6)", () => {
  let owner: Person;
  let org: Org;
  let admin: Person;
  let member: Person;
  beforeAll(async () => {
    owner = await signedIn(server, "role-owner");
    org = await createOrg(owner.client, "Roles Org");
    admin = await joinAs(server, owner.client, org.id, "admin", "role-admin");
    member = await joinAs(server, owner.client, org.id, "member", "role-member");
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

  it("lets an admin do everything but delete the organization", async () => {
    const deleted = await admin.client.post<ApiError>(`${A}/delete`, { organizationId: org.id });
    expect(deleted.status).toBe(403);
    expect(deleted.body).toMatchObject({
      code: "YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_ORGANIZATION",
      message: "You are not allowed to delete this organization",
    });
    const updated = await admin.client.post(`${A}/update`, { organizationId: org.id, data: { name: "Roles Org (renamed)" } });
    expect(updated.status).toBe(200);

    const invitee = await signedIn(server, "admin-invitee");
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
    const invitee = await signedIn(server, "member-invitee");
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
    const both = await joinAs(server, owner.client, org.id, "member", "two-roles");
    const memberId = await memberIdOf(both);
    const set = await owner.client.post<Member>(`${A}/update-member-role`, { memberId, role: "member,admin" });
    expect(set.status).toBe(200);
    expect(set.body.role).toBe("member,admin");
    expect((await both.client.get<{ role: string }>(`${A}/get-active-member-role`)).body).toEqual({ role: "member,admin" });

    expect(sorted(await grantedActions(both, org.id))).toEqual(sorted(SPEC_TABLE.admin));
    const invitee = await signedIn(server, "union-invitee");
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

describe("dynamic roles", () => {
  let owner: Person;
  let org: Org;
  let admin: Person;
  let member: Person;
  beforeAll(async () => {
    owner = await signedIn(server, "dyn-owner");
    org = await createOrg(owner.client, "Dynamic Org");
    admin = await joinAs(server, owner.client, org.id, "admin", "dyn-admin");
    member = await joinAs(server, owner.client, org.id, "member", "dyn-member");
  });

  it("creates, lists, reads, updates and deletes a role of the organization", async () => {
    const created = await owner.client.post<{ success: boolean; roleData: OrgRole; statements: Record<string, string[]> }>(
      `${A}/create-role`,
      { organizationId: org.id, role: "support", permission: { member: ["update"], ac: ["read"] } },
    );
    expect(created.status).toBe(200);
    expect(created.body.success).toBe(true);
    expect(created.body.roleData).toMatchObject({ role: "support", organizationId: org.id, permission: { member: ["update"], ac: ["read"] } });
    const id = created.body.roleData.id;

    const list = await owner.client.get<OrgRole[]>(`${A}/list-roles?organizationId=${org.id}`);
    expect(list.status).toBe(200);
    expect(list.body).toEqual([expect.objectContaining({ id, role: "support", permission: { member: ["update"], ac: ["read"] } })]);
    const byName = await owner.client.get<OrgRole>(`${A}/get-role?roleName=support&organizationId=${org.id}`);
    expect(byName.body).toMatchObject({ id, role: "support" });
    const byId = await member.client.get<OrgRole>(`${A}/get-role?roleId=${id}&organizationId=${org.id}`);
    expect(byId.body).toMatchObject({ id, role: "support" });

    const updated = await owner.client.post<{ success: boolean; roleData: OrgRole }>(`${A}/update-role`, {
      organizationId: org.id,
      roleId: id,
      data: { permission: { team: ["create"] }, roleName: "helpdesk" },
    });
    expect(updated.status).toBe(200);
    expect(updated.body.roleData).toMatchObject({ role: "helpdesk", permission: { team: ["create"] } });
    const renamed = await owner.client.get<OrgRole>(`${A}/get-role?roleName=helpdesk&organizationId=${org.id}`);
    expect(renamed.body.permission).toEqual({ team: ["create"] });

    const deleted = await owner.client.post<{ success: boolean }>(`${A}/delete-role`, { organizationId: org.id, roleName: "helpdesk" });
    expect(deleted.status).toBe(200);
    expect(deleted.body.success).toBe(true);
    const missing = await owner.client.get<ApiError>(`${A}/get-role?roleId=${id}&organizationId=${org.id}`);
    expect(missing.status).toBe(400);
    expect(missing.body.message).toBe("Role not found");
  });

  it("refuses taken names, unknown resources, pre-defined roles and grants beyond the creator's own", async () => {
    await owner.client.post(`${A}/create-role`, { organizationId: org.id, role: "auditor", permission: { ac: ["read"] } });
    const taken = await owner.client.post<ApiError>(`${A}/create-role`, { organizationId: org.id, role: "auditor", permission: { ac: ["read"] } });
    expect(taken.status).toBe(400);
    expect(taken.body.message).toBe("That role name is already taken");
    const predefined = await owner.client.post<ApiError>(`${A}/create-role`, { organizationId: org.id, role: "admin", permission: { ac: ["read"] } });
    expect(predefined.body.message).toBe("That role name is already taken");
    const unknown = await owner.client.post<ApiError>(`${A}/create-role`, { organizationId: org.id, role: "biller", permission: { billing: ["read"] } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toBe("The provided permission includes an invalid resource");
    const beyond = await admin.client.post<ApiError>(`${A}/create-role`, {
      organizationId: org.id,
      role: "destroyer",
      permission: { organization: ["delete"] },
    });
    expect(beyond.status).toBe(403);
    expect(beyond.body).toMatchObject({ message: "You are not allowed to create a role", missingPermissions: ["organization:delete"] });
    const noDelete = await owner.client.post<ApiError>(`${A}/delete-role`, { organizationId: org.id, roleName: "owner" });
    expect(noDelete.status).toBe(400);
    expect(noDelete.body.message).toBe("Cannot delete a pre-defined role");

    // a member (role member) cannot create, update or delete roles
    const create = await member.client.post<ApiError>(`${A}/create-role`, { organizationId: org.id, role: "mine", permission: { ac: ["read"] } });
    expect(create.status).toBe(403);
    expect(create.body.message).toBe("You are not allowed to create a role");
    const update = await member.client.post<ApiError>(`${A}/update-role`, { organizationId: org.id, roleName: "auditor", data: { permission: { ac: ["read"] } } });
    expect(update.status).toBe(403);
    expect(update.body.message).toBe("You are not allowed to update a role");
    const del = await member.client.post<ApiError>(`${A}/delete-role`, { organizationId: org.id, roleName: "auditor" });
    expect(del.status).toBe(403);
    expect(del.body.message).toBe("You are not allowed to delete a role");
  });

  it("gives a member with a custom role exactly its permissions, and follows updates of the role", async () => {
    const created = await owner.client.post<{ roleData: OrgRole }>(`${A}/create-role`, {
      organizationId: org.id,
      role: "recruiter",
      permission: { invitation: ["create"] },
    });
    expect(created.status).toBe(200);
    const recruiter = await joinAs(server, owner.client, org.id, "recruiter", "recruiter");
    expect((await recruiter.client.get<{ role: string }>(`${A}/get-active-member-role`)).body).toEqual({ role: "recruiter" });
    expect(await grantedActions(recruiter, org.id)).toEqual({ invitation: ["create"] });

    const invitee = await signedIn(server, "recruited");
    const invited = await recruiter.client.post<{ id: string; status: string }>(`${A}/invite-member`, {
      email: invitee.email,
      role: "member",
      organizationId: org.id,
    });
    expect(invited.status).toBe(200);
    expect(invited.body.status).toBe("pending");
    const cancel = await recruiter.client.post<ApiError>(`${A}/cancel-invitation`, { invitationId: invited.body.id });
    expect(cancel.status).toBe(403);
    expect(cancel.body.message).toBe("You are not allowed to cancel this invitation");
    const team = await recruiter.client.post<ApiError>(`${A}/create-team`, { name: "Recruiting", organizationId: org.id });
    expect(team.status).toBe(403);
    const roles = await recruiter.client.get<ApiError>(`${A}/list-roles?organizationId=${org.id}`);
    expect(roles.status).toBe(403);
    expect(roles.body.message).toBe("You are not allowed to list a role");

    const who = await whoami(recruiter);
    expect(who.body).toMatchObject({ organization_id: org.id, roles: ["recruiter"], permissions: { invitation: ["create"] } });
    expect(Object.keys(who.body.permissions)).toEqual(["invitation"]);

    const assigned = await owner.client.post<ApiError>(`${A}/delete-role`, { organizationId: org.id, roleName: "recruiter" });
    expect(assigned.status).toBe(400);
    expect(assigned.body.message).toBe(
      "Cannot delete a role that is assigned to members. Please reassign the members to a different role first",
    );

    const widened = await owner.client.post(`${A}/update-role`, {
      organizationId: org.id,
      roleName: "recruiter",
      data: { permission: { invitation: ["create", "cancel"], team: ["create"] } },
    });
    expect(widened.status).toBe(200);
    expect(sorted(await grantedActions(recruiter, org.id))).toEqual({ invitation: ["cancel", "create"], team: ["create"] });
    expect((await recruiter.client.post(`${A}/create-team`, { name: "Recruiting", organizationId: org.id })).status).toBe(200);
    expect(specPart((await whoami(recruiter)).body.permissions)).toEqual({ invitation: ["cancel", "create"], team: ["create"] });
  });

  it("unites two custom roles held together, in has-permission and in the request helper", async () => {
    await owner.client.post(`${A}/create-role`, { organizationId: org.id, role: "inviter", permission: { invitation: ["create"] } });
    await owner.client.post(`${A}/create-role`, { organizationId: org.id, role: "teamlead", permission: { team: ["create", "update"] } });
    const both = await joinAs(server, owner.client, org.id, "inviter,teamlead", "inviter-teamlead");
    expect((await both.client.get<{ role: string }>(`${A}/get-active-member-role`)).body).toEqual({ role: "inviter,teamlead" });
    // neither role alone covers this request; together they do
    expect(await hasPermission(both, org.id, { invitation: ["create"], team: ["create", "update"] })).toEqual({ success: true, error: null });
    expect(await hasPermission(both, org.id, { invitation: ["create"], team: ["delete"] })).toEqual({
      success: false,
      error: 'unauthorized to access resource "team"',
    });
    const who = await whoami(both);
    expect(who.body.roles).toEqual(["inviter", "teamlead"]);
    expect(specPart(who.body.permissions)).toEqual({ invitation: ["create"], team: ["create", "update"] });
  });
});

describe("the request helper (GET /api/whoami)", () => {
  it("reports the roles and permissions of owner, admin and member, and refuses another organization", async () => {
    const owner = await signedIn(server, "who-owner");
    const org = await createOrg(owner.client, "Who Org");
    const admin = await joinAs(server, owner.client, org.id, "admin", "who-admin");
    const member = await joinAs(server, owner.client, org.id, "member", "who-member");

    for (const [person, role] of [
      [owner, "owner"],
      [admin, "admin"],
      [member, "member"],
    ] as const) {
      const res = await whoami(person);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ kind: "session", user: { id: person.user.id }, organization_id: org.id, roles: [role] });
      expect(specPart(res.body.permissions)).toEqual(sorted(SPEC_TABLE[role]));
    }
    expect((await whoami(member)).body.permissions).toEqual({ ac: ["read"] });

    // another organization of the caller's, by organization_id
    const second = await createOrg(member.client, "Member's own");
    await member.client.post(`${A}/set-active`, { organizationId: org.id });
    const own = await whoami(member, second.id);
    expect(own.body).toMatchObject({ organization_id: second.id, roles: ["owner"] });

    // an organization the caller is not a member of
    const foreign = await whoami(admin, second.id);
    expect(foreign.status).toBe(403);
    expect(foreign.body).toEqual({ error: "NotPermitted", detail: "You are not a member of this organization." });
    const notUuid = await whoami(admin, "nope");
    expect(notUuid.status).toBe(403);

    // a role change shows at once
    const memberId = await memberIdOf(member);
    await owner.client.post(`${A}/update-member-role`, { memberId, role: "admin" });
    const promoted = await whoami(member);
    expect(promoted.body.roles).toEqual(["admin"]);
    expect(specPart(promoted.body.permissions)).toEqual(sorted(SPEC_TABLE.admin));
  });
});
