// `till listen` end to end: the real CLI (execa) forwards the server's event stream to a receiver on loopback,
// signed so that the SDK's validateEvent accepts it with the printed secret; across a server restart on the same
// port and database nothing is missed or sent twice; --events, --json, a receiver that is down, --print-secret,
// Ctrl-C and the missing-credentials exit code.
import { validateEvent } from "@polar-sh/sdk/webhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, inArray, isNotNull, sql } from "drizzle-orm";
import type { Database } from "../../server/db/client.js";
import { outbox } from "../../server/db/schema/index.js";
import { freshDatabase } from "../helpers/db.js";
import { eventually, Receiver, type Hit } from "../helpers/receiver.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { TcpProxy } from "../helpers/tcp-proxy.js";
import { login, spawnTill, tempConfigDir, till, type TillOptions } from "./till.js";

// a keep-alive every second: a stream gone silent is dropped after 3 s (three missed), not the default 45 s
const ENV = { TILL_WEBHOOKS_ALLOW_PRIVATE: "true", TILL_STREAM_KEEPALIVE: "1s" };

let database: Database;
let server: TestServer;
let port: number;
let seller: Seller;
let receiver: Receiver;
let cli: TillOptions;

beforeAll(async () => {
  database = await freshDatabase();
  server = await startServer(ENV, { database });
  port = Number(new URL(server.url).port);
  await server.worker.start();
  seller = await createSeller(server, "listen-cli");
  receiver = new Receiver();
  await receiver.start();
  const key = await seller.createKey({ webhooks: ["read"] });
  // live, said explicitly: listen uses the sandbox unless told otherwise (tests/cli/sandbox.test.ts)
  cli = { configDir: tempConfigDir(), env: { TILL_API_KEY: key, TILL_SERVER: server.url, TILL_SANDBOX: "0" } };
});
afterAll(async () => {
  await server?.close();
  await database?.close();
  await receiver?.stop();
});

type Child = ReturnType<typeof spawnTill>;

/** What the running CLI printed so far, and a wait for a pattern to show up `times` times on a stream. */
function watch(child: Child) {
  const text = { stdout: "", stderr: "" };
  child.stdout?.on("data", (c: Buffer) => (text.stdout += c.toString()));
  child.stderr?.on("data", (c: Buffer) => (text.stderr += c.toString()));
  return {
    stdout: () => text.stdout,
    stderr: () => text.stderr,
    async until(stream: "stdout" | "stderr", pattern: RegExp, times = 1, timeoutMs = 20_000): Promise<string> {
      const count = () => text[stream].match(new RegExp(pattern.source, "g"))?.length ?? 0;
      const deadline = Date.now() + timeoutMs;
      while (count() < times) {
        if (Date.now() > deadline) throw new Error(`no ${pattern} ×${times} on ${stream}; got: ${text[stream]}`);
        await new Promise((r) => setTimeout(r, 25));
      }
      return text[stream];
    },
  };
}

async function stop(child: Child) {
  child.kill("SIGINT");
  const r = await child;
  return { exitCode: r.exitCode, stdout: String(r.stdout), stderr: String(r.stderr) };
}

const dataOf = (hit: Hit) => (JSON.parse(hit.body) as { data: { id: string } }).data;

describe("till listen", () => {
  it("--print-secret prints only the secret, the same one for the whole sign-in session of a profile on a server", async () => {
    const a = await till(["listen", "--print-secret"], cli);
    const b = await till(["listen", "--print-secret"], cli);
    expect(a.exitCode, a.stderr).toBe(0);
    expect(a.stdout).toMatch(/^whsec_[A-Za-z0-9+/]{43}=\n$/);
    expect(b.stdout).toBe(a.stdout);
    const elsewhere = await till(["listen", "--print-secret"], { configDir: tempConfigDir() });
    expect(elsewhere.stdout).not.toBe(a.stdout);
    // the session ends: the next one signs with a new secret
    const other = { ...cli, configDir: tempConfigDir() };
    const before = (await till(["listen", "--print-secret"], other)).stdout;
    expect((await till(["logout"], other)).exitCode).toBe(0);
    const after = (await till(["listen", "--print-secret"], other)).stdout;
    expect(after).toMatch(/^whsec_/);
    expect(after).not.toBe(before);
  });

  it("forwards signed events, and across a server restart misses nothing and sends nothing twice", async () => {
    const secret = (await till(["listen", "--print-secret"], cli)).stdout.trim();
    const child = spawnTill(["listen", "--forward-to", `${receiver.url}/hooks`], cli);
    const seen = watch(child);
    expect(await seen.until("stderr", /Ready: forwarding/)).toContain(secret);

    const product = await seller.sdk.products.create({ name: "Before", prices: [{ amountType: "fixed", priceAmount: 900, priceCurrency: "usd" }] });
    const customer = await seller.sdk.customers.create({ email: `before-${Date.now()}@example.com` });
    await receiver.until((hits) => hits.filter((h) => h.path === "/hooks").length >= 2);

    // the server goes away; the CLI keeps trying (0.5 s, 1 s, 2 s, 4 s, …)
    await server.close();
    await seen.until("stderr", /Lost the connection/, 4);
    server = await startServer(ENV, { port, database });
    await server.worker.start();
    // events made (and processed) right after the restart, while the CLI still waits, come by replay
    const early = await seller.sdk.products.create({ name: "Early", prices: [{ amountType: "free" }] });
    const earlyCustomer = await seller.sdk.customers.create({ email: `early-${Date.now()}@example.com` });
    await eventually(async () => {
      const rows = await database.db
        .select({ id: outbox.id })
        .from(outbox)
        .where(and(isNotNull(outbox.processedXid), inArray(sql<string>`${outbox.payload} ->> 'id'`, [early.id, earlyCustomer.id])));
      return rows.length === 2;
    });
    expect(seen.stderr()).not.toContain("Reconnected");
    await seen.until("stderr", /Reconnected/);
    const late = await seller.sdk.products.create({ name: "Late", prices: [{ amountType: "free" }] });
    await receiver.until((hits) => hits.filter((h) => h.path === "/hooks").length >= 5);
    await new Promise((r) => setTimeout(r, 1_500)); // anything sent twice would come now

    const hits = receiver.at("/hooks");
    expect(hits.map((h) => dataOf(h).id)).toEqual([product.id, customer.id, early.id, earlyCustomer.id, late.id]);
    expect(new Set(hits.map((h) => h.headers["webhook-id"])).size).toBe(5);
    for (const hit of hits) {
      const event = validateEvent(hit.body, hit.headers, secret);
      expect(event.type).toMatch(/^(product|customer)\.created$/);
    }
    expect(validateEvent(hits[0]!.body, hits[0]!.headers, secret)).toMatchObject({ type: "product.created", data: { id: product.id, name: "Before" } });

    const r = await stop(child);
    expect(r.exitCode).toBe(0);
    const lines = seen.stdout().trim().split("\n");
    expect(lines).toHaveLength(5);
    expect(lines[0]).toMatch(new RegExp(`^\\d{2}:\\d{2}:\\d{2}  product\\.created\\s+${hits[0]!.headers["webhook-id"]}  → 200  \\d+ ms$`));
  });

  it("a connection gone silent (a laptop that slept) is dropped after three keep-alives the server said it sends, and the events sent into it are replayed", async () => {
    const proxy = new TcpProxy({ port });
    await proxy.listen();
    const child = spawnTill(["listen", "--forward-to", `${receiver.url}/slept`], { ...cli, env: { ...cli.env, TILL_SERVER: `http://127.0.0.1:${proxy.port}` } });
    const seen = watch(child);
    await seen.until("stderr", /Ready: forwarding/);
    const before = await seller.sdk.customers.create({ email: `awake-${Date.now()}@example.com` });
    await receiver.until((hits) => hits.some((h) => h.path === "/slept"));
    proxy.freeze(); // the open connection stays open and carries nothing more, like a socket across a suspend
    const during = await seller.sdk.customers.create({ email: `asleep-${Date.now()}@example.com` });
    await new Promise((r) => setTimeout(r, 1_000));
    expect(receiver.at("/slept")).toHaveLength(1);
    await seen.until("stderr", /nothing from the server for 3 s/, 1, 20_000);
    await receiver.until((hits) => hits.filter((h) => h.path === "/slept").length >= 2);
    const r = await stop(child);
    await proxy.cut();
    expect(r.exitCode).toBe(0);
    expect(receiver.at("/slept").map((h) => dataOf(h).id)).toEqual([before.id, during.id]);
  }, 40_000);

  it("--events filters, --json prints one object per line, and a receiver that is down does not stop the stream", async () => {
    const child = spawnTill(["listen", "--forward-to", "http://127.0.0.1:9/down", "--events", "customer.created,customer.updated", "--json"], cli);
    const seen = watch(child);
    await seen.until("stderr", /Ready: forwarding/);
    await seller.sdk.products.create({ name: "Filtered out", prices: [{ amountType: "free" }] });
    const c = await seller.sdk.customers.create({ email: `filter-${Date.now()}@example.com` });
    await seller.sdk.customers.update({ id: c.id, customerUpdate: { name: "Renamed" } });
    const out = await seen.until("stdout", /\n/, 2);
    const r = await stop(child);
    expect(r.exitCode).toBe(0);
    const lines = out.trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.map((l) => l.type)).toEqual(["customer.created", "customer.updated"]);
    for (const l of lines) {
      expect(l).toMatchObject({ status: null, error: "ECONNREFUSED", id: expect.stringMatching(/^[0-9a-f-]{36}$/) });
      expect(typeof l.duration_ms).toBe("number");
      expect(new Date(l.time as string).toISOString()).toBe(l.time);
    }
  });

  it("without --forward-to it prints each event as it happens: a line with time, type and id; --json the webhook body", async () => {
    const plain = spawnTill(["listen", "--events", "customer.created"], cli);
    const json = spawnTill(["listen", "--events", "customer.created", "--json"], cli);
    const seenPlain = watch(plain);
    const seenJson = watch(json);
    await seenPlain.until("stderr", /Ready: printing live events from /);
    await seenJson.until("stderr", /Ready: printing live events/);
    const c = await seller.sdk.customers.create({ email: `printed-${Date.now()}@example.com` });
    const line = await seenPlain.until("stdout", /\n/);
    const out = await seenJson.until("stdout", /\n/);
    expect([(await stop(plain)).exitCode, (await stop(json)).exitCode]).toEqual([0, 0]);
    expect(line).toMatch(/^\d\d:\d\d:\d\d {2}customer\.created {10}[0-9a-f-]{36}\n$/);
    const event = JSON.parse(out.trim()) as { type: string; id: string; time: string; data: { type: string; data: { id: string } } };
    expect(event).toMatchObject({ type: "customer.created", data: { type: "customer.created", data: { id: c.id } } });
    expect(line).toContain(event.id);
    // no signing secret is made or shown when nothing is forwarded
    expect(seenPlain.stderr()).not.toContain("whsec_");
  });

  it("without credentials exits 4; without the webhooks:read scope 4 naming it; a malformed --forward-to or an unknown event type exits 2; --help has examples", async () => {
    const bare = { configDir: tempConfigDir(), env: { TILL_SERVER: server.url } };
    const none = await till(["listen", "--forward-to", `${receiver.url}/x`], bare);
    expect(none.exitCode).toBe(4);
    expect(none.stderr).toMatch(/not signed in/);
    const productsOnly = { ...cli, env: { ...cli.env, TILL_API_KEY: await seller.createKey({ products: ["read"] }) } };
    const denied = await till(["listen", "--forward-to", `${receiver.url}/x`], productsOnly);
    expect(denied.exitCode).toBe(4);
    expect(denied.stderr).toMatch(/^Your webhook signing secret is whsec_\S+ \(till listen --print-secret prints it\)\n/);
    expect(denied.stderr.split("\n").slice(1).join("\n")).toBe(
      "error: TILL_API_KEY lacks the scope webhooks:read\n" +
        "hint: create a key that has it: till keys create <name> --scope webhooks:read (signed in as an owner or admin), then use that key\n",
    );
    const malformed = await till(["listen", "--forward-to", "localhost:3000"], cli);
    expect(malformed.exitCode).toBe(2);
    expect(malformed.stderr).toMatch(/--forward-to/);
    const unknown = await till(["listen", "--forward-to", `${receiver.url}/x`, "--events", "order.paid,order.nope"], cli);
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toMatch(/unknown event type "order.nope"/);
    const help = await till(["listen", "--help"], cli);
    expect(help.exitCode).toBe(0);
    expect(help.stdout).toContain("till listen --forward-to http://localhost:3000/api/webhooks");
    expect(help.stdout).toMatch(/not retried/);
  });
});

// last: the second case revokes every other session of the seller's user
describe("till listen follows the profile's sign-in", () => {
  it("switches to a new `till login`, and stops with exit 4 after `till logout`", async () => {
    const signedIn: TillOptions = { configDir: tempConfigDir(), env: { TILL_SANDBOX: "0" } };
    expect((await login(server.url, seller.client, signedIn)).exitCode).toBe(0);
    const child = spawnTill(["listen", "--events", "customer.created"], signedIn);
    const seen = watch(child);
    await seen.until("stderr", /Ready: printing live events/);
    expect((await login(server.url, seller.client, signedIn, ["--force"])).exitCode).toBe(0);
    await seen.until("stderr", /The profile was signed in again \(`till login`\): following the new sign-in\./);
    await seen.until("stderr", /Reconnected to /);
    // the stream goes on with the new session
    await seller.sdk.customers.create({ email: `follow-${Date.now()}@example.com` });
    await seen.until("stdout", /customer\.created/);
    expect((await till(["logout"], signedIn)).exitCode).toBe(0);
    const r = await child;
    expect(r.exitCode, seen.stderr()).toBe(4);
    expect(seen.stderr()).toContain(`error: signed out of ${server.url} (\`till logout\`): till listen stopped\nhint: run \`till login\`, then \`till listen\` again\n`);
  });

  it("stops with exit 4 when the server no longer accepts its session (revoked elsewhere)", async () => {
    const signedIn: TillOptions = { configDir: tempConfigDir(), env: { TILL_SANDBOX: "0" } };
    expect((await login(server.url, seller.client, signedIn)).exitCode).toBe(0);
    const child = spawnTill(["listen"], signedIn);
    const seen = watch(child);
    await seen.until("stderr", /Ready: printing live events/);
    // signed out everywhere but the browser: the open stream ends at the server's next check
    expect((await seller.client.post("/api/auth/revoke-other-sessions", {})).status).toBe(200);
    const r = await child;
    expect(r.exitCode, seen.stderr()).toBe(4);
    expect(seen.stderr()).toMatch(/error: the server refused your credentials: .*\nhint: run `till login` to sign in again\n/);
  });
});
