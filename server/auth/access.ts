// Organization roles of the product spec: owner, admin, member. Several roles per member are
// comma-separated in member.role; better-auth checks them with AND semantics by default.
// Platform roles: admin and user, exactly as the spec's table.
import { createAccessControl } from "better-auth/plugins/access";
import { defaultStatements as adminPluginStatements } from "better-auth/plugins/admin/access";
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

export type Statements = Record<string, readonly string[]>;

/**
 * What the given roles grant together: every resource of `known` (empty when no role grants it), plus
 * the union of the roles' statements, taken from `builtIn` or else from the organization's dynamic roles.
 */
export function grantedBy(
  roleNames: readonly string[],
  known: Statements,
  builtIn: Record<string, { statements: Statements }>,
  dynamicRoles: ReadonlyMap<string, Statements> = new Map(),
): Record<string, string[]> {
  const granted: Record<string, string[]> = Object.fromEntries(Object.keys(known).map((r) => [r, []]));
  for (const name of roleNames) {
    const ofRole = Object.hasOwn(builtIn, name) ? builtIn[name]?.statements : dynamicRoles.get(name);
    for (const [resource, actions] of Object.entries(ofRole ?? {})) {
      granted[resource] = [...new Set([...(granted[resource] ?? []), ...actions])];
    }
  }
  return granted;
}

// better-auth's own admin role also grants user:set-email and user:set-phone; the spec's table does not,
// and passing the roles makes set-role refuse any role other than these two.
export const platformStatements = { ...adminPluginStatements } as const;

export const platformAc = createAccessControl(platformStatements);

export const platformRoles = {
  admin: platformAc.newRole({
    user: ["create", "list", "set-role", "ban", "impersonate", "delete", "set-password", "get", "update"],
    session: ["list", "revoke", "delete"],
  }),
  user: platformAc.newRole({ user: [], session: [] }),
};
