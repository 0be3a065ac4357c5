// What the team and role tests share (teams-roles*.test.ts): a server of the file's own, the wire shapes of the
// organization plugin, the permissions of the product spec role by role, and the questions asked of them.
import { afterAll, beforeAll, expect } from "vitest";
import { startServer, type TestServer } from "../helpers/server.js";
import { bearer, type Person } from "./org-fixtures.js";

/** Starts the file's server in beforeAll (closed in afterAll); `server` is there once it has run. */
export function rolesFixture(): { server: TestServer } {
  const fx = {} as { server: TestServer };
  beforeAll(async () => {
    fx.server = await startServer();
  });
  afterAll(async () => fx.server?.close());
  return fx;
}

export interface ApiError {
  message: string;
  code?: string;
  details?: string;
  missingPermissions?: string[];
}
export interface Team {
  id: string;
  name: string;
  organizationId: string;
}
export interface Member {
  id: string;
  userId: string;
  role: string;
}
export interface OrgRole {
  id: string;
  role: string;
  organizationId: string;
  permission: Record<string, string[]>;
}
export interface Whoami {
  kind: string;
  user: { id: string } | null;
  organization_id: string | null;
  roles: string[];
  permissions: Record<string, string[]>;
}

export const A = "/api/auth/organization";

/** The organization permissions of the product spec, role by role. */
export const SPEC_TABLE = {
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
export const ALL_ACTIONS = SPEC_TABLE.owner;

export async function hasPermission(p: Person, orgId: string, permissions: Record<string, string[]>) {
  const res = await p.client.post<{ success: boolean; error: string | null }>(`${A}/has-permission`, {
    organizationId: orgId,
    permissions,
  });
  expect(res.status, res.text).toBe(200);
  return res.body;
}

/** Every (resource, action) of the spec's table the person holds in the organization, asked one by one. */
export async function grantedActions(p: Person, orgId: string): Promise<Record<string, string[]>> {
  const granted: Record<string, string[]> = {};
  for (const [resource, actions] of Object.entries(ALL_ACTIONS)) {
    for (const action of actions) {
      if ((await hasPermission(p, orgId, { [resource]: [action] })).success) (granted[resource] ??= []).push(action);
    }
  }
  return granted;
}

export async function memberIdOf(p: Person): Promise<string> {
  const res = await p.client.get<Member>(`${A}/get-active-member`);
  expect(res.status, res.text).toBe(200);
  return res.body.id;
}

export async function whoami(p: Person, orgId?: string) {
  return p.client.get<Whoami & { error?: string; detail?: string }>(
    `/api/whoami${orgId ? `?organization_id=${orgId}` : ""}`,
    bearer(p),
  );
}

/** The spec's resources only, actions sorted (other areas may add resources of their own, e.g. apiKey). */
export function specPart(permissions: Record<string, string[]>): Record<string, string[]> {
  return Object.fromEntries(
    Object.entries(permissions)
      .filter(([r, actions]) => r in ALL_ACTIONS && actions.length > 0)
      .map(([r, actions]) => [r, [...actions].sort()]),
  );
}
export const sorted = (t: Record<string, string[]>) => Object.fromEntries(Object.entries(t).map(([r, a]) => [r, [...a].sort()]));
