// A checkout's expiry announced on the wall clock: the schedule's pass (jobs/schedules.ts, beside the renewals)
// finds an open checkout whose expires_at has passed, stores it as expired and records one checkout.expired
// (the Checkout as GET answers it) in the outbox; a second pass and a checkout still open are left alone.
import { and, eq, sql } from "drizzle-orm";
import { checkoutFromJSON } from "@polar-sh/sdk/models/components/checkout.js";
import { checkoutFromJSON as checkoutFromJSON049 } from "polar-sdk-049/models/components/checkout.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkout, outbox } from "../../server/db/schema/index.js";
import { startSchedules } from "../../server/jobs/schedules.js";
import { createPaymentProcessor } from "../../server/payments/index.js";
import { createProduct } from "../helpers/checkout.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";

let server: TestServer;
let seller: Seller;

beforeAll(async () => {
  server = await startServer();
  seller = await createSeller(server, "expiry");
});
afterAll(async () => {
  await server?.close();
});

const db = () => server.database.db;

/** One pass of the schedule (renewals, dunning, checkout expiries), as the server runs it. */
async function schedulePass(): Promise<void> {
  const schedules = startSchedules({ db: db(), processor: createPaymentProcessor(), baseURL: server.url, intervalMs: 3_600_000 });
  await schedules.stop();
}

async function expiredEvents() {
  const rows = await db()
    .select()
    .from(outbox)
    .where(and(eq(outbox.organizationId, seller.organizationId), eq(outbox.type, "checkout.expired")));
  return rows.map((r) => r.payload as Record<string, unknown>);
}

describe("the schedule's checkout expiry pass", () => {
  it("announces an open checkout past its expiry once, with a checkout.expired in the outbox", async () => {
    const product = await createProduct(seller, "fixed");
    const past = await seller.sdk.checkouts.create({ products: [product.id] });
    const current = await seller.sdk.checkouts.create({ products: [product.id] });
    await db().update(checkout).set({ expiresAt: sql`now() - interval '1 minute'` }).where(eq(checkout.id, past.id));

    await schedulePass();
    const events = await expiredEvents();
    expect(events.map((e) => e.id)).toEqual([past.id]);
    const [data] = events;
    expect(data).toMatchObject({ id: past.id, status: "expired" });
    // the Checkout model of both SDKs reads it (the webhook's `data`)
    expect(checkoutFromJSON(JSON.stringify(data)).ok).toBe(true);
    expect(checkoutFromJSON049(JSON.stringify(data)).ok).toBe(true);
    // as GET answers it, but for modified_at (stamped at the expiry pass)
    const got = await seller.sdk.checkouts.get({ id: past.id });
    expect(got.status).toBe("expired");
    expect(data!.modified_at).toBe(got.modifiedAt?.toISOString());
    expect((await seller.sdk.checkouts.get({ id: current.id })).status).toBe("open");

    // once: the next pass finds nothing to announce
    await schedulePass();
    expect(await expiredEvents()).toHaveLength(1);
    const listed = async (status: "open" | "expired") =>
      (await seller.sdk.checkouts.list({ productId: product.id, status, limit: 100 })).result.items.map((c) => c.id);
    expect(await listed("expired")).toEqual([past.id]);
    expect(await listed("open")).toEqual([current.id]);
  });
});
