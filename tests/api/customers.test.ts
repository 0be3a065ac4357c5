// /v1/customers through @polar-sh/sdk 0.47.1 (and 0.49.0): create, list, get, update, delete and state, by id
// and by external id; addresses, tax ids, uniqueness, soft deletion, validation, scopes and tenancy.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Polar } from "@polar-sh/sdk";
import { eq } from "drizzle-orm";
import { benefit, benefitGrant, customer as customerTable } from "../../server/db/schema/index.js";
import { COUNTRY_CODES } from "../../shared/countries.js";
import { TAX_ID_FORMATS } from "../../shared/tax-ids.js";
import { sdk049For, type Seller, startWithSellers } from "../helpers/seller.js";
import { rawOn } from "../helpers/api.js";
import type { TestServer } from "../helpers/server.js";

let server: TestServer;
let seller: Seller;
let other: Seller;
let key: string;
let sdk: Polar;

beforeAll(async () => {
  ({ server, seller, other, key, sdk } = await startWithSellers("customers"));
});
afterAll(async () => server?.close());

const raw = rawOn(() => server);

const unique = (p: string) => `${p}-${Math.random().toString(36).slice(2, 10)}`;
const email = (p: string) => `${unique(p)}@example.com`;

describe("/v1/customers CRUD", () => {
  it("creates with address, tax id and metadata, then gets it by id and external id", async () => {
    const externalId = unique("ext");
    const created = await sdk.customers.create({
      email: "Ada.Lovelace+Billing@Example.COM",
      name: "Ada Lovelace",
      externalId,
      billingAddress: { line1: "1 Main St", city: "Springfield", state: "IL", postalCode: "62701", country: "US" },
      taxId: "12-3456789",
      locale: "en",
      metadata: { plan: "pro", seats: 3, vip: true },
    });
    expect(created).toMatchObject({
      email: "ada.lovelace+billing@example.com",
      emailVerified: false,
      type: "individual",
      name: "Ada Lovelace",
      externalId,
      billingAddress: { line1: "1 Main St", line2: null, city: "Springfield", state: "IL", postalCode: "62701", country: "US" },
      taxId: ["123456789", "us_ein"],
      locale: "en",
      metadata: { plan: "pro", seats: 3, vip: true },
      organizationId: seller.organizationId,
      deletedAt: null,
      modifiedAt: null,
    });
    expect(created.avatarUrl).toMatch(/^https:\/\/www\.gravatar\.com\/avatar\/[0-9a-f]{64}\?d=404$/);
    expect((await sdk.customers.get({ id: created.id })).email).toBe(created.email);
    expect((await sdk.customers.getExternal({ externalId })).id).toBe(created.id);

    const minimal = await seller.sdk.customers.create({ email: email("minimal") });
    expect(minimal).toMatchObject({ name: null, billingAddress: null, taxId: null, metadata: {} });
    expect(minimal.externalId ?? null).toBeNull();
  });

  it("updates by id and by external id", async () => {
    const externalId = unique("ext");
    const c = await sdk.customers.create({ email: email("upd"), externalId });
    const updated = await sdk.customers.update({
      id: c.id,
      customerUpdate: {
        name: "New Name",
        email: "NEW-" + c.email,
        billingAddress: { country: "DE", city: "Berlin" },
        taxId: "DE 123 456 789",
        metadata: { tier: "gold" },
      },
    });
    expect(updated).toMatchObject({
      name: "New Name",
      email: `new-${c.email}`,
      emailVerified: false,
      billingAddress: { country: "DE", city: "Berlin" },
      taxId: ["DE123456789", "eu_vat"],
      metadata: { tier: "gold" },
    });
    expect(updated.modifiedAt).toBeInstanceOf(Date);

    const byExternal = await sdk.customers.updateExternal({
      externalId,
      customerUpdateExternalID: { name: "Via External", locale: "de" },
    });
    expect(byExternal).toMatchObject({ id: c.id, name: "Via External", locale: "de", taxId: ["DE123456789", "eu_vat"] });

    // an external id may be set once, never changed
    const late = await sdk.customers.create({ email: email("late") });
    const lateExt = unique("late");
    expect((await sdk.customers.update({ id: late.id, customerUpdate: { externalId: lateExt } })).externalId).toBe(lateExt);
    const change = await raw(key, "PATCH", `/v1/customers/${late.id}`, { external_id: unique("again") });
    expect(change.status).toBe(422);
    expect(change.body.detail).toEqual([expect.objectContaining({ loc: ["body", "external_id"], msg: "Customer external ID cannot be updated." })]);
    // a billing address, once set, cannot be removed
    const reset = await raw(key, "PATCH", `/v1/customers/${c.id}`, { billing_address: null });
    expect(reset.status).toBe(422);
    expect((await sdk.customers.get({ id: c.id })).billingAddress?.country).toBe("DE");
    // the stored tax id is checked again against a new billing country
    const moved = await raw(key, "PATCH", `/v1/customers/${c.id}`, { billing_address: { country: "US" } });
    expect(moved.status).toBe(422);
    expect(moved.body.detail).toEqual([expect.objectContaining({ loc: ["body", "tax_id"], msg: "Invalid tax ID." })]);
    const cleared = await sdk.customers.update({ id: c.id, customerUpdate: { taxId: null } });
    expect(cleared.taxId).toBeNull();
  });

  it("soft-deletes (optionally anonymizing) by id and by external id", async () => {
    const address = email("del");
    const c = await sdk.customers.create({ email: address, name: "Del Eted", billingAddress: { country: "FR" } });
    await sdk.customers.delete({ id: c.id });
    const gone = await raw(key, "GET", `/v1/customers/${c.id}`);
    expect(gone.status).toBe(404);
    expect(gone.body.error).toBe("ResourceNotFound");
    expect((await raw(key, "DELETE", `/v1/customers/${c.id}`)).status).toBe(404);
    const [row] = await server.database.db.select().from(customerTable).where(eq(customerTable.id, c.id));
    expect(row?.deletedAt).toBeInstanceOf(Date);
    expect(row?.email).toBe(address);
    // the email is free again
    const again = await sdk.customers.create({ email: address });
    expect(again.id).not.toBe(c.id);

    const ext = unique("ext");
    const d = await sdk.customers.create({ email: email("anon"), name: "Private Person", externalId: ext, billingAddress: { country: "GB" } });
    await sdk.customers.deleteExternal({ externalId: ext, anonymize: true });
    expect((await raw(key, "GET", `/v1/customers/external/${ext}`)).status).toBe(404);
    const [anon] = await server.database.db.select().from(customerTable).where(eq(customerTable.id, d.id));
    expect(anon?.email).toMatch(/^[0-9a-f]{32}@anonymized\.invalid$/);
    expect(anon?.name).not.toBe("Private Person");
    expect(anon?.billingAddress).toBeNull();
    expect(anon?.externalId).toBe(ext);
    expect(anon?.metadata.__anonymized_at).toEqual(expect.any(String));
    const badFlag = await raw(key, "DELETE", `/v1/customers/${again.id}?anonymize=sure`);
    expect(badFlag.status).toBe(422);
    expect((await sdk.customers.get({ id: again.id })).deletedAt).toBeNull();
  });

  it("lists with email, query, metadata, sorting and pagination", async () => {
    const tag = unique("list");
    const made = [];
    for (const [n, name] of ["Charlie", "alice", "Bob"].entries()) {
      made.push(await sdk.customers.create({ email: `${tag}-${n}@example.com`, name, metadata: { tag } }));
    }
    const byName = await sdk.customers.list({ metadata: { tag }, sorting: ["name"] });
    expect(byName.result.items.map((c) => c.name)).toEqual(["Bob", "Charlie", "alice"]);
    const newest = await sdk.customers.list({ metadata: { tag } });
    expect(newest.result.items.map((c) => c.name)).toEqual(["Bob", "alice", "Charlie"]);
    const byEmail = await sdk.customers.list({ email: `${tag.toUpperCase()}-1@EXAMPLE.COM` });
    expect(byEmail.result.items.map((c) => c.id)).toEqual([made[1]?.id]);
    const q = await sdk.customers.list({ query: `${tag}-2` });
    expect(q.result.items.map((c) => c.name)).toEqual(["Bob"]);
    const paged = await sdk.customers.list({ metadata: { tag }, sorting: ["email"], limit: 2, page: 2 });
    expect(paged.result.items.map((c) => c.name)).toEqual(["Bob"]);
    expect(paged.result.pagination).toEqual({ totalCount: 3, maxPage: 2 });
    const mine = await sdk.customers.list({ organizationId: [seller.organizationId], metadata: { tag } });
    expect(mine.result.pagination.totalCount).toBe(3);
  });

  it("works through 0.49.0 (create, get, list, state)", async () => {
    const sdk049 = sdk049For(server, key);
    const c = await sdk049.customers.create({ email: email("v049"), name: "New SDK", billingAddress: { country: "NL" } });
    expect(c).toMatchObject({ name: "New SDK", billingName: null, type: "individual" });
    expect((await sdk049.customers.get({ id: c.id })).id).toBe(c.id);
    const list = await sdk049.customers.list({ email: c.email ?? "" });
    expect(list.result.items.map((x) => x.id)).toEqual([c.id]);
    const state = await sdk049.customers.getState({ id: c.id });
    expect(state).toMatchObject({ id: c.id, activeSubscriptions: [], grantedBenefits: [], activeMeters: [] });
  });
});

describe("/v1/customers state", () => {
  it("reports usage per meter from events and credits from meter_credit grants", async () => {
    const ext = unique("ext");
    const c = await sdk.customers.create({ email: email("state"), externalId: ext });
    const empty = await sdk.customers.getState({ id: c.id });
    expect(empty).toMatchObject({ id: c.id, activeSubscriptions: [], grantedBenefits: [], activeMeters: [] });

    const name = unique("state_call").replace(/-/g, "_");
    const meter = await sdk.meters.create({
      name: "state meter",
      filter: { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: name }] },
      aggregation: { func: "sum", property: "units" },
    });
    const idle = await sdk.meters.create({
      name: "idle meter",
      filter: { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: "never" }] },
      aggregation: { func: "count" },
    });
    await sdk.events.ingest({
      events: [
        { name, customerId: c.id, metadata: { units: 5 } },
        { name, externalCustomerId: ext, metadata: { units: 7 } },
        { name, externalCustomerId: "someone-else", metadata: { units: 100 } },
      ],
    });
    // a meter_credit grant as the grant engine will write it
    const [credit] = await server.database.db
      .insert(benefit)
      .values({
        organizationId: seller.organizationId,
        type: "meter_credit",
        description: "100 units",
        properties: { units: 100, rollover: false, meter_id: meter.id },
      })
      .returning();
    await server.database.db.insert(benefitGrant).values({
      organizationId: seller.organizationId,
      benefitId: credit?.id ?? "",
      customerId: c.id,
      grantedAt: new Date(),
      properties: { last_credited_meter_id: meter.id, last_credited_units: 100, last_credited_at: new Date().toISOString() },
    });

    const state = await sdk.customers.getState({ id: c.id });
    expect(state.activeMeters).toEqual([
      expect.objectContaining({ meterId: meter.id, consumedUnits: 12, creditedUnits: 100, balance: 88 }),
    ]);
    expect(state.activeMeters.map((m) => m.meterId)).not.toContain(idle.id);
    expect(state.grantedBenefits).toEqual([expect.objectContaining({ benefitId: credit?.id, benefitType: "meter_credit" })]);
    const byExternal = await sdk.customers.getStateExternal({ externalId: ext });
    expect(byExternal.activeMeters).toEqual(state.activeMeters);
  });
});

describe("/v1/customers validation", () => {
  it("keeps the country and tax id lists of the spec", () => {
    expect(TAX_ID_FORMATS).toHaveLength(74);
    expect(COUNTRY_CODES[0]).toBe("AD");
    expect(COUNTRY_CODES.at(-1)).toBe("ZW");
  });

  it("matches tax ids to the formats of the billing country", async () => {
    const cases: Array<[string, string, [string, string] | null]> = [
      ["GB", "GB 123 4567 89", ["GB123456789", "gb_vat"]],
      ["GB", "GB123456789012", ["GB123456789012", "gb_vat"]],
      ["GB", "GB12345", null],
      ["FR", "FR61954506077", ["FR61954506077", "eu_vat"]],
      ["FR", "F1", null],
      ["US", "123456789", ["123456789", "us_ein"]],
      ["US", "12-34567", null],
      ["CA", "123456789RT0001", ["123456789RT0001", "ca_gst_hst"]],
      ["AU", "12345678912", ["12345678912", "au_abn"]],
      ["IN", "12ABCDE3456F1Z5", ["12ABCDE3456F1Z5", "in_gst"]],
      ["NO", "123456789MVA", ["123456789MVA", "no_vat"]],
      ["CH", "CHE-123.456.789 MWST", ["CHE123456789MWST", "ch_vat"]],
      ["AQ", "123", null],
    ];
    for (const [country, taxId, expected] of cases) {
      const res = await raw(key, "POST", "/v1/customers/", {
        email: email("tax"),
        billing_address: { country },
        tax_id: taxId,
      });
      if (expected) {
        expect(res.status, `${country} ${taxId}`).toBe(201);
        expect(res.body.tax_id, `${country} ${taxId}`).toEqual(expected);
      } else {
        expect(res.status, `${country} ${taxId}`).toBe(422);
        expect(res.body.detail).toEqual([{ loc: ["body", "tax_id"], msg: "Invalid tax ID.", type: "invalid", input: taxId, code: "tax_id_invalid" }]);
      }
    }
  });

  it("refuses invalid bodies and duplicates with 422, changing nothing", async () => {
    const ext = unique("ext");
    const taken = await sdk.customers.create({ email: email("taken"), externalId: ext });
    const before = (await sdk.customers.list({ limit: 1 })).result.pagination.totalCount;
    const bad: Array<[string, unknown, unknown[], string?]> = [
      ["missing email", { name: "x" }, ["body", "email"]],
      ["bad email", { email: "not-an-email" }, ["body", "email"]],
      ["email type", { email: 42 }, ["body", "email"]],
      ["duplicate email", { email: (taken.email ?? "").toUpperCase() }, ["body", "email"], "A customer with this email address already exists."],
      ["duplicate external id", { email: email("dup"), external_id: ext }, ["body", "external_id"], "A customer with this external ID already exists."],
      ["owner of an individual", { email: email("team"), owner: { email: email("owner") } }, ["body", "owner"]],
      ["team without email nor owner", { type: "team", name: "Team" }, ["body", "email"]],
      ["unknown type", { email: email("t"), type: "robot" }, ["body", "type"]],
      ["bad country", { email: email("c"), billing_address: { country: "XX" } }, ["body", "billing_address", "country"]],
      ["sanctioned country", { email: email("c"), billing_address: { country: "KP" } }, ["body", "billing_address", "country"]],
      ["lower-case country", { email: email("c"), billing_address: { country: "us" } }, ["body", "billing_address", "country"]],
      ["no country", { email: email("c"), billing_address: { city: "Paris" } }, ["body", "billing_address", "country"]],
      ["tax id without address", { email: email("c"), tax_id: "123456789" }, ["body", "billing_address"], "Country is required to validate tax ID."],
      ["metadata nested", { email: email("m"), metadata: { a: [1] } }, ["body", "metadata", "a"]],
      ["metadata too long", { email: email("m"), metadata: { a: "x".repeat(501) } }, ["body", "metadata", "a"]],
      ["bad organization", { email: email("o"), organization_id: "nope" }, ["body", "organization_id"]],
    ];
    for (const [label, body, loc, msg] of bad) {
      const res = await raw(key, "POST", "/v1/customers/", body);
      expect(res.status, label).toBe(422);
      const detail = res.body.detail as Array<{ loc: unknown[]; msg: string }>;
      expect(detail.map((d) => d.loc), label).toContainEqual(loc);
      if (msg) expect(detail.map((d) => d.msg), label).toContain(msg);
    }
    expect((await sdk.customers.list({ limit: 1 })).result.pagination.totalCount).toBe(before);

    const other1 = await sdk.customers.create({ email: email("o1") });
    const dupUpdate = await raw(key, "PATCH", `/v1/customers/${other1.id}`, { email: taken.email });
    expect(dupUpdate.status).toBe(422);
    const badUpdate = await raw(key, "PATCH", `/v1/customers/${other1.id}`, { name: 5 });
    expect(badUpdate.status).toBe(422);
    const dupExt = await raw(key, "PATCH", `/v1/customers/${other1.id}`, { external_id: ext });
    expect(dupExt.status).toBe(422);
    expect(await sdk.customers.get({ id: other1.id })).toMatchObject({ email: other1.email, name: null });
    expect((await sdk.customers.get({ id: other1.id })).externalId ?? null).toBeNull();

    // racing creates of one email: exactly one wins, the others get the same 422 as a sequential duplicate
    const racing = email("race");
    const results = await Promise.all(Array.from({ length: 6 }, () => raw(key, "POST", "/v1/customers/", { email: racing })));
    expect(results.map((r) => r.status).sort()).toEqual([201, 422, 422, 422, 422, 422]);

    for (const query of ["limit=101", "sorting=age", "organization_id=nope", "page=x"]) {
      expect((await raw(key, "GET", `/v1/customers/?${query}`)).status, query).toBe(422);
    }
    expect((await raw(key, "GET", "/v1/customers/not-a-uuid")).status).toBe(422);
    // Fastify refuses path parameters over 100 characters before routing
    expect((await raw(key, "GET", `/v1/customers/external/${"x".repeat(300)}`)).status).toBe(414);
    expect((await raw(key, "GET", "/v1/customers/external/a%00b")).status).toBe(422);
    expect((await raw(key, "GET", "/v1/customers/00000000-0000-4000-8000-000000000000/state")).status).toBe(404);
  });
});

describe("/v1/customers scopes and tenancy", () => {
  it("needs customers:read / customers:write", async () => {
    const readOnly = await seller.createKey({ customers: ["read"] });
    const c = await sdk.customers.create({ email: email("scope") });
    expect((await raw(readOnly, "GET", `/v1/customers/${c.id}`)).status).toBe(200);
    expect((await raw(readOnly, "GET", `/v1/customers/${c.id}/state`)).status).toBe(200);
    for (const [method, path, body] of [
      ["POST", "/v1/customers/", { email: email("x") }],
      ["PATCH", `/v1/customers/${c.id}`, { name: "x" }],
      ["DELETE", `/v1/customers/${c.id}`, undefined],
    ] as const) {
      const res = await raw(readOnly, method, path, body);
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.body.error).toBe("NotPermitted");
    }
    const none = await seller.createKey({ events: ["read"] });
    expect((await raw(none, "GET", "/v1/customers/")).status).toBe(403);
  });

  it("never shows or changes another organization's customers", async () => {
    const ext = unique("shared-ext");
    const mine = await sdk.customers.create({ email: email("tenant"), externalId: ext });
    const otherKey = await other.createKey();
    for (const [method, path, body] of [
      ["GET", `/v1/customers/${mine.id}`, undefined],
      ["PATCH", `/v1/customers/${mine.id}`, { name: "stolen" }],
      ["DELETE", `/v1/customers/${mine.id}`, undefined],
      ["GET", `/v1/customers/${mine.id}/state`, undefined],
      ["GET", `/v1/customers/external/${ext}`, undefined],
      ["PATCH", `/v1/customers/external/${ext}`, { name: "stolen" }],
      ["DELETE", `/v1/customers/external/${ext}`, undefined],
      ["GET", `/v1/customers/external/${ext}/state`, undefined],
    ] as const) {
      const res = await raw(otherKey, method, path, body);
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body.error).toBe("ResourceNotFound");
    }
    const list = await raw(otherKey, "GET", `/v1/customers/?email=${encodeURIComponent(mine.email ?? "")}`);
    expect(list.body.items).toEqual([]);
    // the same email and external id may exist in another organization
    const theirs = await raw(otherKey, "POST", "/v1/customers/", { email: mine.email, external_id: ext });
    expect(theirs.status).toBe(201);
    expect(await sdk.customers.get({ id: mine.id })).toMatchObject({ name: null, deletedAt: null });
  });
});
