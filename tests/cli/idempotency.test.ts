// The CLI's writes carry Idempotency-Keys, so a retried command never doubles: `till products create` (its own
// HTTP client) and `till catalog apply` (the SDK) run through a loopback proxy that resets the connection after
// the server has answered — the server committed, the CLI saw a reset socket — and the CLI's retry with the same
// key gets the first answer: one product, exit 0. The keys are read back from the server's idempotency rows and
// from what the proxy saw. catalog apply's keys come from the plan's step and state: the same plan applied again
// on the same basis (a restarted run) is answered, not redone.
import { createHash } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import net, { type AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { PolarCore } from "@polar-sh/sdk/core.js";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyPlan } from "../../cli/catalog/apply.js";
import { parseCatalog } from "../../cli/catalog/file.js";
import { planCatalog } from "../../cli/catalog/plan.js";
import { catalogClient, fetchServerCatalog } from "../../cli/catalog/server.js";
import { idempotencyKey } from "../../server/db/schema/index.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { parseJson, tempConfigDir, till, type TillOptions } from "./till.js";

let server: TestServer;
let seller: Seller;
let cli: TillOptions;

/**
 * A TCP proxy to the server that, for requests `reset` picks, resets the client's connection once the server has
 * answered.
 */
async function resettingProxy(target: string, reset: (head: string) => boolean) {
  const { hostname, port } = new URL(target);
  const heads: string[] = [];
  const proxy = net.createServer((client) => {
    const upstream = net.connect(Number(port), hostname);
    let head = Buffer.alloc(0);
    let forwarding = false;
    let resetThis = false;
    client.on("data", (chunk: Buffer) => {
      if (forwarding) return void upstream.write(chunk);
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf("\r\n\r\n");
      if (end < 0) return;
      forwarding = true;
      const text = head.subarray(0, end).toString("latin1");
      heads.push(text);
      resetThis = reset(text);
      // one request per connection (fetch keeps connections alive otherwise)
      upstream.write(Buffer.concat([Buffer.from(`${text}\r\nconnection: close\r\n\r\n`, "latin1"), head.subarray(end + 4)]));
    });
    upstream.on("data", (chunk: Buffer) => {
      if (resetThis) {
        upstream.destroy();
        client.resetAndDestroy();
      } else client.write(chunk);
    });
    upstream.on("end", () => client.end());
    upstream.on("error", () => client.destroy());
    client.on("error", () => upstream.destroy());
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    heads,
    keysOf: (prefix: string) => heads.filter((h) => h.startsWith(prefix)).map((h) => /\r\nidempotency-key: ([^\r]+)/i.exec(h)?.[1]),
    close: () => new Promise<void>((resolve) => proxy.close(() => resolve())),
  };
}

/** Resets the answer of the first request `match` picks. */
const firstOf = (match: (head: string) => boolean) => {
  let done = false;
  return (head: string) => {
    if (done || !match(head)) return false;
    done = true;
    return true;
  };
};

const productsNamed = async (name: string) => (await seller.sdk.products.list({ query: name, limit: 100 })).result.items.filter((p) => p.name === name);

beforeAll(async () => {
  server = await startServer();
  seller = await createSeller(server, "cli-idem");
  cli = { configDir: tempConfigDir(), env: { TILL_API_KEY: await seller.createKey(), TILL_SERVER: server.url } };
});
afterAll(async () => server?.close());

describe("the CLI's writes carry an Idempotency-Key", () => {
  it("till products create sends one (the server keeps it for its organization)", async () => {
    const scope = `organization:${seller.organizationId}`;
    const rows = async () =>
      (await server.database.db.select().from(idempotencyKey).where(and(eq(idempotencyKey.scope, scope), eq(idempotencyKey.route, "/v1/products/")))).length;
    const before = await rows();
    const r = await till(["products", "create", "Keyed", "--price", "1500", "--json"], cli);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(await rows()).toBe(before + 1);
  });

  it("an answer lost after the server committed: the retry with the same key gets it, one product, exit 0", async () => {
    const proxy = await resettingProxy(server.url, firstOf((h) => h.startsWith("POST /v1/products/")));
    try {
      const name = `Lost answer ${Date.now()}`;
      const r = await till(["products", "create", name, "--price", "1500", "--json"], { ...cli, env: { ...cli.env, TILL_SERVER: proxy.url } });
      expect(r.exitCode, r.stderr).toBe(0);
      const [key, retried] = proxy.keysOf("POST /v1/products/");
      expect(key).toMatch(/^[0-9a-f-]{36}$/);
      expect(retried).toBe(key);
      const made = await productsNamed(name);
      expect(made).toHaveLength(1);
      expect(parseJson<{ id: string }>(r.stdout).id).toBe(made[0]?.id);
    } finally {
      await proxy.close();
    }
  });

  it("till api --idempotency-key repeats a write without doing it twice", async () => {
    const name = `Api key ${Date.now()}`;
    const args = ["api", "POST", "/v1/products/", "-d", JSON.stringify({ name, prices: [{ amount_type: "free" }] }), "--idempotency-key", `order-${name}`, "--json"];
    const first = await till(args, cli);
    const again = await till(args, cli);
    expect(first.exitCode, first.stderr).toBe(0);
    expect(parseJson<{ id: string }>(again.stdout).id).toBe(parseJson<{ id: string }>(first.stdout).id);
    expect(await productsNamed(name)).toHaveLength(1);
    const bad = await till(["api", "POST", "/v1/products/", "-d", "{}", "--idempotency-key", "x".repeat(256)], cli);
    expect(bad.exitCode).toBe(2);
  });
});

describe("till catalog apply", () => {
  const catalog = (name: string) => `version: 1\nproducts:\n  pro:\n    name: ${name}\n    prices:\n      - amount_type: fixed\n        price_amount: 1500\n        price_currency: usd\n`;

  it("retries a write whose answer was lost with its plan-derived key: one product, exit 0", async () => {
    const name = `Catalog lost ${Date.now()}`;
    const dir = mkdtempSync(path.join(os.tmpdir(), "till-catalog-idem-"));
    const file = path.join(dir, "till.yaml");
    writeFileSync(file, catalog(name));
    const proxy = await resettingProxy(server.url, firstOf((h) => h.startsWith("POST /v1/products")));
    try {
      const r = await till(["catalog", "apply", "-f", file, "--yes", "--json"], { ...cli, env: { ...cli.env, TILL_SERVER: proxy.url } });
      expect(r.exitCode, r.stderr).toBe(0);
      const [key, retried] = proxy.keysOf("POST /v1/products");
      expect(key).toMatch(/^till-catalog-[0-9a-f]{64}$/);
      expect(retried).toBe(key);
      expect(await productsNamed(name)).toHaveLength(1);
    } finally {
      await proxy.close();
    }
  });

  it("the same plan applied again on the same basis (a restarted run) is answered, not redone; another run's keys differ", async () => {
    const org = await createSeller(server, "cli-idem-catalog");
    const client = catalogClient(new PolarCore({ accessToken: org.token, serverURL: server.url }));
    const name = `Restarted ${Date.now()}`;
    const plan = planCatalog(parseCatalog(catalog(name)), await fetchServerCatalog(client), {});
    const basis = createHash("sha256").update("a run").digest("hex");
    const first = await applyPlan(client, plan, { basis });
    const restarted = await applyPlan(client, plan, { basis });
    expect(restarted[0]?.id).toBe(first[0]?.id);
    const list = async () => (await org.sdk.products.list({ limit: 100 })).result.items.filter((p) => p.name === name);
    expect(await list()).toHaveLength(1);
    await applyPlan(client, plan, { basis: `${basis} another run` });
    expect(await list()).toHaveLength(2);
  });
});
