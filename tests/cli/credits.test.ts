// The seller's CLI for till's credit extensions and snapshot keys, end to end against the real server: a meter_credit
// benefit's schedule, pool and proportional credits (`till benefits create|update`), a metered price's overage at
// zero credits (`till products create|update --overage`), and the entitlement snapshot keys (`till entitlements
// keys|rotate-key|snapshot`), each with --help and --json.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawRequest } from "../helpers/api.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { parseJson, tempConfigDir, till, type TillOptions, type TillResult } from "./till.js";

let server: TestServer;
let seller: Seller;
let cli: TillOptions;
let meterId: string;

const run = (args: string[]): Promise<TillResult> => till(args, cli);
const raw = (method: string, path: string, body?: unknown) => rawRequest(server.url, seller.token, method, path, body);

beforeAll(async () => {
  server = await startServer();
  seller = await createSeller(server, "cli-credits");
  cli = { configDir: tempConfigDir(), env: { TILL_API_KEY: await seller.createKey(), TILL_SERVER: server.url } };
  const meter = await seller.sdk.meters.create({
    name: "compute",
    filter: { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: "compute" }] },
    aggregation: { func: "count" },
  });
  meterId = meter.id;
}, 120_000);
afterAll(async () => server?.close());

describe("till benefits: meter credit extensions", () => {
  it("creates a benefit credited monthly, pooled per subscription, in proportion to the amount paid; update keeps the rest", async () => {
    const made = await run([
      "benefits", "create", "meter_credit", "--description", "Credits per dollar", "--meter", meterId, "--units", "10",
      "--schedule", "monthly", "--pool", "subscription", "--per-amount", "100", "--min-units", "20", "--max-units", "500", "--json",
    ]);
    expect(made.exitCode, made.stderr).toBe(0);
    const b = parseJson<{ id: string; properties: Record<string, unknown> }>(made.stdout);
    expect(b.properties).toEqual({ units: 10, rollover: false, meter_id: meterId, schedule: "monthly", pool: "subscription", per_amount: 100, min_units: 20, max_units: 500 });
    const updated = await run(["benefits", "update", b.id, "--schedule", "once", "--rollover", "--json"]);
    expect(updated.exitCode, updated.stderr).toBe(0);
    expect(parseJson<{ properties: Record<string, unknown> }>(updated.stdout).properties).toMatchObject({ schedule: "once", rollover: true, pool: "subscription", per_amount: 100 });
    // back to Polar's behaviour: a property at its default is not stored nor answered
    const polar = await run(["benefits", "update", b.id, "--schedule", "every_period", "--pool", "customer", "--json"]);
    const props = parseJson<{ properties: Record<string, unknown> }>(polar.stdout).properties;
    expect(props.schedule).toBeUndefined();
    expect(props.pool).toBeUndefined();
    const shown = await run(["benefits", "get", b.id]);
    expect(shown.stdout).toContain("per_amount=100");
  });

  it("refuses a bound without --per-amount, an unknown schedule, and the flags on another type, before sending", async () => {
    const bound = await run(["benefits", "create", "meter_credit", "--description", "Bounds", "--meter", meterId, "--units", "5", "--min-units", "3"]);
    expect(bound.exitCode).toBe(2);
    expect(bound.stderr).toContain("--min-units: only with --per-amount");
    const schedule = await run(["benefits", "create", "meter_credit", "--description", "Weekly", "--meter", meterId, "--units", "5", "--schedule", "weekly"]);
    expect(schedule.exitCode).toBe(2);
    expect(schedule.stderr).toContain("every_period, monthly, once");
    const other = await run(["benefits", "create", "custom", "--description", "Support", "--pool", "subscription"]);
    expect(other.exitCode).toBe(2);
    expect(other.stderr).toContain("--pool: only for meter_credit benefits");
    const help = await run(["benefits", "create", "--help"]);
    for (const flag of ["--schedule <when>", "--pool <whose>", "--per-amount <amount>", "--min-units <n>", "--max-units <n>"]) expect(help.stdout).toContain(flag);
  });
});

describe("till products: a metered price's overage", () => {
  it("--overage credit_only and credit_then_invoice; the price says it; --overage only with --metered", async () => {
    const metered = ["--metered", "--meter", meterId, "--unit-amount", "25"];
    const only = await run(["products", "create", "Credits plan", "--recurring", "month", "--price", "900", ...metered, "--overage", "credit_only", "--json"]);
    expect(only.exitCode, only.stderr).toBe(0);
    const product = parseJson<{ id: string; prices: Array<{ amount_type: string; overage?: string }> }>(only.stdout);
    expect(product.prices.find((p) => p.amount_type === "metered_unit")?.overage).toBe("credit_only");
    expect((await run(["products", "get", product.id])).stdout).toContain("credits only (nothing billed past them)");
    const invoiced = await run(["products", "update", product.id, "--price", "900", ...metered, "--overage", "credit_then_invoice", "--json"]);
    expect(invoiced.exitCode, invoiced.stderr).toBe(0);
    const after = await raw("GET", `/v1/products/${product.id}`);
    const active = (after.body.prices as Array<{ amount_type: string; overage?: string; is_archived: boolean }>).filter((p) => !p.is_archived && p.amount_type === "metered_unit");
    expect(active.map((p) => p.overage)).toEqual(["credit_then_invoice"]);
    const alone = await run(["products", "create", "No meter", "--price", "900", "--overage", "credit_only"]);
    expect(alone.exitCode).toBe(2);
    expect(alone.stderr).toContain("--overage");
    const both = await run(["products", "create", "Both", "--recurring", "month", "--metered", "--meter", meterId, "--unit-amount", "1", "--credit-only", "--overage", "credit_then_invoice"]);
    expect(both.exitCode).toBe(2);
    expect((await run(["products", "create", "--help"])).stdout).toContain("--overage <mode>");
  });
});

describe("till entitlements: snapshot keys", () => {
  it("a snapshot makes the first key; rotate-key makes a new signing key and keeps the previous one retiring", async () => {
    const externalId = `cli-snap-${Date.now()}`;
    await seller.sdk.customers.create({ email: `${externalId}@example.com`, externalId });
    const none = await run(["entitlements", "keys", "--json"]);
    expect(none.exitCode, none.stderr).toBe(0);
    expect(parseJson(none.stdout)).toEqual([]);
    const snap = await run(["entitlements", "snapshot", "--external-customer-id", externalId, "--ttl", "1m"]);
    expect(snap.exitCode, snap.stderr).toBe(0);
    const token = snap.stdout.trim();
    expect(token.split(".")).toHaveLength(3);
    const header = JSON.parse(Buffer.from(token.split(".")[0] ?? "", "base64url").toString()) as { kid: string; alg: string };
    expect(header.alg).toBe("ES256");
    const first = parseJson<Array<{ kid: string; signing: boolean }>>((await run(["entitlements", "keys", "--json"])).stdout);
    expect(first).toEqual([expect.objectContaining({ kid: header.kid, signing: true })]);
    const rotated = await run(["entitlements", "rotate-key"]);
    expect(rotated.exitCode, rotated.stderr).toBe(0);
    expect(rotated.stdout).toMatch(/^New signing key \S+\.\n/);
    expect(rotated.stdout).toContain(`${header.kid} stays in the JWKS until `);
    const listed = await run(["entitlements", "keys"]);
    expect(listed.stdout).toContain(`${header.kid}\tretiring `);
    expect(listed.stdout).toMatch(/\tsigning\t/);
    const jwks = await fetch(`${server.url}/.well-known/jwks.json?organization_id=${seller.organizationId}`);
    expect(((await jwks.json()) as { keys: unknown[] }).keys).toHaveLength(2);
    const json = await run(["entitlements", "snapshot", "--external-customer-id", externalId, "--json"]);
    expect(parseJson<{ kid: string }>(json.stdout).kid).not.toBe(header.kid);
  });

  it("refuses a ttl out of bounds and a call naming no customer; --help names the commands", async () => {
    const ttl = await run(["entitlements", "snapshot", "--external-customer-id", "x", "--ttl", "2d"]);
    expect(ttl.exitCode).toBe(2);
    expect(ttl.stderr).toContain("--ttl");
    const nobody = await run(["entitlements", "snapshot"]);
    expect(nobody.exitCode).toBe(2);
    expect(nobody.stderr).toContain("missing the customer");
    const help = await run(["entitlements", "--help"]);
    for (const word of ["keys", "rotate-key", "snapshot"]) expect(help.stdout).toContain(word);
  });
});
