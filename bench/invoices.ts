// Invoice PDFs: 1,000 paid orders' invoices made by the jobs worker (lease → read the order → render with
// @react-pdf/renderer → store with the files → record), against a baseline measured in the same run: the same
// documents rendered in a loop with no database and no storage. Prints invoices/s of both, their ratio, and
// the worker process's peak memory (RSS, sampled every 20 ms) above what it used before it started.
//
//   npm run bench:invoices                                  # PGlite (in memory)
//   DATABASE_URL=postgres://… npm run bench:invoices        # a throw-away database on that server
//   INVOICES=200 npm run bench:invoices                     # fewer documents
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { randomUUID } from "node:crypto";
import { and, count, eq } from "drizzle-orm";
import { billingOrganization, customer, invoice, order, orderItem, organization } from "../server/db/schema/index.js";
import { planOrderFromCheckout } from "../server/billing/orders/service.js";
import { documentData } from "../server/billing/invoices/service.js";
import { requestInvoice } from "../server/billing/invoices/repository.js";
import { renderInvoicePdf } from "../server/billing/invoices/document.js";
import type { TaxLine, TaxResult } from "../server/billing/tax/compute.js";
import { createWorker, DEFAULT_WORKER_OPTIONS } from "../server/jobs/worker.js";
import { freshDatabase } from "../tests/helpers/db.js";

const N = Number(process.env.INVOICES ?? 1_000);
const BASELINE = Math.min(N, 200);
const HARD_LIMIT_MS = 1_800_000;
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

async function main(): Promise<void> {
  const killer = setTimeout(() => {
    console.error(`bench: gave up after ${HARD_LIMIT_MS / 1000} s`);
    process.exit(2);
  }, HARD_LIMIT_MS);
  killer.unref();

  const database = await freshDatabase();
  const db = database.db;
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "till-bench-invoices-"));
  console.log(`invoices bench on ${database.driver}; ${N} invoices; worker concurrency ${DEFAULT_WORKER_OPTIONS.invoiceConcurrency}`);
  try {
    // a seller with its invoice details, a buyer, and N paid orders of two lines with French VAT
    const organizationId = randomUUID();
    await db.insert(organization).values({ id: organizationId, name: "Bench GmbH", slug: `bench-${Date.now().toString(36)}`, createdAt: new Date() });
    await db.insert(billingOrganization).values({
      organizationId,
      details: {
        country: "DE",
        invoice_details: { name: "Bench Software GmbH", address: { line1: "Hauptstraße 1", postal_code: "10115", city: "Berlin", country: "DE" }, tax_id: "DE123456789" },
      },
    });
    const customerId = randomUUID();
    await db.insert(customer).values({ id: customerId, organizationId, email: "buyer@example.com", name: "Jean Dupont" });
    const tax = (net: number): TaxLine => {
      const t = Math.round(net * 0.2);
      return { net, tax: t, total: net + t, rate: 0.2, jurisdiction: "FR", reverseCharge: false, inclusive: false, components: [{ jurisdiction: "FR", type: "vat", rate: 0.2, amount: t }] };
    };
    const taxResult: TaxResult = { lines: [tax(2500), tax(1000)], netAmount: 3500, taxAmount: 700, totalAmount: 4200, reverseCharge: false, note: null };
    for (let start = 0; start < N; start += 250) {
      const batch = Array.from({ length: Math.min(250, N - start) }, (_, k) => {
        const planned = planOrderFromCheckout(
          {
            organizationId,
            checkoutId: randomUUID(),
            customerId,
            productId: randomUUID(),
            subscriptionId: null,
            billingReason: "purchase",
            currency: "eur",
            discountId: null,
            subtotalAmount: 3500,
            discountAmount: 0,
            tax: taxResult,
            seats: null,
            billingName: "Jean Dupont",
            billingAddress: { line1: "1 rue de Rivoli", line2: null, postal_code: "75001", city: "Paris", state: null, country: "FR" },
            billingTaxId: null,
            metadata: {},
            customFieldData: {},
            items: [
              { label: "Pro plan", amount: 2500, productPriceId: null },
              { label: "Extra storage", amount: 1000, productPriceId: null },
            ],
          },
          new Date(),
        );
        return { ...planned, row: { ...planned.row, productId: null, checkoutId: null, invoiceNumber: `BENCH-${String(start + k + 1).padStart(5, "0")}` } };
      });
      await db.insert(order).values(batch.map((b) => b.row));
      await db.insert(orderItem).values(batch.flatMap((b) => b.items));
    }
    const orders = await db.select({ id: order.id, number: order.invoiceNumber }).from(order).where(eq(order.organizationId, organizationId));

    // baseline: the same documents rendered in a loop (no lease, no database read, no storage)
    const sample = await documentData(db, { organizationId, orderId: orders[0]!.id, refundId: null, kind: "invoice", number: orders[0]!.number, createdAt: new Date() });
    let bytes = 0;
    const b0 = performance.now();
    for (let i = 0; i < BASELINE; i++) bytes += (await renderInvoicePdf({ ...sample, number: `BASE-${i}` })).length;
    const baselineRate = BASELINE / ((performance.now() - b0) / 1000);
    console.log(`  baseline: ${BASELINE} rendered at ${baselineRate.toFixed(1)}/s`);

    // the worker: every order asked for in one transaction, then made
    await db.transaction(async (tx) => {
      for (const o of orders) await requestInvoice(tx, organizationId, o.id, o.number, false);
    });
    global.gc?.();
    const rssBefore = process.memoryUsage().rss;
    let peak = rssBefore;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 20);
    const worker = createWorker({
      database,
      mailer: { transport: "smtp", send: async () => {} },
      config: { webhooks: { allowPrivate: true }, dataDir },
      options: { pollIntervalMs: 50 },
    });
    const t0 = performance.now();
    await worker.start();
    const generated = () =>
      db
        .select({ n: count() })
        .from(invoice)
        .where(and(eq(invoice.organizationId, organizationId), eq(invoice.status, "generated")))
        .then((r) => r[0]?.n ?? 0);
    let lastReport = performance.now();
    for (let made = await generated(); made < N; made = await generated()) {
      if (performance.now() - lastReport > 10_000) {
        lastReport = performance.now();
        console.log(`  ${made}/${N} made after ${((lastReport - t0) / 1000).toFixed(0)} s`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    const seconds = (performance.now() - t0) / 1000;
    await worker.stop();
    clearInterval(sampler);
    const [{ size } = { size: 0 }] = await db.select({ size: invoice.size }).from(invoice).where(eq(invoice.organizationId, organizationId)).limit(1);
    const rate = N / seconds;

    console.log("");
    console.log(`baseline   render only, in a loop:   ${baselineRate.toFixed(1)} invoices/s (${BASELINE} PDFs, ${(bytes / BASELINE / 1024).toFixed(1)} KB each)`);
    console.log(`worker     lease+read+render+store:  ${rate.toFixed(1)} invoices/s (${N} PDFs in ${seconds.toFixed(1)} s, ${((size ?? 0) / 1024).toFixed(1)} KB each)`);
    console.log(`ratio      worker / baseline:        ${(rate / baselineRate).toFixed(2)}`);
    console.log(`memory     RSS before ${mb(rssBefore)}, peak ${mb(peak)} (+${mb(peak - rssBefore)} while making ${N})`);
  } finally {
    await database.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
process.exit(0);
