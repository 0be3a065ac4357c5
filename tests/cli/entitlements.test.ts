// `till entitlements check` and `till reservations …`, end to end: the CLI runs as a child process against the real
// server with an API key. A customer is named by email, id or external id; the answer is the exit code (0 allowed, 3
// refused) except with --json, whose data says it (exit 0); a meter's balance, limit and held units are printed; a
// hold taken, committed and released through the CLI moves the balance the check answers.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawRequest } from "../helpers/api.js";
import { subscribeThroughCheckout } from "../helpers/checkout.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { parseJson, tempConfigDir, till, type TillOptions, type TillResult } from "./till.js";

let server: TestServer;
let seller: Seller;
let cli: TillOptions;
let customer: { id: string; email: string; externalId: string };

const run = (args: string[]): Promise<TillResult> => till(args, cli);
const raw = (method: string, path: string, body?: unknown) => rawRequest(server.url, seller.token, method, path, body);

beforeAll(async () => {
  server = await startServer();
  seller = await createSeller(server, "cli-entitled");
  cli = { configDir: tempConfigDir(), env: { TILL_API_KEY: await seller.createKey(), TILL_SERVER: server.url } };
  const meter = await seller.sdk.meters.create({
    name: "compute",
    filter: { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: "compute" }] },
    aggregation: { func: "count" },
  });
  const flag = await raw("POST", "/v1/benefits/", { type: "feature_flag", description: "PDF export", properties: {}, metadata: { key: "pdf_export" } });
  const credits = await raw("POST", "/v1/benefits/", { type: "meter_credit", description: "Credits", properties: { units: 10, rollover: false, meter_id: meter.id } });
  const metered = { amount_type: "metered_unit", meter_id: meter.id, unit_amount: "25", price_currency: "usd", overage: "credit_only" };
  const product = await raw("POST", "/v1/products/", { name: "Plan", recurring_interval: "month", prices: [{ amount_type: "fixed", price_amount: 900, price_currency: "usd" }, metered] });
  expect(product.status).toBe(201);
  expect((await raw("POST", `/v1/products/${product.body.id}/benefits`, { benefits: [flag.body.id, credits.body.id] })).status).toBe(200);
  const externalId = `user-${Date.now()}`;
  const sub = await subscribeThroughCheckout(server, seller.sdk, product.body.id as string, externalId);
  customer = { id: sub.customerId, email: `${externalId}@example.com`, externalId };
}, 120_000);
afterAll(async () => server?.close());

describe("till entitlements check", () => {
  it("answers allowed for a feature flag by email, id or external id (exit 0)", async () => {
    for (const who of [["--customer", customer.email], ["--customer", customer.id], ["--external-customer-id", customer.externalId]]) {
      const r = await run(["entitlements", "check", ...who, "--feature", "pdf_export"]);
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stdout.split("\n")[0]).toBe("allowed");
      expect(r.stdout).toContain("feature flag (benefit ");
    }
  });

  it("prints a meter's balance, limit and held units; refuses units past the balance with exit 3, --json exits 0", async () => {
    const ok = await run(["entitlements", "check", "--customer", customer.email, "--feature", "compute", "--units", "4"]);
    expect(ok.exitCode, ok.stderr).toBe(0);
    expect(ok.stdout).toBe("allowed\nbalance 10 · limit 10 · held 0 · units 4 · overage credit_only\n");
    const refused = await run(["entitlements", "check", "--customer", customer.email, "--feature", "compute", "--units", "11"]);
    expect(refused.exitCode).toBe(3);
    expect(refused.stdout.split("\n")[0]).toBe("refused: insufficient_balance");
    expect(refused.stderr).toBe("");
    const json = await run(["entitlements", "check", "--customer", customer.id, "--feature", "compute", "--units", "11", "--json"]);
    expect(json.exitCode, json.stderr).toBe(0);
    expect(parseJson(json.stdout)).toMatchObject({ allowed: false, reason: "insufficient_balance", kind: "meter", balance: 10, limit: 10, held: 0, units: 11, customer_id: customer.id });
  });

  it("an external id till does not know is an answer (exit 3); an unknown feature is a usage error (exit 2)", async () => {
    const unknown = await run(["entitlements", "check", "--external-customer-id", "never-seen", "--feature", "pdf_export"]);
    expect(unknown.exitCode).toBe(3);
    expect(unknown.stdout).toBe("refused: customer_not_found\n");
    const feature = await run(["entitlements", "check", "--customer", customer.id, "--feature", "no-such-thing"]);
    expect(feature.exitCode).toBe(2);
    expect(feature.stderr).toContain("feature_flag");
  });

  it("refuses a malformed call before sending anything", async () => {
    const both = await run(["entitlements", "check", "--customer", customer.id, "--external-customer-id", "x", "--feature", "compute"]);
    expect(both.exitCode).toBe(2);
    expect(both.stderr).toContain("--customer and --external-customer-id");
    const none = await run(["entitlements", "check", "--feature", "compute"]);
    expect(none.stderr).toContain("missing the customer");
    const units = await run(["entitlements", "check", "--customer", customer.id, "--feature", "compute", "--units", "-1"]);
    expect(units.exitCode).toBe(2);
    const help = await run(["entitlements", "check", "--help"]);
    expect(help.stdout).toContain("3  refused");
  });
});

describe("till reservations", () => {
  it("holds, commits part, releases; the check counts the hold; a hold past the balance exits 3", async () => {
    const held = await run(["reservations", "create", "--customer", customer.email, "--meter", "compute", "--units", "5", "--expires-in", "10m", "--json"]);
    expect(held.exitCode, held.stderr).toBe(0);
    const r = parseJson<{ id: string; status: string; units: number }>(held.stdout);
    expect(r).toMatchObject({ status: "held", units: 5 });
    const during = await run(["entitlements", "check", "--customer", customer.id, "--feature", "compute", "--json"]);
    expect(parseJson(during.stdout)).toMatchObject({ balance: 5, held: 5 });
    const tooMuch = await run(["reservations", "create", "--external-customer-id", customer.externalId, "--meter", "compute", "--units", "6"]);
    expect(tooMuch.exitCode).toBe(3);
    expect(tooMuch.stderr).toContain("refused:");
    const committed = await run(["reservations", "commit", r.id, "--units", "2"]);
    expect(committed.exitCode, committed.stderr).toBe(0);
    expect(committed.stdout).toBe(`Committed 2 of 5 units held (3 released): reservation ${r.id}.\n`);
    const shown = await run(["reservations", "get", r.id]);
    expect(shown.stdout).toContain("committed");
    const again = await run(["reservations", "release", r.id]);
    expect(again.exitCode).toBe(1);
    const other = parseJson<{ id: string }>((await run(["reservations", "create", "--customer", customer.id, "--meter", "compute", "--units", "1", "--json"])).stdout);
    const released = await run(["reservations", "release", other.id]);
    expect(released.stdout).toBe(`Released reservation ${other.id}: 1 unit back in the balance.\n`);
    const after = await run(["entitlements", "check", "--customer", customer.id, "--feature", "compute", "--json"]);
    expect(parseJson(after.stdout)).toMatchObject({ balance: 8, held: 0 });
  });
});
