// The foundation: the server starts on a fresh database, migrations apply, sign-up works, the
// error page and API reference render.
import { verifyPassword } from "better-auth/crypto";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as schema from "../../server/db/schema/index.js";
import { Client, uniqueEmail } from "../helpers/client.js";
import { startServer, type TestServer } from "../helpers/server.js";

let server: TestServer;
beforeAll(async () => {
  // passwords hashed at production's cost (the other in-process test servers use a cheaper one: password-hashing.ts)
  server = await startServer({}, { productionPasswords: true });
});
afterAll(async () => server?.close());

describe("server foundation", () => {
  it("answers /healthz once migrations ran", async () => {
    const res = await new Client(server.url).get("/healthz");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: "ok" });
  });

  it("signs up with email and password and stores the email in lower case", async () => {
    const c = new Client(server.url);
    const email = uniqueEmail("Mixed").replace("mixed", "MiXeD");
    const { user } = await c.signUp(email);
    expect(user.email).toBe(email.toLowerCase());
    const session = await c.get<{ user: { id: string } }>("/api/auth/get-session");
    expect(session.body.user.id).toBe(user.id);
    // better-auth's scrypt hash (hex salt and key), which its own check accepts, as on a production server
    const [account] = await server.database.db.select().from(schema.account).where(eq(schema.account.userId, user.id));
    expect(account?.password).toMatch(/^[0-9a-f]{32}:[0-9a-f]{128}$/);
    expect(await verifyPassword({ hash: account!.password!, password: "correct-horse-battery" })).toBe(true);
    const again = await new Client(server.url).post("/api/auth/sign-in/email", { email, password: "correct-horse-battery" });
    expect(again.status, again.text).toBe(200);
  });

  it("renders the authentication error page with the spec's texts", async () => {
    const c = new Client(server.url);
    const res = await c.get("/api/auth/error?error=state_mismatch");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/html");
    expect(res.text).toContain("<title>Authentication Error</title>");
    expect(res.text).toContain(
      "We encountered an issue while processing your request. Please try again or contact the application owner if the problem persists.",
    );
    expect(res.text).toContain('<a href="/">Return to Application</a>');
    expect(res.text).toContain("Error Code: <code>state_mismatch</code>");
    const none = await c.get("/api/auth/error");
    expect(none.text).toContain("Error Code: <code>Unknown</code>");
    const hostile = await c.get("/api/auth/error?error=%3Cscript%3E");
    expect(hostile.text).not.toContain("<script>");
  });

  it("serves an API reference for the auth routes", async () => {
    const c = new Client(server.url);
    const doc = await c.get<{ openapi: string; paths: Record<string, unknown> }>("/api/openapi.json");
    expect(doc.status).toBe(200);
    expect(doc.body.paths).toHaveProperty("/api/auth/sign-in/email");
    expect(doc.body.paths).toHaveProperty("/api/auth/device/token");
    expect(doc.body.paths).toHaveProperty(["/v1/products/{id}", "get"]);
    // Scalar's plugin answers /api/reference with a redirect to /api/reference/
    expect((await c.get("/api/reference")).status).toBe(301);
    const page = await c.get("/api/reference/");
    expect(page.status).toBe(200);
    // Scalar's viewer renders the document in the browser, from its script served here (never a CDN)
    expect(page.text).toContain("/api/openapi.json");
    expect(page.text).toContain(`src="js/scalar.js"`);
    const script = await fetch(`${server.url}/api/reference/js/scalar.js`);
    expect(script.status).toBe(200);
    // the document is built on its first request (under a second idle; 13 s seen on a loaded CI machine)
  }, 90_000);

  it("answers unknown routes with a 404 in the Polar error shape", async () => {
    const res = await new Client(server.url).get("/nope");
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ error: "ResourceNotFound" });
  });
});
