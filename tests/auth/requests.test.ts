// Request rules of the auth service (product-spec §5 Accounts, §8 Requests, permissions and webhooks):
// trusted origins and callback URLs, invalid bodies and queries, what a client can throw at the mount
// (never a 500), rate limiting and how the client address is decided, and the shape of error codes.
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client, uniqueEmail } from "../helpers/client.js";
import { startServer, type TestServer } from "../helpers/server.js";

const PASSWORD = "correct-horse-battery";
const FOREIGN = "https://evil.example";

/** §8: "An error's code is the upper-cased form of its message". */
const upperCased = (message: string) => message.toUpperCase().replace(/[^A-Z0-9]+/g, "_");

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => server?.close());

async function signedUp(base = server.url) {
  const client = new Client(base);
  const email = uniqueEmail("requests");
  const { user } = await client.signUp(email, PASSWORD);
  return { client, email, userId: user.id };
}

/** A client that carries `from`'s cookies but sends another Origin, like a page on that origin would. */
function sameCookies(from: Client, origin: string): Client {
  const other = new Client(from.base, { origin });
  for (const [k, v] of from.cookies) other.cookies.set(k, v);
  return other;
}

interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

/** A request with exactly these headers and bytes (fetch would add or normalise some). */
function raw(base: string, method: string, path: string, headers: Record<string, string>, body?: string | Buffer) {
  const url = new URL(base);
  return new Promise<RawResponse>((resolve, reject) => {
    const req = http.request({ host: url.hostname, port: url.port, method, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString() }));
    });
    req.on("error", reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

describe("trusted origins", () => {
  it('a cookie-bearing POST from a foreign Origin is 403 "Invalid origin" and changes nothing', async () => {
    const { client, userId } = await signedUp();
    const res = await sameCookies(client, FOREIGN).post("/api/auth/update-user", { name: "Hijacked" });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ message: "Invalid origin", code: "INVALID_ORIGIN" });
    const session = await client.get<{ user: { id: string; name: string } }>("/api/auth/get-session");
    expect(session.body.user).toMatchObject({ id: userId, name: "Test User" });

    const signOut = await sameCookies(client, FOREIGN).post("/api/auth/sign-out");
    expect(signOut.status).toBe(403);
    expect(signOut.body).toEqual({ message: "Invalid origin", code: "INVALID_ORIGIN" });
    expect((await client.get("/api/auth/get-session")).body).not.toBeNull();
  });

  it('a sign-in posted from a foreign Origin is 403 "Invalid origin" and sets no cookie', async () => {
    const { email } = await signedUp();
    const foreign = new Client(server.url, { origin: FOREIGN });
    const res = await foreign.post("/api/auth/sign-in/email", { email, password: PASSWORD });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ message: "Invalid origin", code: "INVALID_ORIGIN" });
    expect(foreign.sessionToken).toBeUndefined();
  });

  it("a cookie-bearing POST with no Origin (nor Referer) is refused; a trusted Referer stands in for Origin", async () => {
    const { client } = await signedUp();
    const cookie = [...client.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
    const bare = await raw(server.url, "POST", "/api/auth/update-user", { "content-type": "application/json", cookie }, "{}");
    expect(bare.status).toBe(403);
    expect(JSON.parse(bare.text)).toEqual({ message: "Missing or null Origin", code: "MISSING_OR_NULL_ORIGIN" });

    const referred = await raw(
      server.url,
      "POST",
      "/api/auth/update-user",
      { "content-type": "application/json", cookie, referer: `${server.url}/settings` },
      JSON.stringify({ name: "Via Referer" }),
    );
    expect(referred.status).toBe(200);
  });

  it("reads (GET) are not origin-checked", async () => {
    const { client, userId } = await signedUp();
    const res = await sameCookies(client, FOREIGN).get<{ user: { id: string } }>("/api/auth/get-session");
    expect(res.status).toBe(200);
    expect(res.body.user.id).toBe(userId);
  });
});

describe("callback URLs", () => {
  it('a callbackURL on a foreign origin is 403 "Invalid callbackURL"', async () => {
    const { email } = await signedUp();
    for (const callbackURL of [`${FOREIGN}/after`, "//evil.example/after", "javascript:alert(1)"]) {
      const client = new Client(server.url);
      const res = await client.post("/api/auth/sign-in/email", { email, password: PASSWORD, callbackURL });
      expect(res.status, callbackURL).toBe(403);
      expect(res.body).toEqual({ message: "Invalid callbackURL", code: "INVALID_CALLBACK_URL" });
      expect(client.sessionToken).toBeUndefined();
    }
  });

  it("a relative callback path or one on the product's own origin is accepted", async () => {
    const { email } = await signedUp();
    for (const callbackURL of ["/dashboard?tab=billing", `${server.url}/welcome`]) {
      const client = new Client(server.url);
      const res = await client.post<{ redirect: boolean; url: string }>("/api/auth/sign-in/email", {
        email,
        password: PASSWORD,
        callbackURL,
      });
      expect(res.status, callbackURL).toBe(200);
      expect(res.body).toMatchObject({ redirect: true, url: callbackURL });
      expect(client.sessionToken).toBeDefined();
    }
  });

  it("other redirect targets are checked the same way", async () => {
    const { email } = await signedUp();
    const reset = await new Client(server.url).post("/api/auth/request-password-reset", {
      email,
      redirectTo: `${FOREIGN}/reset`,
    });
    expect(reset.status).toBe(403);
    expect(reset.body).toEqual({ message: "Invalid redirectURL", code: "INVALID_REDIRECT_URL" });

    const verifyLink = await new Client(server.url).get(`/api/auth/delete-user/callback?token=x&callbackURL=${encodeURIComponent(FOREIGN)}`);
    expect(verifyLink.status).toBe(403);
    expect(verifyLink.body).toEqual({ message: "Invalid callbackURL", code: "INVALID_CALLBACK_URL" });
  });
});

describe("TILL_TRUSTED_ORIGINS", () => {
  let extended: TestServer;
  beforeAll(async () => {
    extended = await startServer({ TILL_TRUSTED_ORIGINS: "https://app.example.com, https://*.shops.example" });
  });
  afterAll(async () => extended?.close());

  it("extends the trusted origins for Origin checks", async () => {
    const { client } = await signedUp(extended.url);
    const fromApp = await sameCookies(client, "https://app.example.com").post("/api/auth/update-user", { name: "From App" });
    expect(fromApp.status).toBe(200);
    const fromShop = await sameCookies(client, "https://north.shops.example").post("/api/auth/update-user", { name: "From Shop" });
    expect(fromShop.status).toBe(200);
    const foreign = await sameCookies(client, FOREIGN).post("/api/auth/update-user", { name: "Foreign" });
    expect(foreign.status).toBe(403);
    expect(foreign.body).toEqual({ message: "Invalid origin", code: "INVALID_ORIGIN" });

    // the server without the setting still refuses that origin
    const { client: plain } = await signedUp();
    const elsewhere = await sameCookies(plain, "https://app.example.com").post("/api/auth/update-user", { name: "No" });
    expect(elsewhere.status).toBe(403);
    expect(elsewhere.body).toEqual({ message: "Invalid origin", code: "INVALID_ORIGIN" });
  });

  it("extends the trusted origins for callback URLs", async () => {
    const { email } = await signedUp(extended.url);
    const ok = await new Client(extended.url).post("/api/auth/sign-in/email", {
      email,
      password: PASSWORD,
      callbackURL: "https://app.example.com/welcome",
    });
    expect(ok.status).toBe(200);
    const refused = await new Client(extended.url).post("/api/auth/sign-in/email", {
      email,
      password: PASSWORD,
      callbackURL: `${FOREIGN}/welcome`,
    });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ message: "Invalid callbackURL", code: "INVALID_CALLBACK_URL" });
  });
});

describe("invalid input", () => {
  it('an invalid body is 400 VALIDATION_ERROR "Invalid body parameters"', async () => {
    const c = new Client(server.url);
    for (const body of [{ email: 5, password: PASSWORD }, {}, [1, 2], null, "text"]) {
      const res = await c.post<{ code: string; message: string; details: string }>("/api/auth/sign-in/email", body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body).toMatchObject({ code: "VALIDATION_ERROR", message: "Invalid body parameters" });
      // better-call's own account of what was wrong stays available
      expect(res.body.details).toMatch(/^\[body/);
    }
  });

  it('an invalid query is 400 VALIDATION_ERROR "Invalid query parameters"', async () => {
    const c = new Client(server.url);
    for (const path of ["/api/auth/verify-email", "/api/auth/delete-user/callback", "/api/auth/verify-email?token[a]=1"]) {
      const res = await c.get(path);
      expect(res.status, path).toBe(400);
      expect(res.body).toMatchObject({ code: "VALIDATION_ERROR", message: "Invalid query parameters" });
    }
  });

  it('a malformed email is 400 "Invalid email"', async () => {
    const res = await new Client(server.url).post("/api/auth/sign-in/email", { email: "not-an-email", password: PASSWORD });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: "Invalid email", code: "INVALID_EMAIL" });
  });

  it("form-encoded bodies are read like JSON ones", async () => {
    const { email } = await signedUp();
    const client = new Client(server.url);
    const ok = await client.request<{ user: { email: string } }>("POST", "/api/auth/sign-in/email", {
      form: { email, password: PASSWORD },
    });
    expect(ok.status).toBe(200);
    expect(ok.body.user.email).toBe(email);
    expect(client.sessionToken).toBeDefined();

    const bad = await new Client(server.url).request("POST", "/api/auth/sign-in/email", { form: { email } });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: "VALIDATION_ERROR", message: "Invalid body parameters" });
  });

  it("an empty POST body is fine where the endpoint takes none", async () => {
    const { client } = await signedUp();
    const res = await raw(server.url, "POST", "/api/auth/sign-out", {
      "content-type": "application/json",
      "content-length": "0",
      origin: server.url,
      cookie: [...client.cookies].map(([k, v]) => `${k}=${v}`).join("; "),
    });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.text)).toEqual({ success: true });
  });

  it("whatever a client sends, the answer is a clear 4xx, never a 500", async () => {
    const json = { "content-type": "application/json", origin: server.url };
    const cases: Array<{ name: string; status: number; send: () => Promise<RawResponse>; body?: unknown }> = [
      {
        name: "malformed JSON",
        status: 400,
        send: () => raw(server.url, "POST", "/api/auth/sign-in/email", json, '{"email": '),
        body: { message: "Invalid JSON in request body", code: "BAD_REQUEST" },
      },
      {
        name: "invalid UTF-8",
        status: 400,
        send: () => raw(server.url, "POST", "/api/auth/sign-in/email", json, Buffer.from([0xff, 0xfe, 0x7b])),
      },
      {
        name: "text/plain",
        status: 415,
        send: () => raw(server.url, "POST", "/api/auth/sign-in/email", { "content-type": "text/plain", origin: server.url }, "hi"),
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
            server.url,
            "POST",
            "/api/auth/sign-in/email",
            { "content-type": "multipart/form-data; boundary=x", origin: server.url },
            '--x\r\nContent-Disposition: form-data; name="email"\r\n\r\na@b.co\r\n--x--\r\n',
          ),
      },
      {
        name: "no content type",
        status: 415,
        send: () => raw(server.url, "POST", "/api/auth/sign-in/email", { origin: server.url }, "abc"),
      },
      {
        name: "a body over 1 MiB",
        status: 413,
        send: () => raw(server.url, "POST", "/api/auth/sign-in/email", json, `{"email":"${"x".repeat(1024 * 1024 + 10)}"}`),
      },
      {
        name: "a form body of nonsense",
        status: 400,
        send: () =>
          raw(server.url, "POST", "/api/auth/sign-in/email", { "content-type": "application/x-www-form-urlencoded", origin: server.url }, "%%%&&==&email[a]=1"),
      },
      {
        name: "a Host header no URL can be built from",
        status: 400,
        send: () => raw(server.url, "GET", "/api/auth/get-session", { host: "bad host" }),
        body: { message: "Invalid Host header", code: "INVALID_HOST_HEADER" },
      },
      {
        name: "a badly encoded path",
        status: 400,
        send: () => raw(server.url, "GET", "/api/auth/%zz", {}),
      },
      {
        name: "a session cookie with a bad signature",
        status: 200,
        send: () => raw(server.url, "GET", "/api/auth/get-session", { cookie: "better-auth.session_token=%zz%.%%" }),
        body: null,
      },
      {
        name: "an empty Bearer token",
        status: 200,
        send: () => raw(server.url, "GET", "/api/auth/get-session", { authorization: "Bearer " }),
        body: null,
      },
      {
        name: "a password of 100,000 characters",
        status: 400,
        send: () =>
          raw(server.url, "POST", "/api/auth/sign-in/email", json, JSON.stringify({ email: "a@b.co", password: "x".repeat(100_000) })),
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
    const { client, email } = await signedUp();
    const cookie = {
      cookie: [...client.cookies].map(([k, v]) => `${k}=${v}`).join("; "),
      "content-type": "application/json",
      origin: server.url,
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
      const res = await raw(server.url, method, path, cookie, body);
      expect(res.status, name).toBe(400);
      expect(JSON.parse(res.text), name).toEqual({ message: "Request contains NUL characters", code: "INVALID_CHARACTERS" });
    }
    // an escaped backslash followed by "u0000" is text, not a NUL
    const text = await raw(server.url, "POST", "/api/auth/update-user", cookie, '{"name":"back\\\\u0000slash"}');
    expect(text.status).toBe(200);
    const session = await raw(server.url, "GET", "/api/auth/get-session", cookie);
    expect((JSON.parse(session.text) as { user: unknown }).user).toMatchObject({ email, name: "back\\u0000slash" });
  });

  it("a method the auth service does not serve is 404", async () => {
    const res = await raw(server.url, "PUT", "/api/auth/sign-in/email", { "content-type": "application/json" }, "{}");
    expect(res.status).toBe(404);
  });
});

describe("error codes", () => {
  it("are the upper-cased form of their messages", async () => {
    const { email } = await signedUp();
    const wrong = await new Client(server.url).post<{ message: string; code: string }>("/api/auth/sign-in/email", {
      email,
      password: "not-the-password",
    });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toEqual({ message: "Invalid email or password", code: "INVALID_EMAIL_OR_PASSWORD" });
    expect(wrong.body.code).toBe(upperCased(wrong.body.message));

    const unknown = await new Client(server.url).post<{ message: string; code: string }>("/api/auth/sign-in/email", {
      email: uniqueEmail("nobody"),
      password: PASSWORD,
    });
    expect(unknown.status).toBe(401);
    expect(unknown.body).toEqual(wrong.body);

    const { client } = await signedUp();
    const origin = await sameCookies(client, FOREIGN).post<{ message: string; code: string }>("/api/auth/sign-out");
    expect(origin.body.code).toBe(upperCased(origin.body.message));
  });
});

describe("rate limiting", () => {
  const MAX = 3;
  let limited: TestServer;
  let untrusting: TestServer;
  beforeAll(async () => {
    const env = { TILL_RATE_LIMIT: "true", TILL_RATE_LIMIT_MAX: String(MAX), TILL_RATE_LIMIT_WINDOW: "60" };
    // loopback proxies are trusted by default: the test client plays the proxy and names the client
    limited = await startServer(env);
    untrusting = await startServer({ ...env, TILL_TRUST_PROXY: "false" });
  });
  afterAll(async () => {
    await limited?.close();
    await untrusting?.close();
  });

  // the counters live in each server's database, keyed by client address and path, so each case below uses
  // its own addresses or its own path.
  async function hit(base: string, path: string, headers: Record<string, string> = {}) {
    return new Client(base).get(path, headers);
  }

  it("answers the (max+1)-th request in the window with 429 and when to retry", async () => {
    const ip = { "x-forwarded-for": "203.0.113.10" };
    for (let i = 0; i < MAX; i++) expect((await hit(limited.url, "/api/auth/ok", ip)).status).toBe(200);
    const res = await hit(limited.url, "/api/auth/ok", ip);
    expect(res.status).toBe(429);
    expect(res.body).toEqual({ message: "Too many requests. Please try again later." });
    const retryAfter = Number(res.headers.get("x-retry-after") ?? res.headers.get("retry-after"));
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    // another client (as named by the trusted proxy) is not affected
    expect((await hit(limited.url, "/api/auth/ok", { "x-forwarded-for": "203.0.113.11" })).status).toBe(200);
  });

  it("counts POSTs that fail too: guessing passwords runs into the limit", async () => {
    const ip = { "x-forwarded-for": "203.0.113.20" };
    const guess = () =>
      new Client(limited.url).post("/api/auth/sign-in/email", { email: "victim@example.com", password: "guess-guess" }, ip);
    const statuses: number[] = [];
    for (let i = 0; i < MAX + 1; i++) statuses.push((await guess()).status);
    expect(statuses).toEqual([401, 401, 401, 429]);
  });

  it("a client cannot dodge the limit by sending its own x-till-client-ip header", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < MAX + 2; i++) {
      const res = await hit(limited.url, "/api/auth/get-session", { "x-till-client-ip": `198.51.100.${i}` });
      statuses.push(res.status);
    }
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
  });

  it("x-till-client-ip cannot override what a trusted proxy says either", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < MAX + 1; i++) {
      const res = await hit(limited.url, "/api/auth/ok", {
        "x-forwarded-for": "203.0.113.30",
        "x-till-client-ip": `198.51.100.${i}`,
      });
      statuses.push(res.status);
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
  });

  it("without a trusted proxy, X-Forwarded-For is ignored and all requests count as the peer's", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < MAX + 1; i++) {
      const res = await hit(untrusting.url, "/api/auth/list-sessions", { "x-forwarded-for": `203.0.113.${40 + i}` });
      statuses.push(res.status);
    }
    // unauthenticated, so 401 until the limit answers first
    expect(statuses).toEqual([401, 401, 401, 429]);
  });

  it("answers 429 with Retry-After (and better-auth's X-Retry-After)", async () => {
    const ip = { "x-forwarded-for": "203.0.113.60" };
    let res = await hit(limited.url, "/api/auth/ok", ip);
    for (let i = 0; i < MAX; i++) res = await hit(limited.url, "/api/auth/ok", ip);
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe(res.headers.get("x-retry-after"));
  });

  it("a proxy that is not the one TILL_TRUST_PROXY names cannot pick the address either", async () => {
    // the test client connects from 127.0.0.1; only 192.0.2.1 is trusted, so X-Forwarded-For is ignored
    const elsewhere = await startServer({ TILL_RATE_LIMIT: "true", TILL_RATE_LIMIT_MAX: String(MAX), TILL_TRUST_PROXY: "192.0.2.1" });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < MAX + 1; i++) {
        const res = await hit(elsewhere.url, "/api/auth/ok", { "x-forwarded-for": `203.0.113.${70 + i}`, "x-real-ip": `203.0.113.${80 + i}` });
        statuses.push(res.status);
      }
      expect(statuses).toEqual([200, 200, 200, 429]);
    } finally {
      await elsewhere.close();
    }
  });

  it("is off unless TILL_RATE_LIMIT is on", async () => {
    const statuses = new Set<number>();
    for (let i = 0; i < MAX + 3; i++) statuses.add((await hit(server.url, "/api/auth/ok")).status);
    expect([...statuses]).toEqual([200]);
  });
});

describe("failed sign-ins per account", () => {
  const ACCOUNT_MAX = 3;
  let guarded: TestServer;
  let addressCounter = 0;
  /** Each attempt from a new client address, as a guesser with many addresses would. */
  const fresh = () => ({ "x-forwarded-for": `198.51.100.${++addressCounter}` });
  const signIn = (email: string, password: string) =>
    new Client(guarded.url).post<{ message: string; code: string }>("/api/auth/sign-in/email", { email, password }, fresh());

  beforeAll(async () => {
    guarded = await startServer({ TILL_RATE_LIMIT: "true", TILL_RATE_LIMIT_ACCOUNT_MAX: String(ACCOUNT_MAX), TILL_RATE_LIMIT_ACCOUNT_WINDOW: "600" });
  });
  afterAll(async () => guarded?.close());

  async function account(): Promise<string> {
    const email = uniqueEmail("locked");
    const res = await new Client(guarded.url).post("/api/auth/sign-up/email", { email, password: PASSWORD, name: "L" }, fresh());
    expect(res.status, res.text).toBe(200);
    return email;
  }

  it("after N wrong passwords from N addresses, the account answers 429 — the right password too — and others are untouched", async () => {
    const victim = await account();
    const bystander = await account();
    const statuses: number[] = [];
    // the spelling of the email does not matter
    for (let i = 0; i < ACCOUNT_MAX; i++) statuses.push((await signIn(i % 2 ? victim.toUpperCase() : victim, `guess-${i}-guess`)).status);
    expect(statuses).toEqual([401, 401, 401]);

    const locked = await signIn(victim, "guess-next-guess");
    expect(locked.status).toBe(429);
    expect(locked.body).toEqual({ message: "Too many failed sign-in attempts", code: "TOO_MANY_FAILED_SIGN_IN_ATTEMPTS" });
    const wait = Number(locked.headers.get("retry-after"));
    expect(wait).toBeGreaterThan(500);
    expect(wait).toBeLessThanOrEqual(600);
    expect((await signIn(victim, PASSWORD)).status).toBe(429);

    const other = await signIn(bystander, PASSWORD);
    expect(other.status).toBe(200);
  });

  it("counts guesses at accounts that do not exist the same way (no hint which exist)", async () => {
    const nobody = uniqueEmail("nobody");
    const statuses: number[] = [];
    for (let i = 0; i < ACCOUNT_MAX + 1; i++) statuses.push((await signIn(nobody, "guess-guess-guess")).status);
    expect(statuses).toEqual([401, 401, 401, 429]);
  });

  it("does not count successful sign-ins", async () => {
    const email = await account();
    for (let i = 0; i < ACCOUNT_MAX + 2; i++) expect((await signIn(email, PASSWORD)).status).toBe(200);
  });
});
