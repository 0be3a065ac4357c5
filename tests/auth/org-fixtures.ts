// Shared set-up for the organization, team/role and admin tests: signed-in users, organizations, and
// members of a given role who joined the real way (invitation mailed over SMTP, then accepted).
import { expect } from "vitest";
import { Client, uniqueEmail } from "../helpers/client.js";
import type { TestServer } from "../helpers/server.js";

export interface Person {
  client: Client;
  user: { id: string; email: string };
  email: string;
}

export interface Org {
  id: string;
  name: string;
  slug: string;
}

export async function signedIn(server: TestServer, tag: string): Promise<Person> {
  const client = new Client(server.url);
  const email = uniqueEmail(tag);
  const { user } = await client.signUp(email, "correct-horse-battery", tag);
  return { client, user, email: user.email };
}

let orgCounter = 0;
export async function createOrg(owner: Client, name = "Acme"): Promise<Org> {
  const slug = `${name.toLowerCase().replace(/[^a-z0-9]+/g, "-")}-${Date.now().toString(36)}-${orgCounter++}`;
  const res = await owner.post<Org>("/api/auth/organization/create", { name, slug });
  expect(res.status, res.text).toBe(200);
  return res.body;
}

/** Invites a new user with `role`, takes the invitation from the SMTP peer and accepts it. */
export async function joinAs(server: TestServer, owner: Client, orgId: string, role: string, tag = "member"): Promise<Person> {
  const person = await signedIn(server, tag);
  const invite = await owner.post<{ id: string }>("/api/auth/organization/invite-member", {
    email: person.email,
    role,
    organizationId: orgId,
  });
  expect(invite.status, invite.text).toBe(200);
  await server.mailbox.waitFor(person.email, /invited you to/);
  const accepted = await person.client.post("/api/auth/organization/accept-invitation", { invitationId: invite.body.id });
  expect(accepted.status, accepted.text).toBe(200);
  const active = await person.client.post("/api/auth/organization/set-active", { organizationId: orgId });
  expect(active.status, active.text).toBe(200);
  return person;
}

/** The Authorization header of `person`'s session, for the request helper (GET /api/whoami). */
export function bearer(person: Person): Record<string, string> {
  const token = person.client.sessionToken;
  if (!token) throw new Error("no session token");
  return { authorization: `Bearer ${token}` };
}
