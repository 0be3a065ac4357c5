// Dynamic roles per organization, and what the request helper (GET /api/whoami) makes of each role.
import { beforeAll, describe, expect, it } from "vitest";
import { createOrg, joinAs, signedIn, type Org, type Person } from "./org-fixtures.js";
import { rolesFixture, type ApiError, type OrgRole, A, SPEC_TABLE, hasPermission, grantedActions, memberIdOf, whoami, specPart, sorted } from "./roles-fixtures.js";

const fx = rolesFixture();

describe("dynamic roles", () => {
  let owner: Person;
  let org: Org;
  let admin: Person;
  let member: Person;
  beforeAll(async () => {
    owner = await signedIn(fx.server, "dyn-owner");
    org = await createOrg(owner.client, "Dynamic Org");
    admin = await joinAs(fx.server, owner.client, org.id, "admin", "dyn-admin");
    member = await joinAs(fx.server, owner.client, org.id, "member", "dyn-member");
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
    const recruiter = await joinAs(fx.server, owner.client, org.id, "recruiter", "recruiter");
    expect((await recruiter.client.get<{ role: string }>(`${A}/get-active-member-role`)).body).toEqual({ role: "recruiter" });
    expect(await grantedActions(recruiter, org.id)).toEqual({ invitation: ["create"] });

    const invitee = await signedIn(fx.server, "recruited");
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
    const both = await joinAs(fx.server, owner.client, org.id, "inviter,teamlead", "inviter-teamlead");
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
    const owner = await signedIn(fx.server, "who-owner");
    const org = await createOrg(owner.client, "Who Org");
    const admin = await joinAs(fx.server, owner.client, org.id, "admin", "who-admin");
    const member = await joinAs(fx.server, owner.client, org.id, "member", "who-member");

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
