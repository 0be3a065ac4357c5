// Username sign-in and anonymous sign-in (the product spec's sessions and sign-in): signing up with a username,
// POST /sign-in/username, POST /is-username-available; POST /sign-in/anonymous and what happens to the
// anonymous user's organizations when that visitor signs up or signs in for real (server/auth/anonymous.ts).
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { member, session as sessionTable, user as userTable } from "../../server/db/schema/auth.js";
import { Client, uniqueEmail } from "../helpers/client.js";
import { startServer, type TestServer } from "../helpers/server.js";

const PASSWORD = "correct-horse-battery";

interface UserBody {
  id: string;
  email: string;
  name: string;
  username: string | null;
  displayUsername: string | null;
  isAnonymous: boolean | null;
}

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => server?.close());

let counter = 0;
const uniqueUsername = (tag = "user") => `${tag}_${Date.now().toString(36)}${counter++}`;

async function userRow(id: string) {
  const [found] = await server.database.db.select().from(userTable).where(eq(userTable.id, id));
  return found;
}

async function memberships(userId: string) {
  return server.database.db.select().from(member).where(eq(member.userId, userId));
}

async function createOrganization(client: Client, name: string) {
  const slug = `${name.toLowerCase().replace(/[^a-z0-9]+/g, "-")}-${Date.now().toString(36)}${counter++}`;
  const res = await client.post<{ id: string; slug: string }>("/api/auth/organization/create", { name, slug });
  expect(res.status).toBe(200);
  return res.body;
}

describe("username sign-in", () => {
  it("signs up with a username, stored normalized (lower case) with the display form kept", async () => {
    const client = new Client(server.url);
    const username = uniqueUsername("Alice");
    const res = await client.post<{ user: UserBody }>("/api/auth/sign-up/email", {
      email: uniqueEmail("alice"),
      password: PASSWORD,
      name: "Alice",
      username,
    });
    expect(res.status).toBe(200);
    expect(res.body.user.username).toBe(username.toLowerCase());
    expect(res.body.user.displayUsername).toBe(username);
    expect((await userRow(res.body.user.id))?.username).toBe(username.toLowerCase());
  });

  it("POST /sign-in/username signs in with the username and password, in any letter case", async () => {
    const username = uniqueUsername("bob");
    const { user } = await new Client(server.url).signUp(uniqueEmail("bob"), PASSWORD, "Bob", { username });

    const client = new Client(server.url);
    const res = await client.post<{ redirect: boolean; token: string; user: UserBody }>("/api/auth/sign-in/username", {
      username: username.toUpperCase(),
      password: PASSWORD,
    });
    expect(res.status).toBe(200);
    expect(res.body.redirect).toBe(false);
    expect(res.body.user.id).toBe(user.id);
    expect(res.body.token).toBe(client.sessionToken);
    const session = await client.get<{ user: { id: string } }>("/api/auth/get-session");
    expect(session.body.user.id).toBe(user.id);
  });

  it("POST /sign-in/username honours rememberMe: false like the email sign-in", async () => {
    const username = uniqueUsername("carol");
    await new Client(server.url).signUp(uniqueEmail("carol"), PASSWORD, "Carol", { username });
    const res = await new Client(server.url).post("/api/auth/sign-in/username", {
      username,
      password: PASSWORD,
      rememberMe: false,
    });
    expect(res.status).toBe(200);
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith("better-auth.session_token="));
    expect(cookie).not.toMatch(/Max-Age/i);
  });

  it('a wrong password or an unknown username is 401 "Invalid username or password", with no session', async () => {
    const username = uniqueUsername("dave");
    await new Client(server.url).signUp(uniqueEmail("dave"), PASSWORD, "Dave", { username });
    for (const body of [
      { username, password: "not-the-password" },
      { username: uniqueUsername("nobody"), password: PASSWORD },
    ]) {
      const client = new Client(server.url);
      const res = await client.post("/api/auth/sign-in/username", body);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ message: "Invalid username or password", code: "INVALID_USERNAME_OR_PASSWORD" });
      expect(client.sessionToken).toBeUndefined();
    }
  });

  it('an invalid username format is refused: "Username is invalid", too short, too long', async () => {
    const signIn = (username: string) =>
      new Client(server.url).post("/api/auth/sign-in/username", { username, password: PASSWORD });
    expect((await signIn("bad name!")).status).toBe(422);
    expect((await signIn("bad name!")).body).toEqual({ message: "Username is invalid", code: "INVALID_USERNAME" });
    expect((await signIn("ab")).body).toEqual({ message: "Username is too short", code: "USERNAME_TOO_SHORT" });
    expect((await signIn("a".repeat(31))).body).toEqual({ message: "Username is too long", code: "USERNAME_TOO_LONG" });

    const signUp = await new Client(server.url).post("/api/auth/sign-up/email", {
      email: uniqueEmail("bad"),
      password: PASSWORD,
      name: "Bad",
      username: "no spaces allowed",
    });
    expect(signUp.status).toBe(400);
    expect(signUp.body).toEqual({ message: "Username is invalid", code: "INVALID_USERNAME" });
  });

  it("refuses a username that is taken, whatever its case", async () => {
    const username = uniqueUsername("erin");
    await new Client(server.url).signUp(uniqueEmail("erin"), PASSWORD, "Erin", { username });
    const res = await new Client(server.url).post("/api/auth/sign-up/email", {
      email: uniqueEmail("erin2"),
      password: PASSWORD,
      name: "Erin Two",
      username: username.toUpperCase(),
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      message: "Username is already taken. Please try another.",
      code: "USERNAME_IS_ALREADY_TAKEN",
    });
  });

  it("POST /is-username-available tells whether a username is free", async () => {
    const username = uniqueUsername("frank");
    const c = new Client(server.url);
    const before = await c.post("/api/auth/is-username-available", { username });
    expect(before.status).toBe(200);
    expect(before.body).toEqual({ available: true });
    await new Client(server.url).signUp(uniqueEmail("frank"), PASSWORD, "Frank", { username });
    expect((await c.post("/api/auth/is-username-available", { username })).body).toEqual({ available: false });
    expect((await c.post("/api/auth/is-username-available", { username: username.toUpperCase() })).body).toEqual({
      available: false,
    });
    const invalid = await c.post("/api/auth/is-username-available", { username: "not valid" });
    expect(invalid.status).toBe(422);
    expect(invalid.body).toEqual({ message: "Username is invalid", code: "INVALID_USERNAME" });
  });
});

describe("anonymous sign-in", () => {
  async function anonymousVisitor() {
    const client = new Client(server.url);
    const res = await client.post<{ token: string; user: UserBody }>("/api/auth/sign-in/anonymous");
    expect(res.status).toBe(200);
    return { client, user: res.body.user, token: res.body.token };
  }

  it("POST /sign-in/anonymous creates an anonymous user and signs it in", async () => {
    const { client, user, token } = await anonymousVisitor();
    expect(user.isAnonymous).toBe(true);
    expect(user.name).toBe("Anonymous");
    expect(token).toBe(client.sessionToken);
    const session = await client.get<{ user: UserBody }>("/api/auth/get-session");
    expect(session.body.user).toMatchObject({ id: user.id, isAnonymous: true });
    expect((await userRow(user.id))?.isAnonymous).toBe(true);
  });

  it("an anonymous user cannot sign in anonymously again", async () => {
    const { client } = await anonymousVisitor();
    const res = await client.post("/api/auth/sign-in/anonymous");
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      message: "Anonymous users cannot sign in again anonymously",
      code: "ANONYMOUS_USERS_CANNOT_SIGN_IN_AGAIN_ANONYMOUSLY",
    });
  });

  it("signing up with email and password deletes the anonymous user and moves its organizations over", async () => {
    const { client, user: anon } = await anonymousVisitor();
    const org = await createOrganization(client, "Anon Shop");
    expect((await memberships(anon.id)).map((m) => m.organizationId)).toEqual([org.id]);

    const email = uniqueEmail("converted");
    const res = await client.post<{ user: UserBody }>("/api/auth/sign-up/email", { email, password: PASSWORD, name: "Real" });
    expect(res.status).toBe(200);
    const real = res.body.user;
    expect(real.id).not.toBe(anon.id);
    expect(real.isAnonymous).toBe(false);

    expect(await userRow(anon.id)).toBeUndefined();
    expect(await server.database.db.select().from(sessionTable).where(eq(sessionTable.userId, anon.id))).toEqual([]);
    const moved = await memberships(real.id);
    expect(moved.map((m) => [m.organizationId, m.role])).toEqual([[org.id, "owner"]]);

    // the browser is now the real user, who can use the organization
    const session = await client.get<{ user: UserBody }>("/api/auth/get-session");
    expect(session.body.user).toMatchObject({ id: real.id, email, isAnonymous: false });
    const full = await client.get<{ id: string; members: Array<{ userId: string; role: string }> }>(
      `/api/auth/organization/get-full-organization?organizationId=${org.id}`,
    );
    expect(full.status).toBe(200);
    expect(full.body.members.map((m) => [m.userId, m.role])).toEqual([[real.id, "owner"]]);
  });

  it("signing in to an existing account does the same, without duplicating a membership it already has", async () => {
    // an existing account that owns one organization
    const owner = new Client(server.url);
    const email = uniqueEmail("existing");
    const { user: existing } = await owner.signUp(email, PASSWORD, "Existing");
    const shared = await createOrganization(owner, "Shared");

    // the same person, browsing anonymously, creates a second organization and is invited into the first
    const { client, user: anon } = await anonymousVisitor();
    const own = await createOrganization(client, "Anon Only");
    await server.database.db.insert(member).values({
      organizationId: shared.id,
      userId: anon.id,
      role: "member",
      createdAt: new Date(),
    });

    const res = await client.post<{ user: UserBody }>("/api/auth/sign-in/email", { email, password: PASSWORD });
    expect(res.status).toBe(200);
    expect(res.body.user.id).toBe(existing.id);

    expect(await userRow(anon.id)).toBeUndefined();
    expect(await memberships(anon.id)).toEqual([]);
    const now = (await memberships(existing.id)).map((m) => [m.organizationId, m.role]);
    expect(now.sort()).toEqual(
      [
        [shared.id, "owner"],
        [own.id, "owner"],
      ].sort(),
    );
  });

  it("someone else's sign-up leaves an unrelated anonymous user alone", async () => {
    const { user: anon } = await anonymousVisitor();
    expect((await userRow(anon.id))?.isAnonymous).toBe(true);
    const client = new Client(server.url);
    const { user } = await client.signUp(uniqueEmail("plain"), PASSWORD);
    expect((await userRow(user.id))?.isAnonymous).toBe(false);
    expect((await userRow(anon.id))?.isAnonymous).toBe(true);
  });
});
