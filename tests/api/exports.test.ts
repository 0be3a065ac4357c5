// CSV exports through both SDKs: `customers.export`, `orders.export`, `subscriptions.export` answer text/csv
// (they fell into the `{id}` routes before: a 422), every row exactly once across keyset batches (also rows
// sharing a created_at to the microsecond), RFC 4180 quoting and no spreadsheet formulas from customer input,
// the organization_id / product_id filters, scopes, tenancy and the sandbox.
import { randomUUID } from "node:crypto";
import type { Product } from "@polar-sh/sdk/models/components/product.js";
import { asc, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXPORT_BATCH } from "../../server/billing/csv.js";
import { customer, order, product, subscription } from "../../server/db/schema/index.js";
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

/**
 * The records as the JavaScript formatter wrote them before PostgreSQL built them (the reference the SQL must
 * match byte for byte): CRLF, RFC 4180 quoting, a leading `'` before a formula's first character, dates as
 * toISOString, JSON cells as JSON.stringify (empty objects, arrays and null empty).
 */
type Cell = string | number | boolean | Date | null | undefined;
function jsCell(value: Cell): string {
  if (value === null || value === undefined) return "";
  if (value instanceof Date) return value.toISOString();
  if (typeof value !== "string") return String(value);
  const text = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}
const jsJson = (value: unknown): string =>
  value === null || value === undefined || (typeof value === "object" && Object.keys(value).length === 0) ? "" : JSON.stringify(value);
const jsCsv = (header: string[], rows: Cell[][]) => [header, ...rows].map((r) => `${r.map(jsCell).join(",")}\r\n`).join("");

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

  it("writes exactly what the JavaScript formatter wrote: guard, quoting, dates, JSON (on both databases)", async () => {
    const odd = await createSeller(server, "odd-exporter");
    const names = [
      "=1+2", "+x", "-y", "@z", "\tTab", "\rCR", "plain", "", 'say "hi"', "a,b", "line\nbreak", "crlf\r\nx", "'quoted", "Zoë 🎉", null,
    ];
    const values = names.map((name, i) => ({
      organizationId: odd.organizationId,
      email: i === 3 ? "-mail@example.com" : `odd-${i}@example.com`,
      name,
      externalId: i % 3 === 0 ? `=ext-${i}` : i % 3 === 1 ? null : `ext, ${i}`,
      locale: i % 2 ? "de-DE" : null,
      billingAddress: (i % 4 === 0 ? { country: "DE", line1: 'Straße 1, "Hof"', city: null } : i % 4 === 1 ? {} : null) as Record<string, string | null> | null,
      taxId: i % 5 === 0 ? ["DE123456789", "eu_vat"] : i % 5 === 1 ? [null, "eu_vat"] : null,
      metadata: (i % 3 === 0
          ? { note: 'a, b: "c" \\ d', n: -1.5, big: 1234567, ok: true, no: false, tab: "x\ty\u0001", emoji: "🎉", "key: with, separators": "v" }
          : i % 3 === 1
            ? { plan: "-1+1" }
            : {}) as Record<string, string | number | boolean>,
      createdAt: new Date(Date.UTC(2026, 0, 1, 0, 0, i, 999)),
    }));
    await server.database.db.insert(customer).values(values);
    // microseconds a Date cannot hold: the cell keeps milliseconds, truncated as toISOString would
    await server.database.db.execute(
      sql`UPDATE customer SET created_at = created_at + interval '999 microseconds' WHERE organization_id = ${odd.organizationId}`,
    );
    const rows = await server.database.db
      .select()
      .from(customer)
      .where(eq(customer.organizationId, odd.organizationId))
      .orderBy(asc(customer.createdAt), asc(customer.id));
    const expected = jsCsv(
      ["id", "external_id", "created_at", "email", "name", "type", "billing_address", "tax_id", "locale", "metadata"],
      rows.map((c) => [c.id, c.externalId, c.createdAt, c.email, c.name, c.type, jsJson(c.billingAddress), c.taxId?.[0] ?? null, c.locale, jsJson(c.metadata)]),
    );
    const res = await get(odd.token, "/v1/customers/export");
    expect(res.status).toBe(200);
    expect(res.text).toBe(expected);
  });

  it("a client that goes away mid-export leaves no connection behind", async () => {
    const many = await createSeller(server, "aborted-exporter");
    // enough rows that the answer outlasts the socket buffers (~6 MB of CSV)
    await server.database.db.execute(
      sql`INSERT INTO customer (organization_id, email, name)
          SELECT ${many.organizationId}::uuid, 'gone-' || i || '@example.com', repeat('x', 200) FROM generate_series(1, 25000) AS i`,
    );
    // more aborted exports than the pool has connections: a leaked one each would leave none
    for (let n = 0; n < 12; n++) {
      const abort = new AbortController();
      const res = await fetch(`${server.url}/v1/customers/export`, { headers: { authorization: `Bearer ${many.token}` }, signal: abort.signal });
      const reader = (res.body as ReadableStream<Uint8Array>).getReader();
      await reader.read();
      abort.abort();
      await reader.read().catch(() => undefined);
    }
    const full = await get(many.token, "/v1/customers/export");
    expect(full.status).toBe(200);
    expect(records(full.text)).toHaveLength(25000);
    const listed = await many.sdk.customers.list({ limit: 1 });
    expect(listed.result.pagination.totalCount).toBe(25000);
  }, 120_000);

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

  it("writes orders and subscriptions exactly as the JavaScript formatter wrote them", async () => {
    const db = server.database.db;
    await db
      .update(order)
      .set({ billingName: "=cmd|' /C calc'!A0", metadata: { ref: "-5", n: 2 } })
      .where(eq(order.organizationId, seller.organizationId));
    await db
      .update(subscription)
      .set({ metadata: { "a, b": 'x "y"' }, seats: 3, trialEnd: new Date("2026-02-03T04:05:06.789Z") })
      .where(eq(subscription.organizationId, seller.organizationId));
    const orders = await db
      .select({ o: order, email: customer.email, productName: product.name })
      .from(order)
      .leftJoin(customer, eq(customer.id, order.customerId))
      .leftJoin(product, eq(product.id, order.productId))
      .where(eq(order.organizationId, seller.organizationId))
      .orderBy(asc(order.createdAt), asc(order.id));
    const expectedOrders = jsCsv(
      [
        "id", "created_at", "invoice_number", "status", "billing_reason", "customer_id", "customer_email", "product_id",
        "product_name", "subscription_id", "currency", "subtotal_amount", "discount_amount", "net_amount", "tax_amount",
        "total_amount", "refunded_amount", "refunded_tax_amount", "seats", "billing_name", "metadata",
      ],
      orders.map(({ o, email, productName }) => [
        o.id, o.createdAt, o.invoiceNumber, o.status, o.billingReason, o.customerId, email, o.productId, productName, o.subscriptionId,
        o.currency, o.subtotalAmount, o.discountAmount, o.netAmount, o.taxAmount, o.totalAmount, o.refundedAmount, o.refundedTaxAmount,
        o.seats, o.billingName, jsJson(o.metadata),
      ]),
    );
    expect((await get(seller.token, "/v1/orders/export")).text).toBe(expectedOrders);
    const subscriptions = await db
      .select({ s: subscription, email: customer.email, productName: product.name })
      .from(subscription)
      .leftJoin(customer, eq(customer.id, subscription.customerId))
      .leftJoin(product, eq(product.id, subscription.productId))
      .where(eq(subscription.organizationId, seller.organizationId))
      .orderBy(asc(subscription.createdAt), asc(subscription.id));
    const expectedSubscriptions = jsCsv(
      [
        "id", "created_at", "status", "customer_id", "customer_email", "product_id", "product_name", "amount", "currency",
        "recurring_interval", "recurring_interval_count", "seats", "current_period_start", "current_period_end",
        "trial_end", "cancel_at_period_end", "canceled_at", "ended_at", "metadata",
      ],
      subscriptions.map(({ s, email, productName }) => [
        s.id, s.createdAt, s.status, s.customerId, email, s.productId, productName, s.amount, s.currency, s.recurringInterval,
        s.recurringIntervalCount, s.seats, s.currentPeriodStart, s.currentPeriodEnd, s.trialEnd, s.cancelAtPeriodEnd, s.canceledAt,
        s.endedAt, jsJson(s.metadata),
      ]),
    );
    expect((await get(seller.token, "/v1/subscriptions/export")).text).toBe(expectedSubscriptions);
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
