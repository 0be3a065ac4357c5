// Connecting an organization's Stripe account against a Stripe stand-in on loopback, through the
// official `stripe` package: keys checked against Stripe and against the organization's side (sandbox: test
// keys, live: live keys), till's webhook endpoint registered on the account, keys and signing secret sealed and
// never shown; Stripe's signed events verified and recorded once.
import { PassThrough } from "node:stream";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { STRIPE_EVENT_TYPES } from "../../server/payments/stripe/client.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { reservePort } from "../helpers/ports.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { StripePeer } from "../helpers/stripe-peer.js";

const KEYS = {
  test: "sk_test_51TillAaaaaaaaaaaaaaaaaaaaaaa1234",
  restricted: "rk_test_51TillBbbbbbbbbbbbbbbbbbbbbbbb5678",
  live: "sk_live_51TillCcccccccccccccccccccccccc9012",
  pkTest: "pk_test_51TillDddddddddddddddddddddddd",
  pkLive: "pk_live_51TillEeeeeeeeeeeeeeeeeeeeeeee",
  other: "sk_test_51TillFfffffffffffffffffffffffff3456",
};

let peer: StripePeer;
let server: TestServer;
let seller: Seller;
let sandboxKey: string;
let liveKey: string;
const log = new PassThrough();
let logText = "";

beforeAll(async () => {
  peer = new StripePeer([
    { id: "acct_1Till", keys: [{ secret: KEYS.test }, { secret: KEYS.live }, { secret: KEYS.restricted, permissions: ["balance_read", "webhook_write", "webhook_read"] }] },
    { id: "acct_2Other", keys: [{ secret: KEYS.other }] },
  ]);
  const stripeUrl = await peer.start();
  log.on("data", (chunk: Buffer) => (logText += chunk.toString("utf8")));
  // till's public URL is one Stripe can reach; the test's clients, on loopback, are a trusted origin
  const { port, release } = await reservePort();
  await release();
  server = await startServer(
    { TILL_BASE_URL: "https://till.example.com", TILL_TRUSTED_ORIGINS: `http://127.0.0.1:${port}`, TILL_STRIPE_API_URL: stripeUrl },
    { logStream: log, port },
  );
  seller = await createSeller(server, "stripe");
  [sandboxKey, liveKey] = await Promise.all([seller.createSandboxKey(), seller.createKey()]);
});
afterAll(async () => {
  await server?.close();
  await peer?.stop();
});

async function call(token: string, method: string, body?: unknown) {
  const res = await fetch(`${server.url}/v1/stripe/connection`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : null) as Record<string, unknown> & { detail?: Array<{ loc: string[]; msg: string; input?: unknown }> }, text };
}

/** The endpoint the stand-in holds for till, with its URL pointed at the test server. */
const reachable = (endpoint: { secret: string; url: string; livemode: boolean }) => ({ ...endpoint, url: `${server.url}${new URL(endpoint.url).pathname}` });

describe("till stripe connect (PUT /v1/stripe/connection)", () => {
  it("refuses keys of the wrong side, kind or account, and unknown keys, storing and registering nothing", async () => {
    const cases: Array<[Record<string, unknown>, string, RegExp]> = [
      [{ secret_key: KEYS.live, publishable_key: KEYS.pkLive }, "secret_key", /sandbox organization: it takes Stripe's test-mode keys/],
      [{ secret_key: KEYS.test, publishable_key: KEYS.pkLive }, "publishable_key", /test-mode keys/],
      [{ secret_key: KEYS.pkTest, publishable_key: KEYS.pkTest }, "secret_key", /secret key \(sk_…\) or restricted key/],
      [{ secret_key: "sk_test_51TillUnknownnnnnnnnnnnnnnn0000", publishable_key: KEYS.pkTest }, "secret_key", /Stripe refused this key: Invalid API Key provided: sk_test_\*+0000/],
    ];
    for (const [body, field, msg] of cases) {
      const res = await call(sandboxKey, "PUT", body);
      expect(res.status, res.text).toBe(422);
      expect(res.body.detail?.[0]?.loc).toEqual(["body", field]);
      expect(res.body.detail?.[0]?.msg).toMatch(msg);
      // a key is never echoed whole
      expect(res.text).not.toMatch(/sk_(test|live)_51Till[A-Za-z]{10}/);
    }
    const live = await call(liveKey, "PUT", { secret_key: KEYS.test, publishable_key: KEYS.pkTest });
    expect(live.status).toBe(422);
    expect(live.body.detail?.[0]?.msg).toMatch(/live organization: it takes Stripe's live keys .* test-mode keys belong to its sandbox \(till sandbox on\)/);
    const tooLong = await call(sandboxKey, "PUT", { secret_key: `sk_test_${"x".repeat(400)}`, publishable_key: KEYS.pkTest });
    expect(tooLong.status).toBe(422);
    expect(tooLong.text).not.toContain("xxxxxxxxxx");
    const extra = await call(sandboxKey, "PUT", { secret_key: KEYS.test, publishable_key: KEYS.pkTest, account: "acct_x" });
    expect(extra.status).toBe(422);
    expect(peer.endpoints.size).toBe(0);
    expect((await call(sandboxKey, "GET")).body).toEqual({ connected: false, test_processor: true });
  });

  it("says what to do when Stripe cannot reach till's URL, and connects with the Stripe CLI's signing secret instead", async () => {
    const local = await startServer({ TILL_STRIPE_API_URL: peer.url });
    try {
      const localSeller = await createSeller(local, "stripe-local");
      const key = await localSeller.createSandboxKey();
      const res = await fetch(`${local.url}/v1/stripe/connection`, {
        method: "PUT",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ secret_key: KEYS.other, publishable_key: KEYS.pkTest }),
      });
      const body = (await res.json()) as { detail: Array<{ loc: string[]; msg: string }> };
      expect(res.status).toBe(422);
      expect(body.detail[0]?.loc).toEqual(["body", "webhook_secret"]);
      expect(body.detail[0]?.msg).toContain("URL must be publicly accessible");
      expect(body.detail[0]?.msg).toContain(`stripe listen --forward-to ${local.url}/api/stripe/webhook/`);
      const secret = "whsec_cliSecretForForwardedEvents1234";
      const cli = await fetch(`${local.url}/v1/stripe/connection`, {
        method: "PUT",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ secret_key: KEYS.other, publishable_key: KEYS.pkTest, webhook_secret: secret }),
      });
      const connected = (await cli.json()) as { webhook_endpoint: { id: string | null; url: string }; account_id: string };
      expect(cli.status).toBe(200);
      expect(connected.account_id).toBe("acct_2Other");
      expect(connected.webhook_endpoint.id).toBeNull();
      // events forwarded by the CLI are verified with its secret
      const delivered = await peer.deliver({ secret, url: connected.webhook_endpoint.url, livemode: false }, { type: "payment_intent.succeeded" });
      expect(delivered.status).toBe(200);
    } finally {
      await local.close();
    }
  });

  it("connects a sandbox with test keys: the endpoint registered for till's events, keys sealed and never shown", async () => {
    const res = await call(sandboxKey, "PUT", { secret_key: KEYS.test, publishable_key: KEYS.pkTest });
    expect(res.status, res.text).toBe(200);
    const endpoint = [...peer.endpoints.values()].find((e) => e.account === "acct_1Till");
    expect(endpoint).toBeDefined();
    expect(endpoint?.url).toMatch(/^https:\/\/till\.example\.com\/api\/stripe\/webhook\/[0-9a-f-]{36}$/);
    expect(endpoint?.enabled_events).toEqual([...STRIPE_EVENT_TYPES]);
    expect(res.body).toEqual({
      connected: true,
      account_id: "acct_1Till",
      livemode: false,
      secret_key: "sk_test_…1234",
      publishable_key: KEYS.pkTest,
      webhook_endpoint: { id: endpoint?.id, url: endpoint?.url },
      last_event: null,
      last_error: null,
      connected_at: expect.any(String),
    });
    expect(res.text).not.toContain(KEYS.test);
    expect(res.text).not.toContain(endpoint?.secret ?? "whsec_");
    // at rest: sealed, neither the key nor the signing secret readable in the table
    const rows = await server.database.db.execute(sql`SELECT secret_key, webhook_secret FROM stripe_connection`);
    const raw = JSON.stringify(rows);
    expect(raw).not.toContain(KEYS.test);
    expect(raw).not.toContain(endpoint?.secret ?? "whsec_");
    expect(raw).toContain("v1.");
    // the request to Stripe carried an idempotency key: a retried connect gets the same endpoint back
    const create = peer.requests.find((r) => r.method === "POST" && r.path === "/v1/webhook_endpoints");
    expect(create?.idempotencyKey).toMatch(/^till-connect-/);
    expect((await call(sandboxKey, "GET")).body).toEqual(res.body);
  });

  it("takes Stripe's signed events once: a redelivery is acknowledged, a bad signature or another organization refused", async () => {
    const endpoint = [...peer.endpoints.values()].find((e) => e.account === "acct_1Till");
    if (!endpoint) throw new Error("no endpoint");
    const first = await peer.deliver(reachable(endpoint), { id: "evt_1Once", type: "payment_intent.succeeded", created: 1_790_000_000 });
    expect(first).toMatchObject({ status: 200, body: { received: true, duplicate: false } });
    const again = await peer.deliver(reachable(endpoint), { id: "evt_1Once", type: "payment_intent.succeeded", created: 1_790_000_000 });
    expect(again).toMatchObject({ status: 200, body: { duplicate: true } });
    const forged = await peer.deliver(reachable(endpoint), { id: "evt_2Forged", type: "charge.refunded" }, { secret: "whsec_notTheRightOne123456" });
    expect(forged.status).toBe(400);
    const stale = await peer.deliver(reachable(endpoint), { id: "evt_3Stale", type: "charge.refunded" }, { timestamp: Math.floor(Date.now() / 1000) - 3600 });
    expect(stale.status).toBe(400);
    const unsigned = await fetch(reachable(endpoint).url, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(unsigned.status).toBe(400);
    const elsewhere = await peer.deliver({ ...reachable(endpoint), url: `${server.url}/api/stripe/webhook/${seller.organizationId}` }, { type: "charge.refunded" });
    expect(elsewhere.status).toBe(404);
    const status = await call(sandboxKey, "GET");
    expect(status.body.last_event).toEqual({ id: "evt_1Once", type: "payment_intent.succeeded", created_at: new Date(1_790_000_000_000).toISOString(), received_at: expect.any(String) });
  });

  it("connects with a restricted key that may not read the account (account id unknown), replacing the previous endpoint", async () => {
    const before = [...peer.endpoints.keys()];
    const res = await call(sandboxKey, "PUT", { secret_key: KEYS.restricted, publishable_key: KEYS.pkTest });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ account_id: null, secret_key: "rk_test_…5678" });
    const after = [...peer.endpoints.keys()];
    expect(after).toHaveLength(before.length);
    expect(after).not.toContain(before.find((id) => peer.endpoints.get(id)?.account === "acct_1Till"));
  });

  it("till stripe disconnect removes the endpoint on Stripe and the keys", async () => {
    const res = await call(sandboxKey, "DELETE");
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ endpoint_removed: true });
    expect([...peer.endpoints.values()].filter((e) => e.account === "acct_1Till")).toHaveLength(0);
    expect((await call(sandboxKey, "GET")).body).toEqual({ connected: false, test_processor: true });
    expect((await call(sandboxKey, "DELETE")).status).toBe(404);
  });

  it("connects a live organization with live keys", async () => {
    const res = await call(liveKey, "PUT", { secret_key: KEYS.live, publishable_key: KEYS.pkLive });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ livemode: true, account_id: "acct_1Till", secret_key: "sk_live_…9012" });
    expect((await call(sandboxKey, "GET")).body).toEqual({ connected: false, test_processor: true });
  });

  it("never writes a key or a signing secret to the log", () => {
    expect(logText.length).toBeGreaterThan(0);
    for (const secret of [KEYS.test, KEYS.live, KEYS.restricted, KEYS.other, ...[...peer.endpoints.values()].map((e) => e.secret)]) expect(logText).not.toContain(secret);
  });
});
