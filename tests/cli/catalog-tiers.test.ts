// Tiered and capped metered prices in the catalog file: `unit_tiers` (till's own field, which
// the SDK drops) and `cap_amount` are pulled, planned and applied through plain /v1 JSON, so a pull → apply of
// an unchanged catalog is a no-op and never loses a price's tiers; a malformed tiers block is refused by line.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseCatalog } from "../../cli/catalog/file.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { tempConfigDir, till, type TillOptions } from "./till.js";

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => server?.close());

const CATALOG = `version: 1
meters:
  api-calls:
    name: API calls
    filter:
      conjunction: and
      clauses:
        - { property: name, operator: eq, value: api.call }
    aggregation: { func: count }
products:
  api:
    name: API
    recurring_interval: month
    prices:
      - amount_type: metered_unit
        meter: api-calls
        cap_amount: 20000
        unit_tiers:
          tier_type: graduated
          tiers:
            - { up_to: 1000, unit_amount: 0 }
            - { up_to: 10000, unit_amount: "0.2", flat_amount: 500 }
            - { unit_amount: "0.15", flat_amount: 1000 }
  bulk:
    name: Bulk
    recurring_interval: month
    prices:
      - { amount_type: fixed, price_amount: 900 }
      - amount_type: metered_unit
        meter: api-calls
        unit_amount: "0.5"
        cap_amount: 50000
        unit_tiers:
          tier_type: volume
          tiers:
            - { up_to: 5000, unit_amount: "0.3", flat_amount: 200 }
            - { unit_amount: "0.1" }
`;

interface WirePrice {
  id: string;
  amount_type: string;
  is_archived: boolean;
  unit_amount?: string;
  cap_amount?: number | null;
  unit_tiers?: unknown;
}
interface WireProduct {
  id: string;
  name: string;
  prices: WirePrice[];
}

describe("tiered and capped metered prices in the catalog file", () => {
  let seller: Seller;
  let opts: TillOptions;
  let dir: string;
  const file = (name: string) => path.join(dir, name);

  /** The organization's products as plain /v1 JSON (what the SDK would not show: unit_tiers). */
  async function products(): Promise<Map<string, WireProduct>> {
    const res = await fetch(`${server.url}/v1/products/?limit=100`, { headers: { authorization: `Bearer ${seller.token}` } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { items: WireProduct[] };
    return new Map(body.items.map((p) => [p.name, p]));
  }
  const meteredOf = (p: WireProduct | undefined) => p?.prices.filter((x) => x.amount_type === "metered_unit" && !x.is_archived) ?? [];

  beforeAll(async () => {
    seller = await createSeller(server, "catalog-tiers");
    dir = mkdtempSync(path.join(os.tmpdir(), "till-catalog-tiers-"));
    opts = { configDir: tempConfigDir(), env: { TILL_API_KEY: await seller.createKey(), TILL_SERVER: server.url } };
  });

  it("round trip: apply creates a graduated and a volume price with flat fees and caps; pull writes them; pull → apply is a no-op", { timeout: 120_000 }, async () => {
    writeFileSync(file("till.yaml"), CATALOG);
    const applied = await till(["catalog", "apply", "-f", file("till.yaml"), "--yes"], opts);
    expect(applied.exitCode, applied.stderr).toBe(0);

    const made = await products();
    expect(meteredOf(made.get("API")).map(({ unit_amount, cap_amount, unit_tiers }) => ({ unit_amount, cap_amount, unit_tiers }))).toEqual([
      {
        unit_amount: "0",
        cap_amount: 20000,
        unit_tiers: {
          tier_type: "graduated",
          tiers: [
            { up_to: 1000, unit_amount: "0", flat_amount: 0 },
            { up_to: 10000, unit_amount: "0.2", flat_amount: 500 },
            { up_to: null, unit_amount: "0.15", flat_amount: 1000 },
          ],
        },
      },
    ]);
    expect(meteredOf(made.get("Bulk")).map(({ unit_amount, cap_amount, unit_tiers }) => ({ unit_amount, cap_amount, unit_tiers }))).toEqual([
      {
        unit_amount: "0.5",
        cap_amount: 50000,
        unit_tiers: {
          tier_type: "volume",
          tiers: [
            { up_to: 5000, unit_amount: "0.3", flat_amount: 200 },
            { up_to: null, unit_amount: "0.1", flat_amount: 0 },
          ],
        },
      },
    ]);

    // a tiered price made elsewhere (`till products create --tier`): the case a pull used to lose
    const meters = await fetch(`${server.url}/v1/meters/`, { headers: { authorization: `Bearer ${seller.token}` } });
    const meterId = ((await meters.json()) as { items: Array<{ id: string }> }).items[0]?.id ?? "";
    const elsewhere = await till(
      ["products", "create", "Made elsewhere", "--recurring", "month", "--metered", "--meter", meterId, "--tier", "100:0", "--tier", "inf:0.4+300", "--tier-type", "volume", "--cap", "9000", "--json"],
      opts,
    );
    expect(elsewhere.exitCode, elsewhere.stderr).toBe(0);
    const before = await products();

    const pulled = await till(["catalog", "pull", "-o", file("pulled.yaml")], opts);
    expect(pulled.exitCode, pulled.stderr).toBe(0);
    const text = readFileSync(file("pulled.yaml"), "utf8");
    expect(text).toContain(`      - amount_type: metered_unit
        price_currency: usd
        meter: api-calls
        unit_tiers:
          tier_type: graduated
          tiers:
            - up_to: 1000
              unit_amount: "0"
            - up_to: 10000
              unit_amount: "0.2"
              flat_amount: 500
            - unit_amount: "0.15"
              flat_amount: 1000
        cap_amount: 20000
`);
    expect(text).toContain(`        unit_amount: "0.5"
        unit_tiers:
          tier_type: volume
`);
    const pulledCatalog = parseCatalog(text);
    const written = parseCatalog(CATALOG);
    expect(pulledCatalog.products.get("api")).toEqual(written.products.get("api"));
    expect(pulledCatalog.products.get("bulk")).toEqual(written.products.get("bulk"));
    expect(pulledCatalog.products.get("made-elsewhere")?.prices).toEqual([
      {
        amount_type: "metered_unit",
        price_currency: "usd",
        tax_behavior: null,
        meter: "api-calls",
        unit_amount: null,
        unit_tiers: {
          tier_type: "volume",
          tiers: [
            { up_to: 100, unit_amount: "0", flat_amount: 0 },
            { up_to: null, unit_amount: "0.4", flat_amount: 300 },
          ],
        },
        cap_amount: 9000,
      },
    ]);

    const noChange = "No changes: the catalog on the server matches the file.\n";
    expect(await till(["catalog", "plan", "-f", file("pulled.yaml")], opts)).toEqual({ exitCode: 0, stderr: "", stdout: noChange });
    expect(await till(["catalog", "apply", "-f", file("pulled.yaml"), "--yes"], opts)).toEqual({ exitCode: 0, stderr: "", stdout: noChange });
    expect(await till(["catalog", "plan", "-f", file("till.yaml")], opts)).toMatchObject({ exitCode: 0, stdout: expect.not.stringContaining("~ update") });
    // nothing was recreated: the same prices, tiers and all
    const after = await products();
    for (const name of ["API", "Bulk", "Made elsewhere"]) expect(meteredOf(after.get(name))).toEqual(meteredOf(before.get(name)));
    expect(meteredOf(after.get("API"))).toEqual(meteredOf(made.get("API")));
    expect(meteredOf(after.get("Made elsewhere"))[0]?.unit_tiers).toEqual({
      tier_type: "volume",
      tiers: [
        { up_to: 100, unit_amount: "0", flat_amount: 0 },
        { up_to: null, unit_amount: "0.4", flat_amount: 300 },
      ],
    });
  });

  it("a change of one tier shows in plan and is applied", { timeout: 120_000 }, async () => {
    const before = meteredOf((await products()).get("API"))[0];
    writeFileSync(file("edited.yaml"), CATALOG.replace(`{ up_to: 10000, unit_amount: "0.2", flat_amount: 500 }`, `{ up_to: 10000, unit_amount: "0.25", flat_amount: 500 }`));
    const change = `~ update product "API": prices - metered api-calls usd graduated 1000:0 10000:0.2+500 inf:0.15+1000 cap 20000, ` +
      `+ metered api-calls usd graduated 1000:0 10000:0.25+500 inf:0.15+1000 cap 20000`;
    const planned = await till(["catalog", "plan", "-f", file("edited.yaml")], opts);
    expect(planned.exitCode, planned.stderr).toBe(2);
    expect(planned.stdout).toContain(`${change}\n`);
    expect(planned.stdout).toContain("Plan: 0 to create, 1 to update,");

    const applied = await till(["catalog", "apply", "-f", file("edited.yaml"), "--yes"], opts);
    expect(applied.exitCode, applied.stderr).toBe(0);
    expect(applied.stderr).toContain(`✓ ${change}\n`);
    const [now, ...others] = meteredOf((await products()).get("API"));
    expect(others).toEqual([]);
    expect(now?.id).not.toBe(before?.id);
    expect(now?.cap_amount).toBe(20000);
    expect(now?.unit_tiers).toEqual({
      tier_type: "graduated",
      tiers: [
        { up_to: 1000, unit_amount: "0", flat_amount: 0 },
        { up_to: 10000, unit_amount: "0.25", flat_amount: 500 },
        { up_to: null, unit_amount: "0.15", flat_amount: 1000 },
      ],
    });
    expect((await till(["catalog", "plan", "-f", file("edited.yaml")], opts)).exitCode).toBe(0);
  });

  it("a malformed tiers block is refused with its file, line and key; nothing changes", async () => {
    const before = JSON.stringify([...(await products()).values()]);
    const bad = CATALOG.replace(
      `            - { up_to: 1000, unit_amount: 0 }
            - { up_to: 10000, unit_amount: "0.2", flat_amount: 500 }
            - { unit_amount: "0.15", flat_amount: 1000 }`,
      `            - { up_to: 1000, unit_amount: 0 }
            - { unit_amount: "0.2", flat_amount: 500 }
            - { up_to: 500, unit_amount: "-1", flat: 1000 }`,
    ).replace("tier_type: volume", "tier_type: stepped");
    writeFileSync(file("bad.yaml"), bad);
    const r = await till(["catalog", "apply", "-f", file("bad.yaml"), "--yes"], opts);
    const f = file("bad.yaml");
    expect(r).toEqual({
      exitCode: 2,
      stdout: "",
      stderr: `error: ${f} is not a valid catalog:
${f}:22: products.api.prices[0].unit_tiers.tiers[1].up_to: only the last tier has no up_to (the others end at a number of units)
${f}:23: products.api.prices[0].unit_tiers.tiers[2].unit_amount: expected 0 or a positive decimal with at most 5 digits before and 12 after the point
${f}:23: products.api.prices[0].unit_tiers.tiers[2].flat: unknown field
${f}:23: products.api.prices[0].unit_tiers.tiers[2].up_to: the last tier has no up_to: it takes every unit above the tier before
${f}:34: products.bulk.prices[1].unit_tiers.tier_type: Invalid option: expected one of "graduated"|"volume"
hint: \`till catalog pull\` writes a valid file to start from
`,
    });
    expect(JSON.stringify([...(await products()).values()])).toBe(before);

    writeFileSync(file("untiered.yaml"), CATALOG.replace(`        unit_amount: "0.5"\n`, "").replace(/ {8}unit_tiers:\n {10}tier_type: volume\n(.|\n)*$/, ""));
    const missing = await till(["catalog", "plan", "-f", file("untiered.yaml")], opts);
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toContain(`${file("untiered.yaml")}:29: products.bulk.prices[1].unit_amount: a metered price needs unit_amount or unit_tiers\n`);
  });
});
