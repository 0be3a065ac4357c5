// The restore drill's till side: till as its own process on a cluster, the seller and products it sells, and the
// business it records (paid orders of a one-time purchase, subscriptions bought through checkouts, usage events),
// then what a database holds of it and what a till on the restored one answers about it. Loopback only.
import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import postgres from "postgres";
import { benchSeller, call, type BenchSeller } from "../../bench/helpers/client.js";
import { freePort, startTill, type Till } from "../../tests/helpers/till-process.js";

export interface RunningTill {
  url: string;
  till: Till;
  stop(): Promise<void>;
}

/**
 * till (`node --import tsx server/main.ts`) on `databaseUrl`, on a free loopback port; the test processor pays live
 * organizations' checkouts.
 */
export async function tillOn(databaseUrl: string): Promise<RunningTill> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const till = await startTill({
    DATABASE_URL: databaseUrl,
    PORT: String(port),
    HOST: "127.0.0.1",
    TILL_BASE_URL: url,
    TILL_DATA_DIR: mkdtempSync(path.join(os.tmpdir(), "till-drill-")),
    TILL_AUTH_SECRET: "drill-secret-".padEnd(40, "x"),
    TILL_TEST_PAYMENTS: "live",
    TILL_RATE_LIMIT: "false",
    TILL_LOG_LEVEL: "warn",
  });
  return {
    url,
    till,
    async stop() {
      if (till.child.exitCode !== null || till.child.signalCode !== null) return;
      till.child.kill("SIGTERM");
      await till.exited;
    },
  };
}

export interface Shop {
  seller: BenchSeller;
  purchaseId: string;
  planId: string;
}

/** A seller with an organization, an API key, a one-time purchase and a monthly plan. */
export async function openShop(base: string): Promise<Shop> {
  const seller = await benchSeller(base, "drill");
  const purchase = await call<{ id: string }>(base, "POST", "/v1/products/", {
    name: "E-book",
    prices: [{ amount_type: "fixed", price_amount: 1900, price_currency: "usd" }],
  }, seller.auth);
  const plan = await call<{ id: string }>(base, "POST", "/v1/products/", {
    name: "Pro plan",
    recurring_interval: "month",
    prices: [{ amount_type: "fixed", price_amount: 900, price_currency: "usd" }],
  }, seller.auth);
  return { seller, purchaseId: purchase.json.id, planId: plan.json.id };
}

let buyers = 0;

/** A checkout of `productId` paid with the test card by a new customer. */
async function buy(base: string, shop: Shop, productId: string): Promise<void> {
  const checkout = await call<{ id: string; client_secret: string }>(base, "POST", "/v1/checkouts/", { products: [productId] }, shop.seller.auth);
  const secret = checkout.json.client_secret;
  const card = { number: "4242424242424242", exp_month: 12, exp_year: new Date().getUTCFullYear() + 2, cvc: "123" };
  const token = await call<{ confirmation_token_id: string }>(base, "POST", `/v1/checkouts/client/${secret}/test-card`, card);
  await call(base, "POST", `/v1/checkouts/client/${secret}/confirm`, {
    customer_email: `drill-buyer-${Date.now().toString(36)}-${buyers++}@example.com`,
    customer_name: "Drill Buyer",
    customer_billing_address: { country: "FR" },
    confirmation_token_id: token.json.confirmation_token_id,
  });
}

export interface Batch {
  orders: number;
  subscriptions: number;
  /** Usage events, sent 1,000 to a request. */
  events: number;
}

/** Records one batch of business: paid one-time orders, subscriptions (each with its first order) and events. */
export async function doBusiness(base: string, shop: Shop, tag: string, batch: Batch): Promise<void> {
  for (let i = 0; i < batch.orders; i++) await buy(base, shop, shop.purchaseId);
  for (let i = 0; i < batch.subscriptions; i++) await buy(base, shop, shop.planId);
  for (let sent = 0; sent < batch.events; sent += 1000) {
    const n = Math.min(1000, batch.events - sent);
    const events = Array.from({ length: n }, (_, i) => ({
      name: "api.call",
      external_customer_id: `drill-${i % 20}`,
      external_id: `${tag}-${sent + i}`,
      metadata: { units: i % 10 },
    }));
    const res = await call<{ inserted: number }>(base, "POST", "/v1/events/ingest", { events }, shop.seller.auth);
    if (res.json.inserted !== n) throw new Error(`ingest ${tag}: ${res.json.inserted} of ${n} inserted`);
  }
}

/** The ids of every order, subscription and event a database holds, sorted. */
export interface Holdings {
  orders: string[];
  subscriptions: string[];
  events: string[];
}

export async function holdings(url: string): Promise<Holdings> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const ids = async (table: string) => (await sql.unsafe<Array<{ id: string }>>(`SELECT id::text AS id FROM "${table}" ORDER BY id`)).map((r) => r.id);
    return { orders: await ids("order"), subscriptions: await ids("subscription"), events: await ids("event") };
  } finally {
    await sql.end();
  }
}

/** The ids in `later` that are not in `earlier`, per kind. */
export function added(earlier: Holdings, later: Holdings): Holdings {
  const diff = (a: string[], b: string[]) => {
    const had = new Set(a);
    return b.filter((id) => !had.has(id));
  };
  return { orders: diff(earlier.orders, later.orders), subscriptions: diff(earlier.subscriptions, later.subscriptions), events: diff(earlier.events, later.events) };
}

const ROUTES: Record<keyof Holdings, string> = { orders: "/v1/orders/", subscriptions: "/v1/subscriptions/", events: "/v1/events/" };

/**
 * What a till on the restored database answers for each id: `present` ids must be found (200) and `absent` ids not
 * (404). Events are many: every `stride`-th of them is asked for. The count of ids asked; throws on the first wrong
 * answer.
 */
export async function checkThroughApi(base: string, auth: Record<string, string>, present: Holdings, absent: Holdings, stride = 50): Promise<number> {
  let asked = 0;
  for (const kind of Object.keys(ROUTES) as Array<keyof Holdings>) {
    const pick = (ids: string[]) => (kind === "events" ? ids.filter((_, i) => i % stride === 0) : ids);
    for (const [ids, want] of [[pick(present[kind]), 200], [pick(absent[kind]), 404]] as const) {
      for (const id of ids) {
        const res = await fetch(`${base}${ROUTES[kind]}${id}`, { headers: auth });
        await res.arrayBuffer();
        if (res.status !== want) throw new Error(`GET ${ROUTES[kind]}${id} answered ${res.status} on the restored database, not ${want}`);
        asked++;
      }
    }
  }
  return asked;
}
