// Organization roles of the product spec §6: owner, admin, member. Several roles per member are
// comma-separated in member.role; better-auth checks them with AND semantics by default.
import { createAccessControl } from "better-auth/plugins/access";
import { defaultStatements } from "better-auth/plugins/organization/access";

// apiKey: who may manage the organization's API keys (@better-auth/api-key checks it for organization keys)
export const statements = { ...defaultStatements, apiKey: ["create", "read", "update", "delete"] } as const;

export const ac = createAccessControl(statements);

export const owner = ac.newRole({
  organization: ["update", "delete"],
  member: ["create", "update", "delete"],
  invitation: ["create", "cancel"],
  team: ["create", "update", "delete"],
  ac: ["create", "read", "update", "delete"],
  apiKey: ["create", "read", "update", "delete"],
});

export const admin = ac.newRole({
  organization: ["update"],
  member: ["create", "update", "delete"],
  invitation: ["create", "cancel"],
  team: ["create", "update", "delete"],
  ac: ["create", "read", "update", "delete"],
  apiKey: ["create", "read", "update", "delete"],
});

export const member = ac.newRole({
  ac: ["read"],
});

export const roles = { owner, admin, member };
