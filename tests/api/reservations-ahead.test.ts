// A commit sent ahead (the whole commit in one round trip, when this process took the hold: commit-ahead.ts) writes
// only when what it was built from is still so under the commit's locks: a meter whose definition changed between
// the hold and its commit gets the event the meter counts now, and a hold another process settled meanwhile is not
// committed again. Either way the commit answers as the usual way answers.
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { entitlementReservation } from "../../server/db/schema/index.js";
import { createSeller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { balanceOf, call, commit, eventsOf, plan, reserve, subscriber, sumMeter, type Api, type ReservationBody } from "./reservations-fixtures.js";

let server: TestServer;
let api: Api;

beforeAll(async () => {
  server = await startServer();
  const seller = await createSeller(server, "ahead");
  api = { url: server.url, token: seller.token };
}, 300_000);

afterAll(async () => {
  await server?.close();
});

const held = (res: { status: number; body: Record<string, unknown> }) => {
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as unknown as ReservationBody;
};

/** A subscriber with 100 units of a new meter summing `tokens` of `<name>` events, after one commit of 5 of them. */
async function committedOnce(name: string): Promise<{ meterId: string; customerId: string }> {
  const meterId = await sumMeter(api, name);
  const { customerId } = await subscriber(api, await plan(api, name, meterId, { credits: 100, overage: null }));
  // a first commit: from here on this process knows the organization's clock and kept meters
  expect((await commit(api, held(await reserve(api, customerId, meterId, 5)).id, 5)).status).toBe(200);
  return { meterId, customerId };
}

it("a meter changed between the hold and its commit: the commit records the event the meter counts now", async () => {
  const { meterId, customerId } = await committedOnce("ahead");
  const r = held(await reserve(api, customerId, meterId, 10));
  const filter = { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: "ahead-v2" }] };
  const patched = await call(api, "PATCH", `/v1/meters/${meterId}`, { filter, aggregation: { func: "sum", property: "tokens" } });
  expect(patched.status, JSON.stringify(patched.body)).toBe(200);

  const done = await commit(api, r.id, 7);
  expect(done.status, JSON.stringify(done.body)).toBe(200);
  expect(done.body).toMatchObject({ id: r.id, status: "committed", units: 10, used_units: 7 });
  const events = await eventsOf(api, customerId);
  expect(events.map((e) => [e.name, e.metadata.tokens]).sort()).toEqual([
    ["ahead", 5],
    ["ahead-v2", 7],
  ]);
  // the meter counts the new name's events only: 100 − 7
  expect(await balanceOf(api, customerId, meterId)).toMatchObject({ balance: 93, held: 0 });
});

it("a hold another process settled before its commit: 409, nothing recorded", async () => {
  const { meterId, customerId } = await committedOnce("settled-elsewhere");
  const r = held(await reserve(api, customerId, meterId, 10));
  // released behind this process's back (another process, or the schedule)
  await server.database.db.update(entitlementReservation).set({ status: "released", settledAt: new Date() }).where(eq(entitlementReservation.id, r.id));

  const late = await commit(api, r.id, 3);
  expect(late.status, JSON.stringify(late.body)).toBe(409);
  expect(await eventsOf(api, customerId)).toHaveLength(1);
  expect(await balanceOf(api, customerId, meterId)).toMatchObject({ balance: 95, held: 0 });
  // and a hold still open commits in one go after that
  const next = held(await reserve(api, customerId, meterId, 4));
  expect((await commit(api, next.id, 4)).body).toMatchObject({ status: "committed", used_units: 4 });
  expect(await balanceOf(api, customerId, meterId)).toMatchObject({ balance: 91, held: 0 });
});
