// Methods of @polar-sh/sdk 0.47.1 and 0.49.0 that answered 404 before issue 25 §19, each through both SDK
// versions (their zod schemas validate every answer): customerMeters.list / get (the seller's view of a
// customer's usage of a meter) and customerPortal.customerMeters.get. Another organization's rows, or another
// customer's, answer 404; bad input a 422.
import { Polar } from "@polar-sh/sdk";
import { Polar as Polar049 } from "polar-sdk-049";
import { ResourceNotFound } from "@polar-sh/sdk/models/errors/resourcenotfound.js";
import { ResourceNotFound as ResourceNotFound049 } from "polar-sdk-049/models/errors/resourcenotfound.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawRequest } from "../helpers/api.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";

let server: TestServer;
let seller: Seller;
let other: Seller;
let portal: Polar;
let portal049: Polar049;

const raw = (token: string, method: string, path: string, body?: unknown) => rawRequest(server.url, token, method, path, body);
const failure = (p: Promise<unknown>) => p.then(() => undefined).catch((e: unknown) => e);

beforeAll(async () => {
  server = await startServer();
  seller = await createSeller(server, "wire");
  other = await createSeller(server, "wire-other");
  portal = new Polar({ serverURL: server.url });
  portal049 = new Polar049({ serverURL: server.url });
}, 120_000);
afterAll(async () => server?.close());

describe("customer meters", () => {
  it("customerMeters.list / get (seller) and customerPortal.customerMeters.get (customer) through both SDKs", async () => {
    const meter = await seller.sdk.meters.create({
      name: "Renders",
      filter: { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: "render" }] },
      aggregation: { func: "count" },
    });
    const stamp = Date.now();
    const ada = await seller.sdk.customers.create({ email: `ada-${stamp}@example.com`, name: "Ada", externalId: `ada-${stamp}` });
    const bob = await seller.sdk.customers.create({ email: `bob-${stamp}@example.com`, name: "Bob" });
    const idle = await seller.sdk.customers.create({ email: `idle-${stamp}@example.com` });
    await seller.sdk.events.ingest({
      events: [
        ...Array.from({ length: 3 }, () => ({ name: "render", customerId: ada.id })),
        { name: "render", externalCustomerId: `ada-${stamp}` },
        { name: "render", customerId: bob.id },
      ],
    });

    // the seller's list: one row per customer with usage, the customer and the meter embedded
    const all = (await seller.sdk.customerMeters.list({ meterId: meter.id, sorting: ["-consumed_units"] })).result;
    expect(all.pagination.totalCount).toBe(2);
    expect(all.items.map((m) => [m.customerId, m.consumedUnits, m.creditedUnits, m.balance])).toEqual([
      [ada.id, 4, 0, -4],
      [bob.id, 1, 0, -1],
    ]);
    expect(all.items[0]).toMatchObject({ meterId: meter.id, customer: { id: ada.id, email: ada.email }, meter: { id: meter.id, name: "Renders" } });
    const byExternal = (await seller.sdk049.customerMeters.list({ externalCustomerId: `ada-${stamp}` })).result.items;
    expect(byExternal.map((m) => m.customerId)).toEqual([ada.id]);
    const byName = (await seller.sdk049.customerMeters.list({ meterId: meter.id, sorting: ["customer_name"], limit: 1, page: 2 })).result;
    expect(byName.items.map((m) => m.customerId)).toEqual([bob.id]);
    expect(byName.pagination).toEqual({ totalCount: 2, maxPage: 2 });
    expect((await seller.sdk.customerMeters.list({ customerId: idle.id })).result.items).toEqual([]);

    // get by the id the list (and the customer state) gives
    const adaMeter = all.items[0]!;
    const state = await seller.sdk.customers.getState({ id: ada.id });
    expect(state.activeMeters.map((m) => m.id)).toContain(adaMeter.id);
    expect(await seller.sdk.customerMeters.get({ id: adaMeter.id })).toMatchObject({ id: adaMeter.id, customerId: ada.id, consumedUnits: 4 });
    expect(await seller.sdk049.customerMeters.get({ id: adaMeter.id })).toMatchObject({ id: adaMeter.id, meter: { name: "Renders" } });

    // another organization: its list is empty for these customers, its get a 404
    expect((await other.sdk.customerMeters.list({ customerId: ada.id })).result.items).toEqual([]);
    expect(await failure(other.sdk.customerMeters.get({ id: adaMeter.id }))).toBeInstanceOf(ResourceNotFound);
    expect(await failure(other.sdk049.customerMeters.get({ id: adaMeter.id }))).toBeInstanceOf(ResourceNotFound049);
    expect((await raw(seller.token, "GET", "/v1/customer-meters/00000000-0000-4000-8000-000000000000")).status).toBe(404);
    expect((await raw(seller.token, "GET", "/v1/customer-meters/nope")).status).toBe(422);
    expect((await raw(seller.token, "GET", "/v1/customer-meters/?customer_id=nope")).status).toBe(422);
    expect((await raw(seller.token, "GET", "/v1/customer-meters/?sorting=shoe_size")).status).toBe(422);

    // the portal: the customer's own meter by id; another customer's is a 404
    const adaSession = (await seller.sdk.customerSessions.create({ customerId: ada.id })).token;
    const bobSession = (await seller.sdk.customerSessions.create({ customerId: bob.id })).token;
    const mine = await portal.customerPortal.customerMeters.get({ customerSession: adaSession }, { id: adaMeter.id });
    expect(mine).toMatchObject({ id: adaMeter.id, customerId: ada.id, consumedUnits: 4, meter: { id: meter.id, name: "Renders" } });
    const mine049 = await portal049.customerPortal.customerMeters.get({ customerSession: adaSession }, { id: adaMeter.id });
    expect(mine049.balance).toBe(-4);
    expect(await failure(portal.customerPortal.customerMeters.get({ customerSession: bobSession }, { id: adaMeter.id }))).toBeInstanceOf(ResourceNotFound);
    expect(await failure(portal049.customerPortal.customerMeters.get({ customerSession: bobSession }, { id: adaMeter.id }))).toBeInstanceOf(
      ResourceNotFound049,
    );
    expect((await raw(adaSession, "GET", "/v1/customer-portal/meters/nope")).status).toBe(422);
    expect((await raw("nope", "GET", `/v1/customer-portal/meters/${adaMeter.id}`)).status).toBe(401);
  });
});
