// The OAuth 2.0 device authorization grant (RFC 8628; the spec's device code and its limits): codes, polling,
// claim/approve/deny, expiry, single use, and the access token as a bearer session. Polling intervals are
// passed by moving last_polled_at back in the database rather than by sleeping. The form-encoded token request
// and parallel polls: device-token.test.ts.
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { hashStoredToken } from "../../server/auth/stored-tokens.js";
import { deviceCode } from "../../server/db/schema/auth.js";
import { ConfigError, loadConfig } from "../../server/config.js";
import { Client } from "../helpers/client.js";
import { startServer } from "../helpers/server.js";
import { bearer, createOrganization, person } from "./key-fixtures.js";
import {
  CLIENT_ID,
  deviceFixture,
  expectOAuthError,
  GRANT_TYPE,
  OTHER_CLIENT,
  USER_CODE,
  type CodeResponse,
  type OAuthError,
} from "./device-fixtures.js";

const fx = deviceFixture();

describe("device authorization request", () => {
  it("answers JSON with the spec's codes and constants", async () => {
    const before = Date.now();
    const res = await new Client(fx.server.url).post<CodeResponse>("/api/auth/device/code", {
      client_id: CLIENT_ID,
      scope: "openid profile",
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const b = res.body;
    expect(Object.keys(b).sort()).toEqual(
      ["device_code", "expires_in", "interval", "user_code", "verification_uri", "verification_uri_complete"].sort(),
    );
    expect(b.device_code).toMatch(/^[A-Za-z0-9]{40}$/);
    expect(b.user_code).toMatch(USER_CODE);
    expect(b.verification_uri).toBe(`${fx.server.config.baseURL}/device`);
    expect(b.verification_uri).toBe(`${fx.server.url}/device`);
    expect(b.verification_uri_complete).toBe(`${fx.server.url}/device?user_code=${b.user_code}`);
    expect(b.expires_in).toBe(1800);
    expect(b.interval).toBe(1);

    const stored = await fx.row(b.device_code);
    expect(stored).toMatchObject({
      userCode: hashStoredToken(b.user_code),
      status: "pending",
      userId: null,
      clientId: CLIENT_ID,
      scope: "openid profile",
      pollingInterval: 1000,
      lastPolledAt: null,
    });
    const expiresAt = stored?.expiresAt.getTime() ?? 0;
    expect(expiresAt).toBeGreaterThanOrEqual(before + 1_800_000 - 1000);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + 1_800_000 + 1000);
  });

  it("accepts a form-encoded request (RFC 8628 clients)", async () => {
    const res = await new Client(fx.server.url).request<CodeResponse>("POST", "/api/auth/device/code", {
      form: { client_id: CLIENT_ID, scope: "openid" },
    });
    expect(res.status).toBe(200);
    expect(res.body.device_code).toMatch(/^[A-Za-z0-9]{40}$/);
    expect(res.body.user_code).toMatch(USER_CODE);
    expect(res.body.expires_in).toBe(1800);
    expect((await fx.row(res.body.device_code))?.scope).toBe("openid");
  });

  it("gives every request its own codes", async () => {
    const a = await fx.requestCode();
    const b = await fx.requestCode();
    expect(a.device_code).not.toBe(b.device_code);
    expect(a.user_code).not.toBe(b.user_code);
  });

  it("requires a client_id", async () => {
    const json = await new Client(fx.server.url).post("/api/auth/device/code", {});
    expectOAuthError(json, 400, "invalid_request");
    const form = await new Client(fx.server.url).request("POST", "/api/auth/device/code", { form: { scope: "openid" } });
    expectOAuthError(form, 400, "invalid_request");
  });

  it("polls every 5 s and expires after 30 min by default", async () => {
    const plain = await startServer({ TILL_DEVICE_CODE_INTERVAL: undefined });
    try {
      expect(plain.config.device).toEqual({ interval: "5s", expiresIn: "30m", clients: new Map([[CLIENT_ID, "till CLI"]]) });
      const b = await fx.requestCode(plain);
      expect(b.interval).toBe(5);
      expect(b.expires_in).toBe(1800);
      expect(b.device_code).toHaveLength(40);
      expect(b.user_code).toHaveLength(8);
      expect(b.verification_uri).toBe(`${plain.url}/device`);
      const rows = await plain.database.db.select().from(deviceCode).where(eq(deviceCode.deviceCode, hashStoredToken(b.device_code)));
      expect(rows[0]?.pollingInterval).toBe(5000);
    } finally {
      await plain.close();
    }
  });
});

describe("polling and approval", () => {
  it("runs pending → slow_down → claim → approve → token, once", async () => {
    const code = await fx.requestCode();
    expectOAuthError(await fx.poll(code.device_code), 400, "authorization_pending");
    // polling again within the interval
    const fast = await fx.poll(code.device_code);
    expectOAuthError(fast, 400, "slow_down");
    await fx.waitInterval(code.device_code);
    expectOAuthError(await fx.poll(code.device_code), 400, "authorization_pending");

    // the signed-in user opens the verification page: the code is claimed for them
    const claim = await fx.alice.client.get(`/api/auth/device?user_code=${code.user_code}`);
    expect(claim.status).toBe(200);
    expect(claim.body).toEqual({
      user_code: code.user_code,
      status: "pending",
      client_id: CLIENT_ID,
      client_name: "till CLI",
      scope: "openid profile",
    });
    expect((await fx.row(code.device_code))?.userId).toBe(fx.alice.user.id);

    // someone else can neither see the details nor approve it
    const peek = await fx.bob.client.get(`/api/auth/device?user_code=${code.user_code}`);
    expect(peek.status).toBe(200);
    expect(peek.body).toEqual({ user_code: code.user_code, status: "pending" });
    const hijack = await fx.bob.client.post("/api/auth/device/approve", { userCode: code.user_code });
    expectOAuthError(hijack, 403, "access_denied");

    const approve = await fx.alice.client.post("/api/auth/device/approve", { userCode: code.user_code });
    expect(approve.status).toBe(200);
    expect(approve.body).toEqual({ success: true });
    expect((await fx.row(code.device_code))?.status).toBe("approved");

    await fx.waitInterval(code.device_code);
    const token = await fx.poll(code.device_code);
    expect(token.status).toBe(200);
    expect(token.headers.get("cache-control")).toBe("no-store");
    expect(token.body.token_type).toBe("Bearer");
    expect(token.body.access_token).toMatch(/^[A-Za-z0-9]{32}$/);
    expect(token.body.scope).toBe("openid profile");
    expect(token.body.expires_in).toBeGreaterThan(7 * 86_400 - 60);
    expect(token.body.expires_in).toBeLessThanOrEqual(7 * 86_400);

    // single use: the code is consumed
    expect(await fx.row(code.device_code)).toBeUndefined();
    expectOAuthError(await fx.poll(code.device_code), 400, "invalid_grant");
    await fx.waitInterval(code.device_code);
    expectOAuthError(await fx.poll(code.device_code), 400, "invalid_grant");

    // the access token is a bearer session for better-auth and for the request helper
    const session = await new Client(fx.server.url).get<{ user: { id: string } }>(
      "/api/auth/get-session",
      bearer(token.body.access_token),
    );
    expect(session.status).toBe(200);
    expect(session.body.user.id).toBe(fx.alice.user.id);
    const who = await new Client(fx.server.url).get("/api/whoami", bearer(token.body.access_token));
    expect(who.status).toBe(200);
    expect(who.body).toEqual({
      kind: "session",
      user: { id: fx.alice.user.id, email: fx.alice.user.email, name: "Test User" },
      organization_id: null,
      sandbox: false,
      live_organization_id: null,
      roles: [],
      permissions: {},
      api_key: null,
    });
  });

  it("gives the CLI's token an organization through ?organization_id= and forgets it on sign-out", async () => {
    const orgId = await createOrganization(fx.alice, "Device");
    const code = await fx.requestCode();
    await fx.alice.client.get(`/api/auth/device?user_code=${code.user_code}`);
    await fx.alice.client.post("/api/auth/device/approve", { userCode: code.user_code });
    const token = await fx.poll(code.device_code);
    expect(token.status).toBe(200);
    const cli = bearer(token.body.access_token);
    const who = await new Client(fx.server.url).get(`/api/whoami?organization_id=${orgId}`, cli);
    expect(who.status).toBe(200);
    expect(who.body).toMatchObject({ kind: "session", organization_id: orgId, roles: ["owner"] });

    const out = await new Client(fx.server.url).post("/api/auth/sign-out", {}, cli);
    expect(out.status).toBe(200);
    expect((await new Client(fx.server.url).get("/api/whoami", cli)).status).toBe(401);
    const gone = await new Client(fx.server.url).get("/api/auth/get-session", cli);
    expect(gone.body).toBeNull();
  });

  it("normalises a user code typed in lower case with a dash", async () => {
    const code = await fx.requestCode();
    const typed = `${code.user_code.slice(0, 4)}-${code.user_code.slice(4)}`.toLowerCase();
    const claim = await fx.alice.client.get(`/api/auth/device?user_code=${typed}`);
    expect(claim.status).toBe(200);
    expect(claim.body).toMatchObject({ status: "pending", client_id: CLIENT_ID });
    const approve = await fx.alice.client.post("/api/auth/device/approve", { userCode: typed });
    expect(approve.body).toEqual({ success: true });
    expect((await fx.poll(code.device_code)).status).toBe(200);
  });

  it("answers access_denied when the user denies, then forgets the code", async () => {
    const code = await fx.requestCode();
    await fx.alice.client.get(`/api/auth/device?user_code=${code.user_code}`);
    const deny = await fx.alice.client.post("/api/auth/device/deny", { userCode: code.user_code });
    expect(deny.status).toBe(200);
    expect(deny.body).toEqual({ success: true });
    expect((await fx.row(code.device_code))?.status).toBe("denied");
    const again = await fx.alice.client.post("/api/auth/device/approve", { userCode: code.user_code });
    expectOAuthError(again, 400, "invalid_request");
    expectOAuthError(await fx.poll(code.device_code), 400, "access_denied");
    await fx.waitInterval(code.device_code);
    expectOAuthError(await fx.poll(code.device_code), 400, "invalid_grant");
  });

  it("answers expired_token once the code has expired", async () => {
    const code = await fx.requestCode();
    await fx.alice.client.get(`/api/auth/device?user_code=${code.user_code}`);
    await fx.server.database.db
      .update(deviceCode)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(deviceCode.deviceCode, hashStoredToken(code.device_code)));
    expectOAuthError(await fx.alice.client.get(`/api/auth/device?user_code=${code.user_code}`), 400, "expired_token");
    expectOAuthError(await fx.alice.client.post("/api/auth/device/approve", { userCode: code.user_code }), 400, "expired_token");
    expectOAuthError(await fx.poll(code.device_code), 400, "expired_token");
    expect(await fx.row(code.device_code)).toBeUndefined();
    expectOAuthError(await fx.poll(code.device_code), 400, "invalid_grant");
  });

  it("requires the code to be claimed, and a signed-in user, before approval", async () => {
    const code = await fx.requestCode();
    const unclaimed = await fx.alice.client.post("/api/auth/device/approve", { userCode: code.user_code });
    expectOAuthError(unclaimed, 400, "invalid_request");
    expect((unclaimed.body as OAuthError).error_description).toBe(
      "Device code has not been claimed by a verifying session; call `GET /device` with the `user_code` while signed in before approving or denying",
    );
    const anonymous = await new Client(fx.server.url).post("/api/auth/device/approve", { userCode: code.user_code });
    expectOAuthError(anonymous, 401, "unauthorized");
    // looking at the page signed out does not claim it
    const look = await new Client(fx.server.url).get(`/api/auth/device?user_code=${code.user_code}`);
    expect(look.body).toEqual({ user_code: code.user_code, status: "pending" });
    expect((await fx.row(code.device_code))?.userId).toBeNull();
  });

  it("answers invalid_grant, not a 500, when the approving user deleted their account meanwhile", async () => {
    const carol = await person(fx.server, "carol");
    const code = await fx.requestCode();
    await carol.client.get(`/api/auth/device?user_code=${code.user_code}`);
    expect((await carol.client.post("/api/auth/device/approve", { userCode: code.user_code })).status).toBe(200);
    const gone = await carol.client.post("/api/auth/delete-user", { password: "correct-horse-battery" });
    expect(gone.status).toBe(200);
    expect(await fx.row(code.device_code)).toBeUndefined();
    expectOAuthError(await fx.poll(code.device_code), 400, "invalid_grant");
  });

  it("answers invalid_grant for an unknown code or another registered client's code", async () => {
    expectOAuthError(await fx.poll("x".repeat(40)), 400, "invalid_grant");
    const code = await fx.requestCode();
    expectOAuthError(await fx.poll(code.device_code, OTHER_CLIENT.id), 400, "invalid_grant");
    expectOAuthError(await fx.alice.client.get(`/api/auth/device?user_code=ZZZZZZZZ`), 400, "invalid_request");
  });

  it("rejects malformed token requests with 400", async () => {
    const c = new Client(fx.server.url);
    for (const body of [
      {},
      { grant_type: "password", device_code: "x", client_id: CLIENT_ID },
      { grant_type: GRANT_TYPE, client_id: CLIENT_ID },
      { grant_type: GRANT_TYPE, device_code: 42, client_id: CLIENT_ID },
    ]) {
      const res = await c.post("/api/auth/device/token", body);
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
    const noCode = await fx.alice.client.get("/api/auth/device");
    expect(noCode.status).toBe(400);
  });
});

describe("registered clients", () => {
  it("answers invalid_client to a client_id nobody registered, on both endpoints", async () => {
    for (const clientId of ["someone-else", "TILL-CLI", "till-cli ", ""]) {
      const code = await new Client(fx.server.url).post("/api/auth/device/code", { client_id: clientId });
      if (clientId === "") expectOAuthError(code, 400, "invalid_request");
      else expectOAuthError(code, 400, "invalid_client");
    }
    const form = await new Client(fx.server.url).request("POST", "/api/auth/device/code", { form: { client_id: "someone-else" } });
    expectOAuthError(form, 400, "invalid_client");

    const issued = await fx.requestCode();
    expectOAuthError(await fx.poll(issued.device_code, "someone-else"), 400, "invalid_client");
    // the unknown client's poll neither counted as a poll nor touched the code
    expect((await fx.row(issued.device_code))?.lastPolledAt).toBeNull();
  });

  it("serves a client of TILL_DEVICE_CLIENTS, and the /device answer names it", async () => {
    const res = await new Client(fx.server.url).post<CodeResponse>("/api/auth/device/code", { client_id: OTHER_CLIENT.id });
    expect(res.status).toBe(200);
    const claim = await fx.alice.client.get(`/api/auth/device?user_code=${res.body.user_code}`);
    expect(claim.body).toMatchObject({ client_id: OTHER_CLIENT.id, client_name: OTHER_CLIENT.name });
    await fx.alice.client.post("/api/auth/device/approve", { userCode: res.body.user_code });
    const token = await fx.poll(res.body.device_code, OTHER_CLIENT.id);
    expect(token.status, token.text).toBe(200);
    // someone who is not the code's user sees neither the client nor its name
    const peek = await fx.bob.client.get(`/api/auth/device?user_code=${res.body.user_code}`);
    expect(peek.body).not.toHaveProperty("client_name");
  });

  it("refuses a malformed TILL_DEVICE_CLIENTS at start", () => {
    for (const value of ["no-name", "a b:Name", ":Name", `x:${"n".repeat(101)}`]) {
      expect(() => loadConfig({ TILL_DEVICE_CLIENTS: value }), value).toThrow(ConfigError);
    }
    expect(loadConfig({ TILL_DEVICE_CLIENTS: " app.one:App One , app-2:Two:Colons " }).device.clients).toEqual(
      new Map([
        [CLIENT_ID, "till CLI"],
        ["app.one", "App One"],
        ["app-2", "Two:Colons"],
      ]),
    );
  });
});
