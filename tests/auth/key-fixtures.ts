// Shared set-up of the API-key, request-helper and device-flow tests: signed-in users, an organization
// with members of each role, and keys created through the HTTP API.
import { Client, uniqueEmail, type Res } from "../helpers/client.js";
import type { TestServer } from "../helpers/server.js";

export interface Person {
  client: Client;
  user: { id: string; email: string };
  /** The raw session token of the sign-up (what `Authorization: Bearer` takes). */
  token: string;
}

export interface CreatedKey {
  id: string;
  key: string;
  start: string | null;
  prefix: string | null;
  name: string | null;
  referenceId: string;
  enabled: boolean;
  expiresAt: string | null;
  rateLimitEnabled: boolean;
  rateLimitMax: number | null;
  rateLimitTimeWindow: number | null;
  permissions: Record<string, string[]> | null;
}

export async function person(server: TestServer, tag: string): Promise<Person> {
  const client = new Client(server.url);
  const { user, token } = await client.signUp(uniqueEmail(tag));
  return { client, user, token };
}

let slug = 0;
export async function createOrganization(owner: Person, name = "Acme"): Promise<string> {
  const res = await owner.client.post<{ id: string }>("/api/auth/organization/create", {
    name,
    slug: `${name.toLowerCase()}-${Date.now().toString(36)}-${slug++}`,
  });
  if (res.status !== 200) throw new Error(`organization/create: ${res.status} ${res.text}`);
  return res.body.id;
}

/** Adds an existing user to an organization with a role (a fixture: the invitation flow is tested elsewhere). */
export async function addMember(server: TestServer, organizationId: string, p: Person, role: "admin" | "member") {
  await server.auth.api.addMember({ body: { organizationId, userId: p.user.id, role } });
}

export function createKey(p: Person, body: Record<string, unknown>): Promise<Res<CreatedKey>> {
  return p.client.post<CreatedKey>("/api/auth/api-key/create", body);
}

export async function mustCreateKey(p: Person, body: Record<string, unknown>): Promise<CreatedKey> {
  const res = await createKey(p, body);
  if (res.status !== 200) throw new Error(`api-key/create: ${res.status} ${res.text}`);
  return res.body;
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
