// Reservations through the real server: a hold within the balance is taken (the check shows it held and the
// balance lower), one beyond it refused with nothing written; a commit of fewer units records one usage event
// (external id `reservation:<id>`) and releases the rest, a retried commit records nothing twice, a commit past
// the hold is a 422; a released or expired hold cannot be settled, a release repeats; an expired hold stops
// counting at its expiry; a counting meter's commit records one event per unit; meters no usage event can measure
// are refused when reserving; another organization's reservation is not found; the scopes; an Idempotency-Key
// makes one hold; credit_then_invoice lets a hold exceed the credits; no credit and no price is no_benefit.
import { randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expireReservations } from "../../server/billing/entitlements/reservations.js";
import { entitlementReservation } from "../../server/db/schema/index.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { send } from "./idempotency-fixtures.js";
import {
  balanceOf,
  call,
  commit,
  countMeter,
  eventsOf,
  externalIdsOf,
  plan,
  release,
  reserve,
  subscriber,
  sumMeter,
  type Api,
  type ReservationBody,
} from "./reservations-fixtures.js";

let server: TestServer;
let seller: Seller;
let other: Seller;
let api: Api;
let tokens: string;
let calls: string;
let credited: string;
let invoiced: string;
let countedPlan: string;

beforeAll(async () => {
  server = await startServer();
  seller = await createSeller(server, "reserving");
  other = await createSeller(server, "elsewhere");
  api = { url: server.url, token: seller.token };
  tokens = await sumMeter(api, "llm");
  calls = await countMeter(api, "call");
  credited = await plan(api, "Hundred tokens", tokens, { credits: 100, overage: null });
  invoiced = await plan(api, "Pay as you go", tokens, { credits: 10, overage: "credit_then_invoice" });
  countedPlan = await plan(api, "Ten calls", calls, { credits: 10, overage: null });
}, 300_000);

afterAll(async () => {
  await server?.close();
});

const held = (res: { body: Record<string, unknown> }) => res.body as unknown as ReservationBody;

/** Polls the reservation until its status is `status`. */
async function untilStatus(id: string, status: ReservationBody["status"]): Promise<ReservationBody> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const res = await call(api, "GET", `/v1/reservations/${id}`);
    expect(res.status).toBe(200);
    if (held(res).status === status) return held(res);
    if (Date.now() > deadline) throw new Error(`reservation ${id} never became ${status}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe("holding", () => {
  it("holds units within the balance: 201 held, the check shows them held and the balance lower", async () => {
    const { customerId } = await subscriber(api, credited);
    const res = await reserve(api, customerId, "llm", 30, { expires_in: 600 });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ status: "held", customer_id: customerId, meter_id: tokens, units: 30, used_units: null });
    const expires = Date.parse(held(res).expires_at);
    expect(expires).toBeGreaterThan(Date.now() + 500_000);
    expect(await balanceOf(api, customerId, "llm")).toMatchObject({ balance: 70, limit: 100, held: 30 });
    // the same by the meter's id
    expect((await reserve(api, customerId, tokens, 70)).status).toBe(201);
    expect(await balanceOf(api, customerId, "llm")).toMatchObject({ balance: 0, held: 100 });
  });

  it("refuses units beyond the balance with the check's reason, writing nothing", async () => {
    const { customerId } = await subscriber(api, credited);
    expect((await reserve(api, customerId, "llm", 60)).status).toBe(201);
    const refused = await reserve(api, customerId, "llm", 41);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ error: "ReservationRefused", reason: "insufficient_balance", balance: 40, units: 41 });
    expect(await balanceOf(api, customerId, "llm")).toMatchObject({ balance: 40, held: 60 });
    expect((await reserve(api, customerId, "llm", 40)).status).toBe(201);
  });

  it("a credit_then_invoice price lets a hold exceed the credits", async () => {
    const { customerId } = await subscriber(api, invoiced);
    const res = await reserve(api, customerId, "llm", 500);
    expect(res.status).toBe(201);
    expect(await balanceOf(api, customerId, "llm")).toMatchObject({ balance: -490, limit: 10, held: 500 });
  });

  it("a customer with no credit and no price is refused with no_benefit; an unknown one with customer_not_found", async () => {
    const customer = await seller.sdk.customers.create({ email: `nothing-${randomUUID()}@example.com` });
    const res = await reserve(api, customer.id, "llm", 1);
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ error: "ReservationRefused", reason: "no_benefit" });
    const unknown = await reserve(api, randomUUID(), "llm", 1);
    expect(unknown.status).toBe(409);
    expect(unknown.body).toMatchObject({ reason: "customer_not_found" });
  });

  it("a meter that takes the max, or whose filter only `like` clauses describe, is refused at reserve time (422)", async () => {
    const { customerId } = await subscriber(api, credited);
    const max = await call(api, "POST", "/v1/meters/", {
      name: "peak",
      filter: { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: "peak" }] },
      aggregation: { func: "max", property: "tokens" },
    });
    expect(max.status).toBe(201);
    const like = await call(api, "POST", "/v1/meters/", {
      name: "fuzzy",
      filter: { conjunction: "and", clauses: [{ property: "name", operator: "like", value: "fuzz" }] },
      aggregation: { func: "sum", property: "tokens" },
    });
    expect(like.status).toBe(201);
    for (const feature of ["peak", "fuzzy"]) {
      const res = await reserve(api, customerId, feature, 1);
      expect(res.status).toBe(422);
      expect(JSON.stringify(res.body)).toContain("feature");
    }
    // a feature that is no meter at all
    expect((await reserve(api, customerId, "no-such-meter", 1)).status).toBe(422);
  });
});

describe("settling", () => {
  it("a commit of fewer units records one event for them and releases the rest; a retry records nothing twice", async () => {
    const { customerId } = await subscriber(api, credited);
    const r = held(await reserve(api, customerId, "llm", 40));
    const done = await commit(api, r.id, 25);
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ id: r.id, status: "committed", units: 40, used_units: 25 });
    const events = await eventsOf(api, customerId);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ name: "llm", customer_id: customerId, metadata: { tokens: 25 } });
    expect(await externalIdsOf(server.database.db, events)).toEqual([`reservation:${r.id}`]);
    // credited − used: the 15 not used are free again
    expect(await balanceOf(api, customerId, "llm")).toMatchObject({ balance: 75, held: 0 });

    const again = await commit(api, r.id, 25);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(done.body);
    expect(await eventsOf(api, customerId)).toHaveLength(1);
    expect(await balanceOf(api, customerId, "llm")).toMatchObject({ balance: 75, held: 0 });
    // a commit of other units after it is not a retry
    expect((await commit(api, r.id, 30)).status).toBe(409);
    expect((await release(api, r.id)).status).toBe(409);
  });

  it("a commit of more units than held is a 422 and leaves the hold", async () => {
    const { customerId } = await subscriber(api, credited);
    const r = held(await reserve(api, customerId, "llm", 10));
    const res = await commit(api, r.id, 11);
    expect(res.status).toBe(422);
    expect(JSON.stringify(res.body)).toContain("units");
    expect(await balanceOf(api, customerId, "llm")).toMatchObject({ balance: 90, held: 10 });
    expect(await eventsOf(api, customerId)).toHaveLength(0);
  });

  it("a release frees the units and repeats; commit or release after it is refused (409)", async () => {
    const { customerId } = await subscriber(api, credited);
    const r = held(await reserve(api, customerId, "llm", 50));
    const first = await release(api, r.id);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ status: "released", used_units: null });
    expect(await balanceOf(api, customerId, "llm")).toMatchObject({ balance: 100, held: 0 });
    const second = await release(api, r.id);
    expect(second.status).toBe(200);
    expect(second.body).toEqual(first.body);
    const late = await commit(api, r.id, 1);
    expect(late.status).toBe(409);
    expect(late.body).toMatchObject({ error: "ReservationSettled" });
    expect(await eventsOf(api, customerId)).toHaveLength(0);
  });

  it("an expired hold stops counting at its expiry and cannot be committed or released", async () => {
    const { customerId } = await subscriber(api, credited);
    const r = held(await reserve(api, customerId, "llm", 80, { expires_in: 1 }));
    const expired = await untilStatus(r.id, "expired");
    expect(expired.units).toBe(80);
    expect(await balanceOf(api, customerId, "llm")).toMatchObject({ balance: 100, held: 0 });
    const late = await commit(api, r.id, 10);
    expect(late.status).toBe(409);
    expect(late.body).toMatchObject({ error: "ReservationSettled" });
    expect(JSON.stringify(late.body)).toContain("expired");
    expect((await release(api, r.id)).status).toBe(409);
    expect(await eventsOf(api, customerId)).toHaveLength(0);
    // the schedule marks it expired in the table too (it had stopped counting already)
    expect(await expireReservations({ db: server.database.db })).toBeGreaterThanOrEqual(1);
    const [row] = await server.database.db.select().from(entitlementReservation).where(eq(entitlementReservation.id, r.id));
    expect(row?.status).toBe("expired");
    // the units it held may be held again
    expect((await reserve(api, customerId, "llm", 100)).status).toBe(201);
  });

  it("a counting meter's commit records one event per unit used", async () => {
    const { customerId } = await subscriber(api, countedPlan);
    const r = held(await reserve(api, customerId, "call", 5));
    const done = await commit(api, r.id, 3);
    expect(done.body).toMatchObject({ status: "committed", used_units: 3 });
    const events = await eventsOf(api, customerId);
    expect(await externalIdsOf(server.database.db, events)).toEqual([1, 2, 3].map((n) => `reservation:${r.id}:${n}`));
    expect(events.every((e) => e.name === "call")).toBe(true);
    expect((await commit(api, r.id, 3)).status).toBe(200);
    expect(await eventsOf(api, customerId)).toHaveLength(3);
    expect(await balanceOf(api, customerId, "call")).toMatchObject({ balance: 7, held: 0 });
    // whole units only
    const half = await reserve(api, customerId, "call", 1.5);
    expect(half.status).toBe(422);
  });
});

describe("the caller", () => {
  it("another organization's reservation is not found (404), to read or to settle", async () => {
    const { customerId } = await subscriber(api, credited);
    const r = held(await reserve(api, customerId, "llm", 5));
    const stranger = { url: server.url, token: other.token };
    expect((await call(stranger, "GET", `/v1/reservations/${r.id}`)).status).toBe(404);
    expect((await commit(stranger, r.id, 5)).status).toBe(404);
    expect((await release(stranger, r.id)).status).toBe(404);
    expect((await call(api, "GET", `/v1/reservations/${r.id}`)).body).toMatchObject({ status: "held" });
    // and its customer is not known there
    expect((await reserve(stranger, customerId, "llm", 1)).status).toBe(422);
  });

  it("events:write implies entitlements:write; entitlements:write alone works; a products key is refused (403)", async () => {
    const { customerId } = await subscriber(api, credited);
    const events = await seller.createKey({ events: ["write"] });
    const viaEvents = await reserve(api, customerId, "llm", 1, {}, events);
    expect(viaEvents.status).toBe(201);
    expect((await commit(api, held(viaEvents).id, 1, events)).status).toBe(200);
    const narrow = await seller.createKey({ entitlements: ["write"] });
    const viaNarrow = await reserve(api, customerId, "llm", 1, {}, narrow);
    expect(viaNarrow.status).toBe(201);
    expect((await call(api, "GET", `/v1/reservations/${held(viaNarrow).id}`, undefined, narrow)).status).toBe(200);
    expect((await release(api, held(viaNarrow).id, narrow)).status).toBe(200);
    const products = await seller.createKey({ products: ["read", "write"] });
    expect((await reserve(api, customerId, "llm", 1, {}, products)).status).toBe(403);
    expect((await call(api, "GET", `/v1/reservations/${held(viaNarrow).id}`, undefined, products)).status).toBe(403);
    expect((await commit(api, held(viaNarrow).id, 1, products)).status).toBe(403);
  });

  it("an Idempotency-Key replays the same reservation and holds once", async () => {
    const { customerId } = await subscriber(api, credited);
    const key = randomUUID();
    const body = { customer_id: customerId, feature: "llm", units: 30 };
    const first = await send(server.url, "POST", "/v1/reservations/", { token: seller.token, key, body });
    expect(first.status).toBe(201);
    const again = await send(server.url, "POST", "/v1/reservations/", { token: seller.token, key, body });
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body).toEqual(first.body);
    expect(await balanceOf(api, customerId, "llm")).toMatchObject({ balance: 70, held: 30 });
    // the same key with other units is not a retry
    const other = await send(server.url, "POST", "/v1/reservations/", { token: seller.token, key, body: { ...body, units: 31 } });
    expect(other.status).toBe(422);
    expect(await balanceOf(api, customerId, "llm")).toMatchObject({ balance: 70, held: 30 });
  });

  it("units, expires_in and the customer are checked (422)", async () => {
    const { customerId } = await subscriber(api, credited);
    for (const extra of [{ units: 0 }, { units: -1 }, { expires_in: 0 }, { expires_in: 86_401 }, { expires_in: 1.5 }]) {
      const res = await call(api, "POST", "/v1/reservations/", { customer_id: customerId, feature: "llm", units: 1, ...extra });
      expect(res.status, JSON.stringify(extra)).toBe(422);
    }
    expect((await call(api, "POST", "/v1/reservations/", { feature: "llm", units: 1 })).status).toBe(422);
    const r = held(await reserve(api, customerId, "llm", 5));
    expect((await commit(api, r.id, -1)).status).toBe(422);
    expect((await call(api, "GET", `/v1/reservations/${randomUUID()}`)).status).toBe(404);
    expect((await call(api, "GET", "/v1/reservations/not-a-uuid")).status).toBe(422);
  });
});
