// Request rules of the auth service (the product spec's request errors): rate limiting and how the client address is
// decided (the file's default server is not limited), and failed sign-ins counted per account.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client, uniqueEmail } from "../helpers/client.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { requestsFixture, PASSWORD } from "./requests-fixtures.js";

const fx = requestsFixture();

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
    expect(res.body).toEqual({ message: "Too many requests. Please try again later.", code: "TOO_MANY_REQUESTS" });
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
    for (let i = 0; i < MAX + 3; i++) statuses.add((await hit(fx.server.url, "/api/auth/ok")).status);
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
