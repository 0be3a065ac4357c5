// `till products create --metered --tier …` and `till meters alerts …`, end to end: the CLI runs as a
// child process against the real server with an API key; what it made is read back over /v1 (unit_tiers is
// till's own field, so plain JSON) and through the SDK (which parses the price without it).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawRequest } from "../helpers/api.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { parseJson, tempConfigDir, till, type TillOptions, type TillResult } from "./till.js";

let server: TestServer;
let seller: Seller;
let cli: TillOptions;
let key: string;
let meterId: string;

const run = (args: string[]): Promise<TillResult> => till(args, cli);

beforeAll(async () => {
  server = await startServer();
  seller = await createSeller(server, "cli-tiers");
  key = await seller.createKey();
  cli = { configDir: tempConfigDir(), env: { TILL_API_KEY: key, TILL_SERVER: server.url } };
  const meter = await seller.sdk.meters.create({
    name: "API calls",
    filter: { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: "api_call" }] },
    aggregation: { func: "count" },
  });
  meterId = meter.id;
});
afterAll(async () => server?.close());

describe("till products create --tier", () => {
  it("creates a graduated metered price with a flat fee and a cap; get describes the tiers", async () => {
    const r = await run([
      "products", "create", "API", "--recurring", "month", "--metered", "--meter", meterId, "--tier", "1000:0",
      "--tier", "10000:0.2", "--tier", "inf:0.15+500", "--cap", "10000", "--json",
    ]);
    expect(r.exitCode, r.stderr).toBe(0);
    const { id } = parseJson<{ id: string }>(r.stdout);
    const wire = await rawRequest(server.url, key, "GET", `/v1/products/${id}`);
    expect((wire.body.prices as unknown[])[0]).toMatchObject({
      unit_amount: "0",
      cap_amount: 10000,
      unit_tiers: {
        tier_type: "graduated",
        tiers: [
          { up_to: 1000, unit_amount: "0", flat_amount: 0 },
          { up_to: 10000, unit_amount: "0.2", flat_amount: 0 },
          { up_to: null, unit_amount: "0.15", flat_amount: 500 },
        ],
      },
    });
    expect((await seller.sdk.products.get({ id })).prices[0]).toMatchObject({ amountType: "metered_unit", unitAmount: "0", capAmount: 10000 });
    const shown = await run(["products", "get", id]);
    expect(shown.stdout).toContain("$0.00 per API call for 1–1,000, $0.002 per API call for 1,001–10,000, $0.0015 per API call above 10,000 + $5.00 (graduated) (cap $100.00)");
  });

  it("refuses tiers out of order, a bounded last tier and --tier-type without tiers, before sending anything", async () => {
    const base = ["products", "create", "Bad", "--recurring", "month", "--metered", "--meter", meterId];
    const disorder = await run([...base, "--tier", "1000:0", "--tier", "500:1", "--tier", "inf:1"]);
    expect(disorder.exitCode).toBe(2);
    expect(disorder.stderr).toContain("--tier: Tiers must be in increasing order of up_to");
    const bounded = await run([...base, "--tier", "1000:0"]);
    expect(bounded.stderr).toContain("--tier: The last tier must be unbounded (inf)");
    const typeOnly = await run([...base, "--unit-amount", "1", "--tier-type", "volume"]);
    expect(typeOnly.stderr).toContain("--tier-type: only with --tier");
    expect(await run([...base, "--tier", "10:x"]).then((x) => x.exitCode)).not.toBe(0);
  });
});

describe("till meters alerts", () => {
  it("creates, lists and deletes alerts", async () => {
    const created = await run(["meters", "alerts", "create", meterId, "--cap-percent", "80", "--notify-customer", "--json"]);
    expect(created.exitCode, created.stderr).toBe(0);
    const alert = parseJson<{ id: string; kind: string; threshold: number; notify_customer: boolean; customer_id: string | null }>(created.stdout);
    expect(alert).toMatchObject({ kind: "cap_percent", threshold: 80, notify_customer: true, customer_id: null });
    const units = await run(["meters", "alerts", "create", meterId, "--units", "10000"]);
    expect(units.exitCode, units.stderr).toBe(0);
    expect(units.stdout + units.stderr).toContain("10,000 units in a period, for every customer");
    const listed = await run(["meters", "alerts", "list", "--meter", meterId]);
    expect(listed.stdout).toContain("80% of the cap");
    expect(listed.stdout).toContain("10,000 units");
    const two = await run(["meters", "alerts", "create", meterId, "--units", "1", "--amount", "5"]);
    expect(two.exitCode).toBe(2);
    expect(two.stderr).toContain("give exactly one threshold");
    const refused = await run(["meters", "alerts", "delete", alert.id]);
    expect(refused.exitCode).toBe(2);
    const deleted = await run(["meters", "alerts", "delete", alert.id, "--yes"]);
    expect(deleted.exitCode, deleted.stderr).toBe(0);
    const after = parseJson<{ items: unknown[] }>((await run(["meters", "alerts", "list", "--json"])).stdout);
    expect(after.items).toHaveLength(1);
  });

  it("creates a balance alert at 0 (the credits exhausted); 0 is refused for the other kinds", async () => {
    const balance = await run(["meters", "alerts", "create", meterId, "--balance", "0"]);
    expect(balance.exitCode, balance.stderr).toBe(0);
    expect(balance.stdout + balance.stderr).toContain("a balance of 0 units or less in a period, for every customer");
    const listed = parseJson<{ items: Array<{ kind: string; threshold: number }> }>((await run(["meters", "alerts", "list", "--meter", meterId, "--json"])).stdout);
    expect(listed.items).toContainEqual(expect.objectContaining({ kind: "balance", threshold: 0 }));
    const zero = await run(["meters", "alerts", "create", meterId, "--units", "0"]);
    expect(zero.exitCode).toBe(2);
    expect(zero.stderr).toContain("expected a positive number");
    expect(await run(["meters", "alerts", "create", meterId, "--balance", "-1"]).then((r) => r.exitCode)).not.toBe(0);
  });
});
