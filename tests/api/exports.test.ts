// CSV exports through both SDKs: `customers.export`, `orders.export`, `subscriptions.export` answer text/csv
// (they fell into the `{id}` routes before: a 422), every row exactly once across keyset batches (also rows
// sharing a created_at to the microsecond), RFC 4180 quoting and no spreadsheet formulas from customer input,
// the organization_id / product_id filters, scopes, tenancy and the sandbox.
import { randomUUID } from "node:crypto";
import type { Product } from "@polar-sh/sdk/models/components/product.js";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXPORT_BATCH } from "../../server/billing/csv.js";
import { customer } from "../../server/db/schema/index.js";
import { createProduct, pay } from "../helpers/checkout.js";
import { createSeller, sdk049For, sdkFor, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";

let server: TestServer;
let seller: Seller;
let other: Seller;
let oneTime: Product;
let monthly: Product;

/** RFC 4180: quoted fields may hold commas, CRLF and doubled quotes. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  const endField = () => {
    row.push(field);
    field = "";
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted && c === '"' && text[i + 1] === '"') {
      field += '"';
      i++;
    } else if (c === '"') {
      quoted = !quoted;
    } else if (!quoted && c === ",") {
      endField();
    } else if (!quoted && c === "\r" && text[i + 1] === "\n") {
      endField();
      rows.push(row);
      row = [];
      i++;
    } else {
      field += c;
    }
  }
  if (field !== "" || row.length > 0) {
    endField();
    rows.push(row);
  }
  return rows;
}

function records(text: string): Array<Record<string, string>> {
  const [header, ...rows] = parseCsv(text);
  if (!header) throw new Error("no header");
  return rows.map((r) => Object.fromEntries(header.map((h, i) => [h, r[i] ?? ""])));
}

/** A raw GET keeping the answer's text and headers (rawRequest reads JSON). */
async function get(token: string, path: string) {
  const res = await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

const asText = (v: unknown): string => {
  if (typeof v !== "string") throw new Error(`export answered ${typeof v}, not CSV text`);
  return v;
};

beforeAll(async () => {
  server = await startServer();
  seller = await createSeller(server, "exporter");
  other = await createSeller(server, "other-exporter");
  oneTime = await createProduct(seller, "fixed");
  monthly = await createProduct(seller, "monthly");
  for (const product of [oneTime, monthly, oneTime]) {
    const checkout = await seller.sdk.checkouts.create({ products: [product.id] });
    await pay(server, checkout, { customerName: '=HYPERLINK("http://x"), "Ada", Buyer' });
  }
  const theirs = await createProduct(other, "fixed");
  await pay(server, await other.sdk.checkouts.create({ products: [theirs.id] }));
}, 120_000);

afterAll(async () => {
  await server?.close();
});

describe("customers.export", () => {
  it("answers every customer once as CSV, quoted and without formulas, through both SDKs", async () => {
    const created = await seller.sdk.customers.create({
      email: `csv-${Date.now()}@example.com`,
      name: 'Line one\r\nLine "two", three',
      externalId: "ext-csv-1",
      metadata: { plan: "-1+1" },
    });
    for (const sdk of [sdkFor(server, seller.token), sdk049For(server, seller.token)]) {
      const rows = records(asText(await sdk.customers.export({})));
      const listed = await seller.sdk.customers.list({ limit: 100 });
      expect(rows.map((r) => r.id).sort()).toEqual(listed.result.items.map((c) => c.id).sort());
      const mine = rows.find((r) => r.id === created.id)!;
      expect(mine.name).toBe('Line one\r\nLine "two", three');
      expect(mine.external_id).toBe("ext-csv-1");
      expect(JSON.parse(mine.metadata!)).toEqual({ plan: "-1+1" });
      // the buyer named themselves with a formula: a spreadsheet reads it as text
      const buyers = rows.filter((r) => r.id !== created.id);
      expect(buyers.length).toBeGreaterThan(0);
      for (const b of buyers) expect(b.name).toBe(`'=HYPERLINK("http://x"), "Ada", Buyer`);
    }
  });

  it("walks keyset batches without losing or repeating rows, also rows created in the same microsecond", async () => {
    const big = await createSeller(server, "big-exporter");
    const at = new Date("2026-01-01T00:00:00.000Z");
    const values = Array.from({ length: EXPORT_BATCH * 2 + 7 }, (_, i) => ({
      id: randomUUID(),
      organizationId: big.organizationId,
      email: `bulk-${i}@example.com`,
      // pairs share a created_at: the id breaks the tie
      createdAt: new Date(at.getTime() + Math.floor(i / 2)),
    }));
    for (let i = 0; i < values.length; i += 500) await server.database.db.insert(customer).values(values.slice(i, i + 500));
    // microseconds a JavaScript Date cannot hold: the cursor must not round them off
    await server.database.db.execute(
      sql`UPDATE customer SET created_at = created_at + interval '3 microseconds' WHERE organization_id = ${big.organizationId} AND email LIKE 'bulk-1%'`,
    );
    const res = await get(big.token, "/v1/customers/export");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/csv/);
    expect(res.headers.get("content-disposition")).toBe('attachment; filename="customers.csv"');
    const ids = records(res.text).map((r) => r.id);
    expect(ids.length).toBe(values.length);
    expect(new Set(ids).size).toBe(values.length);
  });

  it("answers 404 for another organization's id and 422 for a bad one", async () => {
    const key = await seller.createKey();
    const own = records(asText(await sdkFor(server, key).customers.export({ organizationId: seller.organizationId })));
    expect(own.length).toBeGreaterThan(0);
    for (const sdk of [sdkFor(server, key), seller.sdk]) {
      await expect(sdk.customers.export({ organizationId: other.organizationId })).rejects.toThrow(/404/);
    }
    const bad = await get(seller.token, "/v1/customers/export?organization_id=nope");
    expect(bad.status).toBe(422);
    expect(bad.text).toContain("organization_id");
  });
});

describe("orders.export and subscriptions.export", () => {
  it("lists the organization's orders with their amounts, filtered by product", async () => {
    const rows = records(asText(await seller.sdk.orders.export({})));
    expect(rows).toHaveLength(3);
    for (const r of rows) {
      expect(r.status).toBe("paid");
      expect(r.currency).toBe("usd");
      expect(Number(r.total_amount)).toBe(Number(r.net_amount) + Number(r.tax_amount));
      expect(r.invoice_number).toMatch(/-\d+$/);
    }
    const onlyMonthly = records(asText(await sdk049For(server, seller.token).orders.export({ productId: monthly.id })));
    expect(onlyMonthly.map((r) => r.product_name)).toEqual([monthly.name]);
    expect(onlyMonthly[0]!.billing_reason).toBe("subscription_create");
    // the other seller's order is not among them, and theirs holds only theirs
    const theirs = records(asText(await other.sdk.orders.export({})));
    expect(theirs).toHaveLength(1);
    expect(rows.map((r) => r.id)).not.toContain(theirs[0]!.id);
  });

  it("lists subscriptions with their period", async () => {
    const rows = records(asText(await seller.sdk.subscriptions.export({})));
    expect(rows).toHaveLength(1);
    const [s] = rows;
    expect(s!.product_id).toBe(monthly.id);
    expect(s!.status).toBe("active");
    expect(s!.amount).toBe("900");
    expect(new Date(s!.current_period_end!).getTime()).toBeGreaterThan(new Date(s!.current_period_start!).getTime());
    expect(records(asText(await sdk049For(server, seller.token).subscriptions.export({})))).toHaveLength(1);
  });

  it("needs the read scope of what it exports, and a sandbox key sees only the sandbox", async () => {
    const productsOnly = await seller.createKey({ products: ["read"] });
    for (const path of ["/v1/customers/export", "/v1/orders/export", "/v1/subscriptions/export"]) {
      const res = await get(productsOnly, path);
      expect(res.status, path).toBe(403);
    }
    const sandbox = await seller.createSandboxKey();
    const res = await get(sandbox, "/v1/orders/export");
    expect(res.status).toBe(200);
    expect(records(res.text)).toHaveLength(0);
  });
});
