// `till license-keys …` end to end: the CLI as a child process against the real server with an organization
// API key; keys come from a real purchase (checkout paid with the test card). Lists mask keys, get shows the
// whole key, update sends what the flags say, validate / activate / deactivate read the key from stdin (or
// from an argument, with a warning), and bad input is one line with the right exit code.
import type { Product } from "@polar-sh/sdk/models/components/product.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createProduct, pay } from "../helpers/checkout.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { parseJson, tempConfigDir, till, type TillOptions, type TillResult } from "./till.js";

let server: TestServer;
let seller: Seller;
let cli: TillOptions;
let product: Product;
let benefitId: string;

interface Key {
  id: string;
  key: string;
  display_key: string;
  status: string;
  usage: number;
  limit_usage: number | null;
  limit_activations: number | null;
  expires_at: string | null;
  validations: number;
  activations?: { id: string; label: string }[];
}

const run = (args: string[], extra: Partial<TillOptions> = {}): Promise<TillResult> => till(args, { ...cli, ...extra });
const ok = (r: TillResult) => {
  expect(r.exitCode, r.stderr).toBe(0);
  return r;
};

async function buyKey(): Promise<Key> {
  const checkout = await seller.sdk.checkouts.create({ products: [product.id] });
  await pay(server, checkout);
  const [order] = (await seller.sdk.orders.list({ checkoutId: checkout.id })).result.items;
  const keys = await seller.sdk.licenseKeys.list({ benefitId, limit: 100 });
  const mine = keys.result.items.find((k) => k.customerId === order?.customerId);
  if (!mine) throw new Error("no key issued");
  return parseJson<Key>(ok(await run(["license-keys", "get", mine.id, "--json"])).stdout);
}

beforeAll(async () => {
  server = await startServer();
  seller = await createSeller(server, "cli-lk");
  cli = { configDir: tempConfigDir(), env: { TILL_API_KEY: await seller.createKey(), TILL_SERVER: server.url } };
  const benefit = await seller.sdk.benefits.create({
    type: "license_keys",
    description: "Desktop app",
    properties: { prefix: "APP", activations: { limit: 1, enableCustomerAdmin: false }, limitUsage: 5 },
  });
  benefitId = benefit.id;
  product = await createProduct(seller, "fixed");
  await seller.sdk.products.updateBenefits({ id: product.id, productBenefitsUpdate: { benefits: [benefitId] } });
});
afterAll(async () => server?.close());

describe("till license-keys", () => {
  it("lists keys masked, shows one whole, and updates it", async () => {
    const key = await buyKey();
    expect(key.key).toMatch(/^APP-/);
    const [table, json, get] = await Promise.all([
      run(["license-keys", "list", "--benefit", benefitId]),
      run(["license-keys", "list", "--status", "granted", "--all", "--json"]),
      run(["license-keys", "get", key.id]),
    ]);
    expect(ok(table).stdout).toContain(key.display_key);
    expect(table.stdout).not.toContain(key.key);
    expect(parseJson<Key[]>(ok(json).stdout).map((k) => k.id)).toContain(key.id);
    expect(ok(get).stdout).toContain(`Key: ${key.key}\nStatus: granted\n`);
    expect(get.stdout).toContain("Usage: 0 of 5\n");
    expect(get.stdout).toContain("Activations: 0 of 1\n");

    const updated = parseJson<Key>(
      ok(await run(["license-keys", "update", key.id, "--status", "disabled", "--limit-usage", "none", "--limit-activations", "3", "--expires-at", "2031-05-01", "--json"])).stdout,
    );
    expect(updated).toMatchObject({ status: "disabled", limit_usage: null, limit_activations: 3, expires_at: "2031-05-01T00:00:00.000Z", usage: 0 });
    const back = await run(["license-keys", "update", key.id, "--status", "granted", "--expires-at", "never", "--usage", "2"]);
    expect(ok(back).stdout).toBe(`Updated license key ${key.display_key} (${key.id}): granted, usage 2.\n`);
    expect((await seller.sdk.licenseKeys.get({ id: key.id })).expiresAt).toBeNull();
  });

  it("validates, activates and deactivates with the key on stdin; an argument works with a warning", async () => {
    const key = await buyKey();
    const validated = parseJson<Key>(ok(await run(["license-keys", "validate", "-", "--increment-usage", "2", "--json"], { input: `${key.key}\n` })).stdout);
    expect(validated).toMatchObject({ id: key.id, usage: 2, validations: 1 });

    const activation = parseJson<{ id: string; label: string }>(
      ok(await run(["license-keys", "activate", "-", "--label", "ada-laptop", "--meta", "os=linux", "--json"], { input: key.key })).stdout,
    );
    expect(activation.label).toBe("ada-laptop");
    const second = await run(["license-keys", "activate", "-", "--label", "other"], { input: key.key });
    expect(second.exitCode).toBe(1);
    expect(second.stderr).toContain("License key activation limit already reached");

    const withArg = await run(["license-keys", "validate", key.key, "--activation", activation.id]);
    expect(ok(withArg).stdout).toBe(`Valid: ${key.display_key} (granted, activation ada-laptop), usage 2 of 5, validated 2 times.\n`);
    expect(withArg.stderr).toContain("shell history");

    ok(await run(["license-keys", "deactivate", "-", "--activation", activation.id], { input: key.key }));
    expect((await seller.sdk.licenseKeys.get({ id: key.id })).activations).toEqual([]);
  });

  it("answers bad input with one line and exit 2, server refusals with exit 1, and changes nothing", async () => {
    const key = await buyKey();
    const cases: Array<[string[], RegExp]> = [
      [["license-keys", "update", key.id], /nothing to update/],
      [["license-keys", "update", key.id, "--limit-activations", "0"], /--limit-activations.*1 to 50/],
      [["license-keys", "update", key.id, "--status", "lost"], /--status.*granted, revoked, disabled/],
      [["license-keys", "update", key.id, "--expires-at", "tomorrow"], /--expires-at/],
      [["license-keys", "get", "not-an-id"], /id/],
      [["license-keys", "activate", "-"], /--label/],
    ];
    for (const [args, message] of cases) {
      const r = await run(args, { input: key.key });
      expect(r.exitCode, args.join(" ")).toBe(2);
      expect(r.stderr.trim().split("\n")).toHaveLength(1);
      expect(r.stderr).toMatch(message);
    }
    const empty = await run(["license-keys", "validate", "-"], { input: "" });
    expect(empty.exitCode).toBe(2);
    expect(empty.stderr).toContain("stdin was empty");
    const unknown = await run(["license-keys", "validate", "-", "--json"], { input: "APP-NOPE" });
    expect(unknown.exitCode).toBe(1);
    expect(unknown.stdout).toBe("");
    expect(JSON.parse(unknown.stderr)).toMatchObject({ error: { message: expect.stringContaining("License key not found.") } });
    expect(await seller.sdk.licenseKeys.get({ id: key.id })).toMatchObject({ status: "granted", usage: 0, validations: 0, limitUsage: 5 });
  });
});
