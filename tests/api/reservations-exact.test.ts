// Reservations are exact: 30 clients reserving one unit each at once against a balance of 10 hold exactly 10,
// and no check meanwhile sees the balance below zero; commits racing new holds leave exactly the balance held;
// and the units committed over a period are the usage its renewal bills (past the credits, at the meter price),
// a hold left open across the renewal billed in the period it is committed in. On PGlite the requests are
// serialized by its one connection; on PostgreSQL they race for real.
import { sql } from "drizzle-orm";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rowsOf } from "../../server/db/client.js";
import { freshDatabase, usingPostgres } from "../helpers/db.js";
import { eventually } from "../helpers/receiver.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { balanceOf, call, commit, eventsOf, plan, release, reserve, subscriber, sumMeter, type Api, type ReservationBody } from "./reservations-fixtures.js";

let shared: Awaited<ReturnType<typeof freshDatabase>>;
let server: TestServer;
let seller: Seller;
let api: Api;
let tokens: string;
let tenCredits: string;

beforeAll(async () => {
  shared = await freshDatabase();
  server = await startServer({}, { database: shared });
  seller = await createSeller(server, "exact");
  api = { url: server.url, token: seller.token };
  tokens = await sumMeter(api, "llm");
  tenCredits = await plan(api, "Ten tokens", tokens, { credits: 10, overage: null });
}, 300_000);

afterAll(async () => {
  await server?.close();
  await shared?.close();
});

const CLIENTS = 30;

/** Reserves one unit from each of `n` clients at once, checking the balance from as many beside them. */
async function race(customerId: string, n: number, beside: () => Promise<unknown> = async () => {}) {
  const balances: number[] = [];
  const [answers] = await Promise.all([
    Promise.all(Array.from({ length: n }, () => reserve(api, customerId, "llm", 1))),
    Promise.all(Array.from({ length: n }, async () => balances.push((await balanceOf(api, customerId, "llm")).balance))),
    beside(),
  ]);
  return { answers, balances };
}

describe("under concurrency", () => {
  it(`${CLIENTS} clients reserving 1 unit each against a balance of 10 hold exactly 10`, async () => {
    const { customerId } = await subscriber(api, tenCredits);
    const { answers, balances } = await race(customerId, CLIENTS);
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(10);
    expect(statuses.filter((s) => s === 409)).toHaveLength(CLIENTS - 10);
    for (const a of answers.filter((x) => x.status === 409)) expect(a.body).toMatchObject({ reason: "insufficient_balance", balance: 0 });
    expect(Math.min(...balances)).toBeGreaterThanOrEqual(0);
    expect(await balanceOf(api, customerId, "llm")).toMatchObject({ balance: 0, held: 10, limit: 10 });
  });

  it("commits racing new holds: the units committed and the units held never exceed the balance", async () => {
    const { customerId } = await subscriber(api, tenCredits);
    const first = await Promise.all(Array.from({ length: 5 }, () => reserve(api, customerId, "llm", 1)));
    const ids = first.map((r) => (r.body as unknown as ReservationBody).id);
    // the 5 held become 5 used while 30 clients ask for one more each: exactly 5 more can be held
    const { answers, balances } = await race(customerId, CLIENTS, () => Promise.all(ids.map((id) => commit(api, id, 1))));
    expect(answers.filter((a) => a.status === 201)).toHaveLength(5);
    expect(Math.min(...balances)).toBeGreaterThanOrEqual(0);
    expect(await balanceOf(api, customerId, "llm")).toMatchObject({ balance: 0, held: 5 });
    expect(await eventsOf(api, customerId)).toHaveLength(5);
  });

  it("releases racing new holds: every unit released may be held again, no more", async () => {
    const { customerId } = await subscriber(api, tenCredits);
    const first = await Promise.all(Array.from({ length: 10 }, () => reserve(api, customerId, "llm", 1)));
    const ids = first.map((r) => (r.body as unknown as ReservationBody).id);
    expect(ids.every(Boolean)).toBe(true);
    const { answers, balances } = await race(customerId, CLIENTS, () => Promise.all(ids.slice(0, 4).map((id) => release(api, id))));
    // 0 to 4 more held, as the releases landed; never more than released
    const taken = answers.filter((a) => a.status === 201).length;
    expect(taken).toBeLessThanOrEqual(4);
    expect(Math.min(...balances)).toBeGreaterThanOrEqual(0);
    expect(await balanceOf(api, customerId, "llm")).toMatchObject({ balance: 4 - taken, held: 6 + taken });
  });
});

/** Whether some statement waits for a lock: on a table (by name) or an advisory one. */
async function waiting(what: { table: string } | "advisory"): Promise<boolean> {
  const which = what === "advisory" ? sql`locktype = 'advisory'` : sql`relation = ${what.table}::regclass`;
  const rows = await rowsOf<{ n: number }>(shared.db, sql`SELECT count(*)::int AS n FROM pg_locks WHERE NOT granted AND ${which}`);
  return (rows[0]?.n ?? 0) > 0;
}

describe.skipIf(!usingPostgres)("a commit landing inside a hold's reading of the balance (PostgreSQL)", () => {
  it("is waited for: the hold sees the units either held or used, never both", async () => {
    const { customerId } = await subscriber(api, tenCredits);
    const first = (await reserve(api, customerId, "llm", 5)).body as unknown as ReservationBody;
    // a hold reads the units held, then the usage (whose periods come from the prices): stop it between the two
    const locker = postgres(shared.url!, { max: 1 });
    let unlock = () => {};
    const unlocked = new Promise<void>((r) => (unlock = r));
    let locked = () => {};
    const isLocked = new Promise<void>((r) => (locked = r));
    const holding = locker.begin(async (tx) => {
      await tx`LOCK TABLE product_price IN ACCESS EXCLUSIVE MODE`;
      locked();
      await unlocked;
    });
    try {
      await isLocked;
      const second = reserve(api, customerId, "llm", 5);
      await eventually(() => waiting({ table: "product_price" }), 30_000);
      const used = commit(api, first.id, 5);
      // the commit is done, or waits for the hold to finish
      await eventually(async () => (await waiting("advisory")) || (await call(api, "GET", `/v1/reservations/${first.id}`)).body.status === "committed", 30_000);
      unlock();
      await holding;
      const [held, committed] = await Promise.all([second, used]);
      expect(committed.status).toBe(200);
      expect(held.status).toBe(201);
      expect(await balanceOf(api, customerId, "llm")).toMatchObject({ balance: 0, held: 5 });
    } finally {
      unlock();
      await holding.catch(() => {});
      await locker.end();
    }
  });
});

describe.skipIf(!usingPostgres)("a commit landing inside a check's reading of the balance (PostgreSQL)", () => {
  it("is not counted twice: the balance is the same before and after, never below zero", async () => {
    const { customerId } = await subscriber(api, tenCredits);
    const all = (await reserve(api, customerId, "llm", 10)).body as unknown as ReservationBody;
    const locker = postgres(shared.url!, { max: 1 });
    let unlock = () => {};
    const unlocked = new Promise<void>((r) => (unlock = r));
    let locked = () => {};
    const isLocked = new Promise<void>((r) => (locked = r));
    const holding = locker.begin(async (tx) => {
      await tx`LOCK TABLE product_price IN ACCESS EXCLUSIVE MODE`;
      locked();
      await unlocked;
    });
    try {
      await isLocked;
      const checked = balanceOf(api, customerId, "llm");
      await eventually(() => waiting({ table: "product_price" }), 30_000);
      const used = commit(api, all.id, 10);
      await eventually(async () => (await call(api, "GET", `/v1/reservations/${all.id}`)).body.status === "committed", 30_000);
      unlock();
      await holding;
      expect((await used).status).toBe(200);
      expect(await checked).toMatchObject({ balance: 0 });
      expect(await balanceOf(api, customerId, "llm")).toMatchObject({ balance: 0, held: 0 });
    } finally {
      unlock();
      await holding.catch(() => {});
      await locker.end();
    }
  });
});

/** Renews the subscription now; the order it made. */
async function renew(subscriptionId: string) {
  const current = await call(api, "GET", `/v1/subscriptions/${subscriptionId}`);
  const res = await call(api, "POST", `/v1/subscriptions/${subscriptionId}/renew`, { current_period_start: current.body.current_period_start });
  expect(res.status).toBe(200);
  const [order] = (await seller.sdk.orders.list({ subscriptionId, sorting: ["-created_at"], limit: 1 })).result.items;
  if (!order) throw new Error("no order");
  return order;
}

describe("committed units are the usage billed", () => {
  it("a credit_then_invoice renewal bills exactly the committed units past the credits", async () => {
    const payg = await plan(api, "Tokens, then invoiced", tokens, { credits: 10, overage: "credit_then_invoice", unitAmount: "10" });
    const { customerId, subscriptionId } = await subscriber(api, payg);
    const hold = async (units: number) => (await reserve(api, customerId, "llm", units)).body as unknown as ReservationBody;
    // committed: 6 of 8, 10 of 10, 0 of 4 — 16 units; released: 5; expired: 3; still held at the renewal: 7
    expect((await commit(api, (await hold(8)).id, 6)).status).toBe(200);
    expect((await commit(api, (await hold(10)).id, 10)).status).toBe(200);
    expect((await commit(api, (await hold(4)).id, 0)).status).toBe(200);
    expect((await release(api, (await hold(5)).id)).status).toBe(200);
    const expiring = await reserve(api, customerId, "llm", 3, { expires_in: 1 });
    expect(expiring.status).toBe(201);
    const open = await hold(7);
    expect(await balanceOf(api, customerId, "llm")).toMatchObject({ limit: 10 });
    const deadline = Date.now() + 30_000;
    while ((await call(api, "GET", `/v1/reservations/${(expiring.body as unknown as ReservationBody).id}`)).body.status !== "expired") {
      if (Date.now() > deadline) throw new Error("the hold never expired");
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(await balanceOf(api, customerId, "llm")).toMatchObject({ balance: 10 - 16 - 7, held: 7 });

    const first = await renew(subscriptionId);
    expect(first.items.map((i) => ({ label: i.label, amount: i.amount }))).toEqual([
      { label: "Tokens, then invoiced", amount: 900 },
      { label: "Tokens, then invoiced — llm (16 consumed, 10 credited, 6 billed)", amount: 60 },
    ]);
    expect(first.subtotalAmount).toBe(960);

    // the hold open across the renewal is used in the new period, and billed at its renewal
    expect(await balanceOf(api, customerId, "llm")).toMatchObject({ balance: 10 - 7, held: 7 });
    expect((await commit(api, open.id, 7)).status).toBe(200);
    expect((await commit(api, open.id, 7)).status).toBe(200);
    expect((await commit(api, (await hold(9)).id, 9)).status).toBe(200);
    const second = await renew(subscriptionId);
    expect(second.items.map((i) => ({ label: i.label, amount: i.amount }))).toEqual([
      { label: "Tokens, then invoiced", amount: 900 },
      { label: "Tokens, then invoiced — llm (16 consumed, 10 credited, 6 billed)", amount: 60 },
    ]);
  });
});
