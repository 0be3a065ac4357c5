// The platform admin (the product spec's platform roles and limits): roles admin and user, "user" by default, the
// ids of TILL_ADMIN_USER_IDS pass every admin check, each admin endpoint works for an admin and is refused
// to a plain user, and a banned user cannot sign in.
import { randomUUID } from "node:crypto";
import { hashPassword } from "better-auth/crypto";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashStoredToken } from "../../server/auth/stored-tokens.js";
import { account, user as userTable } from "../../server/db/schema/auth.js";
import { Client, uniqueEmail } from "../helpers/client.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { bearer, signedIn, type Person } from "./org-fixtures.js";

interface ApiError {
  message: string;
  code?: string;
}
interface User {
  id: string;
  email: string;
  name: string;
  role: string | null;
  banned: boolean | null;
  banReason: string | null;
  banExpires: string | null;
}
interface Session {
  id: string;
  token: string;
  userId: string;
  impersonatedBy?: string | null;
}

const ADMIN = "/api/auth/admin";
const PASSWORD = "correct-horse-battery";
const BANNED_MESSAGE = "You have been banned from this application. Please contact support if you believe this is an error.";
/** The spec's platform admin table. */
const ADMIN_TABLE = {
  user: ["create", "list", "set-role", "ban", "impersonate", "delete", "set-password", "get", "update"],
  session: ["list", "revoke", "delete"],
};

// chosen before the server starts, so it can be configured; the user row is seeded with it below
const CONFIGURED_ADMIN_ID = randomUUID();

let server: TestServer;
let root: Person; // role "user", but listed in TILL_ADMIN_USER_IDS
let admin: Person; // role "admin"
let plain: Person; // role "user"

async function signIn(email: string, password = PASSWORD) {
  const client = new Client(server.url);
  const res = await client.post<{ user: User } & ApiError>("/api/auth/sign-in/email", { email, password });
  return { client, res };
}

async function seedUser(id: string, email: string): Promise<void> {
  const { db } = server.database;
  await db.insert(userTable).values({ id, email, name: "root", emailVerified: true, role: "user" });
  await db.insert(account).values({
    accountId: id,
    providerId: "credential",
    userId: id,
    password: await hashPassword(PASSWORD),
    updatedAt: new Date(),
  });
}

beforeAll(async () => {
  server = await startServer({ TILL_ADMIN_USER_IDS: CONFIGURED_ADMIN_ID });
  const rootEmail = uniqueEmail("root");
  await seedUser(CONFIGURED_ADMIN_ID, rootEmail);
  const signedInRoot = await signIn(rootEmail);
  expect(signedInRoot.res.status, signedInRoot.res.text).toBe(200);
  root = { client: signedInRoot.client, user: { id: CONFIGURED_ADMIN_ID, email: rootEmail }, email: rootEmail };

  admin = await signedIn(server, "admin");
  plain = await signedIn(server, "plain");
  // the configured admin makes another user an admin, the way an operator would
  const promoted = await root.client.post<{ user: User }>(`${ADMIN}/set-role`, { userId: admin.user.id, role: "admin" });
  expect(promoted.status, promoted.text).toBe(200);
});
afterAll(async () => server?.close());

describe("platform roles", () => {
  it("gives every new user the role user", async () => {
    const fresh = await signedIn(server, "newcomer");
    const session = await fresh.client.get<{ user: User }>("/api/auth/get-session");
    expect(session.body.user.role).toBe("user");
    const created = await admin.client.post<{ user: User }>(`${ADMIN}/create-user`, {
      email: uniqueEmail("created"),
      password: PASSWORD,
      name: "Created",
    });
    expect(created.body.user.role).toBe("user");
  });

  it("grants the admin role exactly the spec's table, the user role nothing", async () => {
    const check = async (p: Person, permissions: Record<string, string[]>) => {
      const res = await p.client.post<{ success: boolean; error: string | null }>(`${ADMIN}/has-permission`, { permissions });
      expect(res.status, res.text).toBe(200);
      return res.body;
    };
    for (const [resource, actions] of Object.entries(ADMIN_TABLE)) {
      expect(await check(admin, { [resource]: actions })).toEqual({ success: true, error: null });
      for (const action of actions) {
        expect(await check(plain, { [resource]: [action] })).toEqual({ success: false, error: `unauthorized to access resource "${resource}"` });
      }
    }
    // any-of: one granted action of the request is enough
    const anyOf = await admin.client.post(`${ADMIN}/has-permission`, { permissions: { user: ["set-email", "list"] }, connector: "OR" });
    expect(anyOf.body).toEqual({ success: true, error: null });
    // better-auth's own admin role would also allow these; the spec's table does not
    for (const action of ["set-email", "set-phone", "impersonate-admins"]) {
      expect(await check(admin, { user: [action] })).toEqual({ success: false, error: 'unauthorized to access resource "user"' });
    }
    expect(await check(admin, { organization: ["delete"] })).toEqual({
      success: false,
      error: "You are not allowed to access resource: organization",
    });
    // the configured admin passes every check, whatever their role
    expect(await check(root, { user: ["impersonate-admins", "set-email"], session: ["delete"] })).toEqual({ success: true, error: null });
    const rootSession = await root.client.get<{ user: User }>("/api/auth/get-session");
    expect(rootSession.body.user.role).toBe("user");
  });

  it("accepts only the roles admin and user in set-role", async () => {
    const target = await signedIn(server, "role-target");
    const bogus = await admin.client.post<ApiError>(`${ADMIN}/set-role`, { userId: target.user.id, role: "superuser" });
    expect(bogus.status).toBe(400);
    expect(bogus.body.message).toBe("You are not allowed to set a non-existent role value");
    const set = await admin.client.post<{ user: User }>(`${ADMIN}/set-role`, { userId: target.user.id, role: "admin" });
    expect(set.status).toBe(200);
    expect(set.body.user.role).toBe("admin");
    const back = await admin.client.post<{ user: User }>(`${ADMIN}/set-role`, { userId: target.user.id, role: "user" });
    expect(back.body.user.role).toBe("user");
  });
});

describe("admin endpoints", () => {
  it("creates, gets, lists, updates and deletes users", async () => {
    const email = uniqueEmail("managed");
    const created = await admin.client.post<{ user: User }>(`${ADMIN}/create-user`, { email, password: PASSWORD, name: "Managed", role: "user" });
    expect(created.status).toBe(200);
    expect(created.body.user).toMatchObject({ email, name: "Managed", role: "user" });
    const id = created.body.user.id;

    const got = await admin.client.get<User>(`${ADMIN}/get-user?id=${id}`);
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ id, email });

    const listed = await admin.client.get<{ users: User[]; total: number }>(
      `${ADMIN}/list-users?searchValue=${encodeURIComponent(email)}&searchField=email`,
    );
    expect(listed.status).toBe(200);
    expect(listed.body.total).toBe(1);
    expect(listed.body.users.map((u) => u.id)).toEqual([id]);

    const updated = await admin.client.post<User>(`${ADMIN}/update-user`, { userId: id, data: { name: "Renamed" } });
    expect(updated.status).toBe(200);
    expect(updated.body.name).toBe("Renamed");
    const email2 = await admin.client.post<ApiError>(`${ADMIN}/update-user`, { userId: id, data: { email: uniqueEmail("other") } });
    expect(email2.status).toBe(403);
    expect(email2.body.message).toBe("You are not allowed to update users email");

    const removed = await admin.client.post<{ success: boolean }>(`${ADMIN}/remove-user`, { userId: id });
    expect(removed.status).toBe(200);
    expect(removed.body.success).toBe(true);
    const gone = await admin.client.get<ApiError>(`${ADMIN}/get-user?id=${id}`);
    expect(gone.status).toBe(404);
    const self = await admin.client.post<ApiError>(`${ADMIN}/remove-user`, { userId: admin.user.id });
    expect(self.status).toBe(400);
    expect(self.body.message).toBe("You cannot remove yourself");
  });

  it("sets a user's password", async () => {
    const target = await signedIn(server, "new-password");
    const res = await admin.client.post<{ status: boolean }>(`${ADMIN}/set-user-password`, { userId: target.user.id, newPassword: "brand-new-password" });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe(true);
    expect((await signIn(target.email)).res.status).toBe(401);
    expect((await signIn(target.email, "brand-new-password")).res.status).toBe(200);
  });

  it("lists and revokes a user's sessions", async () => {
    const target = await signedIn(server, "sessions");
    const second = await signIn(target.email);
    expect(second.res.status).toBe(200);
    const listed = await admin.client.post<{ sessions: Session[] }>(`${ADMIN}/list-user-sessions`, { userId: target.user.id });
    expect(listed.status).toBe(200);
    expect(listed.body.sessions).toHaveLength(2);

    // a listed session's token is its handle (the stored hash), which revoke-user-session takes
    const one = listed.body.sessions.find((s) => s.token === hashStoredToken(target.client.sessionToken ?? ""));
    expect(one).toBeDefined();
    const revoked = await admin.client.post<{ success: boolean }>(`${ADMIN}/revoke-user-session`, { sessionToken: one?.token });
    expect(revoked.body.success).toBe(true);
    expect((await target.client.get("/api/auth/get-session")).body).toBeNull();
    expect((await second.client.get<{ user: User }>("/api/auth/get-session")).body.user.id).toBe(target.user.id);

    const all = await admin.client.post<{ success: boolean }>(`${ADMIN}/revoke-user-sessions`, { userId: target.user.id });
    expect(all.body.success).toBe(true);
    expect((await second.client.get("/api/auth/get-session")).body).toBeNull();
    expect((await admin.client.post<{ sessions: Session[] }>(`${ADMIN}/list-user-sessions`, { userId: target.user.id })).body.sessions).toEqual([]);
  });

  it("impersonates a user and stops, but not another admin", async () => {
    const target = await signedIn(server, "impersonated");
    const operator = await signIn(admin.email);
    const res = await operator.client.post<{ session: Session; user: User }>(`${ADMIN}/impersonate-user`, { userId: target.user.id });
    expect(res.status).toBe(200);
    expect(res.body.session).toMatchObject({ userId: target.user.id, impersonatedBy: admin.user.id });
    const as = await operator.client.get<{ user: User }>("/api/auth/get-session");
    expect(as.body.user.id).toBe(target.user.id);
    const stop = await operator.client.post(`${ADMIN}/stop-impersonating`);
    expect(stop.status).toBe(200);
    expect((await operator.client.get<{ user: User }>("/api/auth/get-session")).body.user.id).toBe(admin.user.id);

    const otherAdmin = await signedIn(server, "other-admin");
    await root.client.post(`${ADMIN}/set-role`, { userId: otherAdmin.user.id, role: "admin" });
    const refused = await admin.client.post<ApiError>(`${ADMIN}/impersonate-user`, { userId: otherAdmin.user.id });
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBe("You cannot impersonate admins");
  });

  it("bans a user: their sessions end and they cannot sign in until unbanned or the ban expires", async () => {
    const target = await signedIn(server, "banned");
    const token = bearer(target);
    expect((await target.client.get("/api/whoami", token)).status).toBe(200);

    const banned = await admin.client.post<{ user: User }>(`${ADMIN}/ban-user`, { userId: target.user.id, banReason: "spam" });
    expect(banned.status).toBe(200);
    expect(banned.body.user).toMatchObject({ banned: true, banReason: "spam", banExpires: null });
    expect((await target.client.get("/api/whoami", token)).status).toBe(401);
    expect((await target.client.get("/api/auth/get-session")).body).toBeNull();

    const refused = await signIn(target.email);
    expect(refused.res.status).toBe(403);
    expect(refused.res.body).toMatchObject({ code: "BANNED_USER", message: BANNED_MESSAGE });

    const unbanned = await admin.client.post<{ user: User }>(`${ADMIN}/unban-user`, { userId: target.user.id });
    expect(unbanned.body.user.banned).toBe(false);
    expect((await signIn(target.email)).res.status).toBe(200);

    // a ban with an expiry lifts itself once the expiry has passed (clock moved in the database)
    const timed = await admin.client.post<{ user: User }>(`${ADMIN}/ban-user`, { userId: target.user.id, banExpiresIn: 3600 });
    expect(timed.body.user.banExpires).not.toBeNull();
    expect((await signIn(target.email)).res.status).toBe(403);
    await server.database.db.update(userTable).set({ banExpires: new Date(Date.now() - 1000) }).where(eq(userTable.id, target.user.id));
    expect((await signIn(target.email)).res.status).toBe(200);

    const self = await admin.client.post<ApiError>(`${ADMIN}/ban-user`, { userId: admin.user.id });
    expect(self.status).toBe(400);
    expect(self.body.message).toBe("You cannot ban yourself");
  });

  it("lets the configured admin id (role user) use the admin endpoints", async () => {
    const listed = await root.client.get<{ users: User[]; total: number }>(`${ADMIN}/list-users?limit=100`);
    expect(listed.status).toBe(200);
    expect(listed.body.users.map((u) => u.id)).toContain(plain.user.id);
    const target = await signedIn(server, "root-target");
    expect((await root.client.post(`${ADMIN}/ban-user`, { userId: target.user.id })).status).toBe(200);
    expect((await root.client.post(`${ADMIN}/unban-user`, { userId: target.user.id })).status).toBe(200);
    // even what the admin role may not do
    const email = uniqueEmail("root-set");
    const setEmail = await root.client.post<User>(`${ADMIN}/update-user`, { userId: target.user.id, data: { email } });
    expect(setEmail.status).toBe(200);
    expect(setEmail.body.email).toBe(email);
    const operator = await signIn(root.email);
    const asAdmin = await operator.client.post(`${ADMIN}/impersonate-user`, { userId: admin.user.id });
    expect(asAdmin.status).toBe(200);
  });

  it("refuses every admin endpoint to a plain user", async () => {
    const victim = await signedIn(server, "victim");
    const attempts: Array<[string, string, unknown, string]> = [
      ["POST", "create-user", { email: uniqueEmail("nope"), password: PASSWORD, name: "Nope" }, "You are not allowed to create users"],
      ["GET", `list-users`, undefined, "You are not allowed to list users"],
      ["GET", `get-user?id=${victim.user.id}`, undefined, "You are not allowed to get user"],
      ["POST", "update-user", { userId: victim.user.id, data: { name: "Hacked" } }, "You are not allowed to update users"],
      ["POST", "set-role", { userId: plain.user.id, role: "admin" }, "You are not allowed to change users role"],
      ["POST", "ban-user", { userId: victim.user.id }, "You are not allowed to ban users"],
      ["POST", "unban-user", { userId: victim.user.id }, "You are not allowed to ban users"],
      ["POST", "impersonate-user", { userId: victim.user.id }, "You are not allowed to impersonate users"],
      ["POST", "remove-user", { userId: victim.user.id }, "You are not allowed to delete users"],
      ["POST", "set-user-password", { userId: victim.user.id, newPassword: "taken-over-123" }, "You are not allowed to set users password"],
      ["POST", "list-user-sessions", { userId: victim.user.id }, "You are not allowed to list users sessions"],
      ["POST", "revoke-user-session", { sessionToken: victim.client.sessionToken }, "You are not allowed to revoke users sessions"],
      ["POST", "revoke-user-session", { sessionToken: hashStoredToken(victim.client.sessionToken ?? "") }, "You are not allowed to revoke users sessions"],
      ["POST", "revoke-user-sessions", { userId: victim.user.id }, "You are not allowed to revoke users sessions"],
    ];
    for (const [method, path, json, message] of attempts) {
      const res = await plain.client.request<ApiError>(method, `${ADMIN}/${path}`, json === undefined ? {} : { json });
      expect({ path, status: res.status, message: res.body.message }).toEqual({ path, status: 403, message });
    }
    // nothing happened to the victim
    expect((await victim.client.get<{ user: User }>("/api/auth/get-session")).body.user).toMatchObject({ name: "victim", role: "user" });
    const stop = await plain.client.post<ApiError>(`${ADMIN}/stop-impersonating`);
    expect(stop.status).toBe(400);
    expect(stop.body.message).toBe("You are not impersonating anyone");
    // and without a session at all
    expect((await new Client(server.url).get(`${ADMIN}/list-users`)).status).toBe(401);
  });

  it("answers ids that are not UUIDs without a 500 (an unknown user, or no sessions)", async () => {
    for (const [method, path, json] of [
      ["GET", "get-user?id=nope", undefined],
      ["POST", "ban-user", { userId: "nope" }],
      ["POST", "set-role", { userId: "nope", role: "user" }],
      ["POST", "remove-user", { userId: "nope" }],
      ["POST", "impersonate-user", { userId: "nope" }],
      ["POST", "list-user-sessions", { userId: "nope" }],
      ["POST", "set-user-password", { userId: "nope", newPassword: "whatever-123" }],
      ["POST", "update-user", { userId: "nope", data: { name: "x" } }],
    ] as const) {
      const res = await admin.client.request(method, `${ADMIN}/${path}`, json === undefined ? {} : { json });
      if (path.startsWith("list-user-sessions")) expect(res.body).toEqual({ sessions: [] });
      else expect({ path, status: res.status, body: res.body }).toEqual({ path, status: 404, body: { code: "USER_NOT_FOUND", message: "User not found" } });
    }
  });
});
