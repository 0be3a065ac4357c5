// Request rules of the auth service (the product spec's request errors): invalid bodies and queries, and what a client
// can throw at the mount (never a 500).
import { describe, expect, it } from "vitest";
import { Client, uniqueEmail } from "../helpers/client.js";
import { requestsFixture, PASSWORD, raw, type RawResponse } from "./requests-fixtures.js";

const fx = requestsFixture();

describe("invalid input", () => {
  it('an invalid body is 400 VALIDATION_ERROR "Invalid body parameters"', async () => {
    const c = new Client(fx.server.url);
    for (const body of [{ email: 5, password: PASSWORD }, {}, [1, 2], null, "text"]) {
      const res = await c.post<{ code: string; message: string; details: string }>("/api/auth/sign-in/email", body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body).toMatchObject({ code: "VALIDATION_ERROR", message: "Invalid body parameters" });
      // better-call's own account of what was wrong stays available
      expect(res.body.details).toMatch(/^\[body/);
    }
  });

  it('an invalid query is 400 VALIDATION_ERROR "Invalid query parameters"', async () => {
    const c = new Client(fx.server.url);
    for (const path of ["/api/auth/verify-email", "/api/auth/delete-user/callback", "/api/auth/verify-email?token[a]=1"]) {
      const res = await c.get(path);
      expect(res.status, path).toBe(400);
      expect(res.body).toMatchObject({ code: "VALIDATION_ERROR", message: "Invalid query parameters" });
    }
  });

  it('a malformed email is 400 "Invalid email"', async () => {
    const res = await new Client(fx.server.url).post("/api/auth/sign-in/email", { email: "not-an-email", password: PASSWORD });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: "Invalid email", code: "INVALID_EMAIL" });
  });

  it("form-encoded bodies are read like JSON ones", async () => {
    const { email } = await fx.signedUp();
    const client = new Client(fx.server.url);
    const ok = await client.request<{ user: { email: string } }>("POST", "/api/auth/sign-in/email", {
      form: { email, password: PASSWORD },
    });
    expect(ok.status).toBe(200);
    expect(ok.body.user.email).toBe(email);
    expect(client.sessionToken).toBeDefined();

    const bad = await new Client(fx.server.url).request("POST", "/api/auth/sign-in/email", { form: { email } });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: "VALIDATION_ERROR", message: "Invalid body parameters" });
  });

  it("an empty POST body is fine where the endpoint takes none", async () => {
    const { client } = await fx.signedUp();
    const res = await raw(fx.server.url, "POST", "/api/auth/sign-out", {
      "content-type": "application/json",
      "content-length": "0",
      origin: fx.server.url,
      cookie: [...client.cookies].map(([k, v]) => `${k}=${v}`).join("; "),
    });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.text)).toEqual({ success: true });
  });

  it("whatever a client sends, the answer is a clear 4xx, never a 500", async () => {
    const json = { "content-type": "application/json", origin: fx.server.url };
    const cases: Array<{ name: string; status: number; send: () => Promise<RawResponse>; body?: unknown }> = [
      {
        name: "malformed JSON",
        status: 400,
        send: () => raw(fx.server.url, "POST", "/api/auth/sign-in/email", json, '{"email": '),
        body: { message: "Invalid JSON in request body", code: "BAD_REQUEST" },
      },
      {
        name: "invalid UTF-8",
        status: 400,
        send: () => raw(fx.server.url, "POST", "/api/auth/sign-in/email", json, Buffer.from([0xff, 0xfe, 0x7b])),
      },
      {
        name: "text/plain",
        status: 415,
        send: () => raw(fx.server.url, "POST", "/api/auth/sign-in/email", { "content-type": "text/plain", origin: fx.server.url }, "hi"),
        body: {
          message: 'Content-Type "text/plain" is not allowed. Allowed types: application/x-www-form-urlencoded, application/json',
          code: "UNSUPPORTED_MEDIA_TYPE",
        },
      },
      {
        name: "multipart",
        status: 415,
        send: () =>
          raw(
            fx.server.url,
            "POST",
            "/api/auth/sign-in/email",
            { "content-type": "multipart/form-data; boundary=x", origin: fx.server.url },
            '--x\r\nContent-Disposition: form-data; name="email"\r\n\r\na@b.co\r\n--x--\r\n',
          ),
      },
      {
        name: "no content type",
        status: 415,
        send: () => raw(fx.server.url, "POST", "/api/auth/sign-in/email", { origin: fx.server.url }, "abc"),
      },
      {
        name: "a body over 1 MiB",
        status: 413,
        send: () => raw(fx.server.url, "POST", "/api/auth/sign-in/email", json, `{"email":"${"x".repeat(1024 * 1024 + 10)}"}`),
      },
      {
        name: "a form body of nonsense",
        status: 400,
        send: () =>
          raw(fx.server.url, "POST", "/api/auth/sign-in/email", { "content-type": "application/x-www-form-urlencoded", origin: fx.server.url }, "%%%&&==&email[a]=1"),
      },
      {
        name: "a Host header no URL can be built from",
        status: 400,
        send: () => raw(fx.server.url, "GET", "/api/auth/get-session", { host: "bad host" }),
        body: { message: "Invalid Host header", code: "INVALID_HOST_HEADER" },
      },
      {
        name: "a badly encoded path",
        status: 400,
        send: () => raw(fx.server.url, "GET", "/api/auth/%zz", {}),
      },
      {
        name: "a session cookie with a bad signature",
        status: 200,
        send: () => raw(fx.server.url, "GET", "/api/auth/get-session", { cookie: "better-auth.session_token=%zz%.%%" }),
        body: null,
      },
      {
        name: "an empty Bearer token",
        status: 200,
        send: () => raw(fx.server.url, "GET", "/api/auth/get-session", { authorization: "Bearer " }),
        body: null,
      },
      {
        name: "a password of 100,000 characters",
        status: 400,
        send: () =>
          raw(fx.server.url, "POST", "/api/auth/sign-in/email", json, JSON.stringify({ email: "a@b.co", password: "x".repeat(100_000) })),
        body: { message: "Password too long", code: "PASSWORD_TOO_LONG" },
      },
    ];
    for (const c of cases) {
      const res = await c.send();
      expect(res.status, c.name).toBe(c.status);
      if (c.body !== undefined) expect(JSON.parse(res.text), c.name).toEqual(c.body);
    }
  });

  it("a NUL character anywhere in a body or query is 400 INVALID_CHARACTERS and changes nothing", async () => {
    const { client, email } = await fx.signedUp();
    const cookie = {
      cookie: [...client.cookies].map(([k, v]) => `${k}=${v}`).join("; "),
      "content-type": "application/json",
      origin: fx.server.url,
    };
    const nul = "a\u0000b";
    const cases: Array<[string, string, string, string | undefined]> = [
      ["sign-up name", "POST", "/api/auth/sign-up/email", `{"email":"${uniqueEmail("nul")}","password":"${PASSWORD}","name":"${nul}"}`],
      ["sign-in email", "POST", "/api/auth/sign-in/email", `{"email":"${nul}@example.com","password":"${PASSWORD}"}`],
      ["organization name", "POST", "/api/auth/organization/create", `{"name":"${nul}","slug":"nul-org-${Date.now()}"}`],
      ["organization slug", "POST", "/api/auth/organization/create", `{"name":"Nul","slug":"${nul}"}`],
      ["user name", "POST", "/api/auth/update-user", `{"name":"${nul}"}`],
      ["metadata key", "POST", "/api/auth/organization/create", `{"name":"Nul","slug":"nul-meta-${Date.now()}","metadata":{"${nul}":"x"}}`],
      ["query", "GET", "/api/auth/organization/check-slug?slug=a%00b", undefined],
      ["device code query", "GET", "/api/auth/device?user_code=%00", undefined],
    ];
    for (const [name, method, path, body] of cases) {
      const res = await raw(fx.server.url, method, path, cookie, body);
      expect(res.status, name).toBe(400);
      expect(JSON.parse(res.text), name).toEqual({ message: "Request contains NUL characters", code: "INVALID_CHARACTERS" });
    }
    // an escaped backslash followed by "u0000" is text, not a NUL
    const text = await raw(fx.server.url, "POST", "/api/auth/update-user", cookie, '{"name":"back\\\\u0000slash"}');
    expect(text.status).toBe(200);
    const session = await raw(fx.server.url, "GET", "/api/auth/get-session", cookie);
    expect((JSON.parse(session.text) as { user: unknown }).user).toMatchObject({ email, name: "back\\u0000slash" });
  });

  it("a method the auth service does not serve is 404", async () => {
    const res = await raw(fx.server.url, "PUT", "/api/auth/sign-in/email", { "content-type": "application/json" }, "{}");
    expect(res.status).toBe(404);
  });
});
