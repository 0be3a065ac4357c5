// The server survives its database going away. The real server process (`node --import tsx server/main.ts`):
// - takes usage events and checkout confirms from concurrent clients while every backend of its database is
//   terminated (pg_terminate_backend, three times): the process stays up, every answer is a success or a 503 with
//   Retry-After, every acknowledged event is stored, every confirmed checkout is one paid order, and it serves
//   again within 5 s of the last termination;
// - runs behind a loopback TCP proxy that stops accepting and drops every connection for a few seconds, as a
//   PostgreSQL restart or failover does: meanwhile requests that need the database answer 503 with Retry-After in
//   the {"error","detail"} shape (a client error is still its 4xx), and afterwards it serves again within 5 s, its
//   LISTEN connection is back and the worker delivers webhooks again.
// Without patches/postgres+3.4.9.patch the first test's process dies (TypeError in postgres.js's nextWrite), or,
// with only the nextWrite guard, its requests hang on reservations that never settle; without the reconnect backoff
// of server/db/client.ts the second one is served again only some 10 s after PostgreSQL is back.
// PostgreSQL only: PGlite lives inside the process. The shared cluster is never restarted: only this test's
// database's backends are terminated, and the "restart" is the proxy's.
import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Polar } from "@polar-sh/sdk";
import { sql } from "drizzle-orm";
import postgres from "postgres";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { rowsOf } from "../../server/db/client.js";
import { Client, uniqueEmail } from "../helpers/client.js";
import { freshDatabase, usingPostgres } from "../helpers/db.js";
import { eventually, Receiver } from "../helpers/receiver.js";
import { TcpProxy } from "../helpers/tcp-proxy.js";
import { freePort, START_TIMEOUT_MS, startTill, type Till } from "../helpers/till-process.js";

/** How long the load runs, and when the backends are terminated (ms from its start). */
const LOAD_MS = 9_000;
const TERMINATE_AT_MS = [2_500, 4_500, 6_500];
const SERVES_AGAIN_WITHIN_MS = 5_000;
/** Far above any answer of a server that works (the database's reconnect included). */
const REQUEST_TIMEOUT_MS = 20_000;


interface Answer {
  status: number;
  retryAfter: string | null;
  body: unknown;
}

/** One request; no answer (the process died, or never answered within REQUEST_TIMEOUT_MS) is status 0. */
async function call(url: string, token: string, method: string, body?: unknown): Promise<Answer> {
  let res: Response;
  try {
    res = await fetch(url, {
      method,
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
    });
  } catch (err) {
    return { status: 0, retryAfter: null, body: String((err as Error).cause ?? err) };
  }
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON: kept as text (an assertion shows it)
  }
  return { status: res.status, retryAfter: res.headers.get("retry-after"), body: parsed };
}

const UNAVAILABLE = { error: "ServiceUnavailable", detail: expect.any(String) as unknown };

/** The database's name in a postgres:// URL. */
const databaseName = (url: string) => new URL(url).pathname.slice(1);

async function stopTill(till: Till | undefined): Promise<void> {
  if (!till || till.child.exitCode !== null || till.child.signalCode !== null) return;
  till.child.kill("SIGTERM");
  await Promise.race([till.exited, new Promise((r) => setTimeout(r, 5_000))]);
  if (till.child.exitCode === null && till.child.signalCode === null) till.child.kill("SIGKILL");
}

/** A seller with an API key and a free product, and the SDKs to buy it. */
async function setUp(baseUrl: string) {
  const client = new Client(baseUrl);
  const email = uniqueEmail("outage");
  const { token } = await client.signUp(email);
  const org = await client.post<{ id: string }>("/api/auth/organization/create", { name: "outage org", slug: `outage-${Date.now().toString(36)}` });
  expect(org.status).toBe(200);
  expect((await client.post("/api/auth/organization/set-active", { organizationId: org.body.id })).status).toBe(200);
  const key = await client.post<{ key: string }>("/api/auth/api-key/create", { organizationId: org.body.id, name: "outage" });
  expect(key.status).toBe(200);
  const sdk = new Polar({ accessToken: token, serverURL: baseUrl, timeoutMs: REQUEST_TIMEOUT_MS });
  const product = await sdk.products.create({ name: "Free", prices: [{ amountType: "free" }] });
  return { email, organizationId: org.body.id, token, key: key.body.key, sdk, buyer: new Polar({ serverURL: baseUrl, timeoutMs: REQUEST_TIMEOUT_MS }), product };
}

function baseEnv(port: number, databaseUrl: string): Record<string, string> {
  return {
    DATABASE_URL: databaseUrl,
    PORT: String(port),
    HOST: "127.0.0.1",
    TILL_BASE_URL: `http://127.0.0.1:${port}`,
    TILL_DATA_DIR: mkdtempSync(path.join(os.tmpdir(), "till-outage-")),
    TILL_AUTH_SECRET: "outage-test-secret-".padEnd(40, "x"),
    TILL_WEBHOOKS_ALLOW_PRIVATE: "true",
    TILL_RATE_LIMIT: "false",
    TILL_LOG_LEVEL: "warn",
  };
}

describe.skipIf(!usingPostgres)("the database goes away under load (PostgreSQL only)", () => {
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let admin: postgres.Sql;
  let till: Till | undefined;

  beforeAll(async () => {
    database = await freshDatabase({ max: 2 });
    // on the base database: terminating the test database's backends does not end this one
    admin = postgres(process.env.DATABASE_URL!, { max: 1, onnotice: () => {} });
  });
  afterEach(async () => {
    await stopTill(till);
    till = undefined;
  });
  afterAll(async () => {
    await admin?.end({ timeout: 5 });
    await database?.close();
  });

  /** Terminates every backend of the test database (the server's, and this process's own pool, which reconnects). */
  async function terminateBackends(): Promise<number> {
    const rows = await admin<{ ok: boolean }[]>`
      SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity
      WHERE datname = ${databaseName(database.url!)} AND pid <> pg_backend_pid()`;
    return rows.filter((r) => r.ok).length;
  }

  it(
    "terminating the server's backends during ingest and checkout confirms: the process stays up, nothing acknowledged is lost, it serves again within 5 s",
    { timeout: 120_000 + START_TIMEOUT_MS },
    async () => {
      const port = await freePort();
      const baseUrl = `http://127.0.0.1:${port}`;
      till = await startTill(baseEnv(port, database.url!));
      // the session token, not the API key: a key has its own rate limit (1,000 requests a minute), which an
      // unthrottled load on an idle machine passes
      const { token: key, sdk, buyer, product } = await setUp(baseUrl);
      const run = `outage-${Date.now().toString(36)}`;

      const acknowledgedEvents: string[] = [];
      const confirmed: string[] = [];
      const failures: Answer[] = [];
      /** When each request that succeeded was answered. */
      const okAt: number[] = [];
      const unexpected: unknown[] = [];
      let batches = 0;
      const started = Date.now();
      const until = started + LOAD_MS;

      const ingester = async (w: number) => {
        for (let i = 0; Date.now() < until && i < 10_000; i++) {
          const ids = Array.from({ length: 20 }, (_, j) => `${run}-${w}-${i}-${j}`);
          const answer = await call(`${baseUrl}/v1/events/ingest`, key, "POST", {
            events: ids.map((id) => ({ name: run, external_customer_id: `cust-${w}`, external_id: id, metadata: { w } })),
          });
          batches += 1;
          if (answer.status === 200) {
            acknowledgedEvents.push(...ids);
            okAt.push(Date.now());
          } else failures.push(answer);
        }
      };
      const buyerLoop = async (w: number) => {
        for (let i = 0; Date.now() < until && i < 10_000; i++) {
          let checkout;
          try {
            checkout = await sdk.checkouts.create({ products: [product.id] });
          } catch (err) {
            unexpected.push(err);
            continue;
          }
          try {
            const done = await buyer.checkouts.clientConfirm({
              clientSecret: checkout.clientSecret,
              checkoutConfirmStripe: { customerEmail: `outage-${w}-${i}@example.com`, customerName: `Buyer ${w}`, customerBillingAddress: { country: "FR" } },
            });
            confirmed.push(done.id);
            okAt.push(Date.now());
          } catch (err) {
            unexpected.push(err);
          }
        }
      };
      const terminations: Array<{ at: number; terminated: number }> = [];
      const terminator = async () => {
        for (const at of TERMINATE_AT_MS) {
          await new Promise((r) => setTimeout(r, Math.max(0, started + at - Date.now())));
          terminations.push({ at: Date.now(), terminated: await terminateBackends() });
        }
      };
      await Promise.all([...[0, 1, 2].map(ingester), ...[0, 1].map(buyerLoop), terminator()]);

      // the process never died
      expect(till.child.exitCode, till.output.join("")).toBeNull();
      expect(till.child.signalCode).toBeNull();
      expect(terminations.every((t) => t.terminated > 0)).toBe(true);
      expect(batches).toBeGreaterThan(10);

      // what failed, failed as "retry shortly": 503 with Retry-After, the usual error shape; never a 500
      for (const f of failures) expect(f).toEqual({ status: 503, retryAfter: "1", body: UNAVAILABLE });
      for (const err of unexpected) {
        const e = err as { statusCode?: number; body?: string };
        expect({ status: e.statusCode, body: JSON.parse(e.body ?? "null") as unknown }, String(err)).toEqual({ status: 503, body: UNAVAILABLE });
      }

      // under load, it served again within 5 s of each termination
      for (const t of terminations) {
        const next = okAt.filter((at) => at > t.at).sort((a, b) => a - b)[0];
        expect(next, `no success after the termination at ${t.at - started} ms`).toBeDefined();
        expect(next! - t.at).toBeLessThan(SERVES_AGAIN_WITHIN_MS);
      }
      // and idle: a termination when nothing runs, then a read and an ingest
      await terminateBackends();
      const cutAgain = Date.now();
      const servedAt = await eventually(
        async () => {
          const list = await call(`${baseUrl}/v1/products/`, key, "GET");
          const ingest = await call(`${baseUrl}/v1/events/ingest`, key, "POST", { events: [{ name: `${run}-after`, external_customer_id: "after" }] });
          return list.status === 200 && ingest.status === 200 && Date.now();
        },
        SERVES_AGAIN_WITHIN_MS,
        100,
      );
      expect(servedAt - cutAgain).toBeLessThan(SERVES_AGAIN_WITHIN_MS);

      // nothing acknowledged was lost: every acknowledged event stored once, every confirmed checkout one paid order
      const rows = await rowsOf<{ external_id: string }>(database.db, sql`SELECT external_id FROM event WHERE name = ${run}`);
      const storedIds = new Set(rows.map((r) => r.external_id));
      expect(acknowledgedEvents.length).toBeGreaterThan(0);
      expect(acknowledgedEvents.filter((id) => !storedIds.has(id))).toEqual([]);
      expect(rows.length).toBe(storedIds.size);

      expect(confirmed.length).toBeGreaterThan(0);
      const orders = await rowsOf<{ checkout_id: string; status: string; n: number }>(
        database.db,
        sql`SELECT checkout_id, min(status) AS status, count(*)::int AS n FROM "order"
            WHERE checkout_id IN (${sql.join(confirmed.map((id) => sql`${id}::uuid`), sql`, `)}) GROUP BY checkout_id`,
      );
      expect(orders).toHaveLength(confirmed.length);
      expect(orders.every((o) => o.n === 1 && o.status === "paid")).toBe(true);
    },
  );

  it(
    "PostgreSQL away for a few seconds (a restart, through a proxy): 503 with Retry-After meanwhile, then it serves, listens and delivers again",
    { timeout: 90_000 + START_TIMEOUT_MS },
    async () => {
      const base = new URL(process.env.DATABASE_URL!);
      const proxy = new TcpProxy({ host: base.hostname, port: Number(base.port || 5432) });
      await proxy.listen();
      const receiver = new Receiver();
      try {
        await receiver.start();
        const viaProxy = new URL(database.url!);
        viaProxy.hostname = "127.0.0.1";
        viaProxy.port = String(proxy.port);
        const port = await freePort();
        const baseUrl = `http://127.0.0.1:${port}`;
        till = await startTill(baseEnv(port, viaProxy.toString()));
        const { email, key, sdk } = await setUp(baseUrl);
        await sdk.webhooks.createWebhookEndpoint({ url: `${receiver.url}/hook`, format: "raw", events: ["product.created"] });

        /** The backends of the test database that last ran a LISTEN (the server's listening connection). */
        const listening = async () =>
          (await admin`SELECT pid FROM pg_stat_activity WHERE datname = ${databaseName(database.url!)} AND query ILIKE 'LISTEN %'`).length;
        await eventually(async () => (await listening()) > 0, 10_000, 100);

        // PostgreSQL goes away: every connection dropped, new ones refused
        await proxy.cut();
        const cutAt = Date.now();
        const list = await call(`${baseUrl}/v1/products/`, key, "GET");
        expect(list).toEqual({ status: 503, retryAfter: "1", body: UNAVAILABLE });
        const ingest = await call(`${baseUrl}/v1/events/ingest`, key, "POST", { events: [{ name: "away", external_customer_id: "c" }] });
        expect(ingest).toEqual({ status: 503, retryAfter: "1", body: UNAVAILABLE });
        // through the SDK: its retry codes include 503
        const viaSdk = await sdk.products.list({}).then(
          () => null,
          (err: unknown) => err as { statusCode?: number; body?: string },
        );
        expect({ status: viaSdk?.statusCode, body: JSON.parse(viaSdk?.body ?? "null") as unknown }).toEqual({ status: 503, body: UNAVAILABLE });
        // better-auth's routes too: a sign-in (a 503 in the same shape, not better-auth's empty 500)
        const signIn = await new Client(baseUrl).post("/api/auth/sign-in/email", { email, password: "correct-horse-battery" });
        expect({ status: signIn.status, retryAfter: signIn.headers.get("retry-after"), body: signIn.body }).toEqual({ status: 503, retryAfter: "1", body: UNAVAILABLE });
        // a client's error is still the client's: a body that is not JSON is a 422, not a 503
        const malformed = await call(`${baseUrl}/v1/products/`, key, "POST", "{not json");
        expect(malformed.status).toBe(422);
        expect(malformed.retryAfter).toBeNull();
        // away long enough for the listening connection's first attempts to come back to fail
        await new Promise((r) => setTimeout(r, Math.max(0, cutAt + 3_000 - Date.now())));
        expect(till.child.exitCode, till.output.join("")).toBeNull();

        // back: it serves again within 5 s, listens again, and the worker delivers what happens next
        await proxy.listen();
        const backAt = Date.now();
        const servedAt = await eventually(
          async () => (await call(`${baseUrl}/v1/products/`, key, "GET")).status === 200 && Date.now(),
          SERVES_AGAIN_WITHIN_MS,
          100,
        );
        expect(servedAt - backAt).toBeLessThan(SERVES_AGAIN_WITHIN_MS);
        await eventually(async () => (await listening()) > 0, SERVES_AGAIN_WITHIN_MS, 100);

        // a live stream (till listen's) opened now gets what happens next
        const stream = await fetch(`${baseUrl}/v1/cli/listen?events=product.created`, {
          headers: { authorization: `Bearer ${key}`, accept: "text/event-stream" },
          signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
        });
        expect(stream.status).toBe(200);
        const reader = stream.body!.getReader();
        const product = await sdk.products.create({ name: "After the restart", prices: [{ amountType: "free" }] });
        let text = "";
        const deadline = Date.now() + 10_000;
        while (!text.includes(product.id) && Date.now() < deadline) {
          const { value, done } = await reader.read();
          if (done) break;
          text += new TextDecoder().decode(value);
        }
        await reader.cancel();
        expect(text).toContain("event: product.created");
        expect(text).toContain(product.id);
        await receiver.until((hits) => hits.some((h) => h.path === "/hook" && h.body.includes(product.id)), 15_000);
        expect(till.child.exitCode).toBeNull();
      } finally {
        await stopTill(till);
        till = undefined;
        await receiver.stop();
        await proxy.cut();
      }
    },
  );
});
