// /v1/benefit-grants through @polar-sh/sdk 0.47.1 (rows inserted as the grant engine will), and the benefits
// service functions other domains call.
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { benefitGrant, customer, product, productBenefit } from "../../server/db/schema/index.js";
import { benefitIdsExist, listGrantedBenefitsForCustomer, loadBenefitsForProducts } from "../../server/billing/benefits/service.js";
import { toBenefitPublicWire } from "../../server/billing/benefits/wire.js";
import { benefitFixture, custom } from "./benefits-fixtures.js";

const fx = benefitFixture();

async function insertCustomer(organizationId: string, email: string, externalId?: string): Promise<string> {
  const [row] = await fx.db()
    .insert(customer)
    .values({ organizationId, email, name: "Ada", externalId: externalId ?? null })
    .returning();
  return row!.id;
}

describe("grants", () => {
  let perk: string;
  let keys: string;
  let ada: string;
  let bob: string;
  let grantIds: Record<string, string>;

  beforeAll(async () => {
    const s = fx.seller.sdk;
    perk = (await s.benefits.create(custom("Granted perk", { metadata: { level: 1 } }))).id;
    keys = (await s.benefits.create({ type: "license_keys", description: "Granted keys", properties: { prefix: "K" } })).id;
    ada = await insertCustomer(fx.seller.organizationId, "ada@example.com", "ext-ada");
    bob = await insertCustomer(fx.seller.organizationId, "bob@example.com");
    const t = (m: number) => new Date(Date.UTC(2025, 0, 1, 0, m));
    const rows = await fx.db()
      .insert(benefitGrant)
      .values([
        { organizationId: fx.seller.organizationId, benefitId: perk, customerId: ada, grantedAt: t(1), createdAt: t(1) },
        {
          organizationId: fx.seller.organizationId,
          benefitId: keys,
          customerId: ada,
          grantedAt: t(2),
          createdAt: t(2),
          orderId: "11111111-1111-4111-8111-111111111111",
          properties: { license_key_id: "22222222-2222-4222-8222-222222222222", display_key: "K-****-1234" },
        },
        {
          organizationId: fx.seller.organizationId,
          benefitId: perk,
          customerId: bob,
          revokedAt: t(4),
          createdAt: t(3),
          subscriptionId: "33333333-3333-4333-8333-333333333333",
        },
        {
          organizationId: fx.seller.organizationId,
          benefitId: keys,
          customerId: bob,
          createdAt: t(5),
          error: { message: "Could not create the key", type: "BenefitActionRequiredError", timestamp: t(5).toISOString() },
        },
      ])
      .returning();
    grantIds = { adaPerk: rows[0]!.id, adaKeys: rows[1]!.id, bobPerk: rows[2]!.id, bobKeys: rows[3]!.id };
  });

  it("lists grants with customer and benefit embedded, in the BenefitGrant shape", async () => {
    const page = await fx.seller.sdk.benefitGrants.list({});
    expect(page.result.pagination).toEqual({ totalCount: 4, maxPage: 1 });
    expect(page.result.items.map((g) => g.id)).toEqual([grantIds.bobKeys, grantIds.bobPerk, grantIds.adaKeys, grantIds.adaPerk]);
    const adaKeys = page.result.items.find((g) => g.id === grantIds.adaKeys)!;
    expect(adaKeys).toMatchObject({
      isGranted: true,
      isRevoked: false,
      customerId: ada,
      benefitId: keys,
      orderId: "11111111-1111-4111-8111-111111111111",
      subscriptionId: null,
      customer: { id: ada, email: "ada@example.com", externalId: "ext-ada", type: "individual" },
      benefit: { id: keys, type: "license_keys", properties: { prefix: "K", expires: null, activations: null, limitUsage: null } },
      properties: { licenseKeyId: "22222222-2222-4222-8222-222222222222", displayKey: "K-****-1234" },
    });
    expect(adaKeys.grantedAt).toEqual(new Date(Date.UTC(2025, 0, 1, 0, 2)));
    const bobPerk = page.result.items.find((g) => g.id === grantIds.bobPerk)!;
    expect(bobPerk).toMatchObject({ isGranted: false, isRevoked: true, grantedAt: null, properties: {} });
    expect(bobPerk.revokedAt).toEqual(new Date(Date.UTC(2025, 0, 1, 0, 4)));
    const bobKeys = page.result.items.find((g) => g.id === grantIds.bobKeys)!;
    expect(bobKeys.error).toEqual({ message: "Could not create the key", type: "BenefitActionRequiredError", timestamp: "2025-01-01T00:05:00.000Z" });
    expect(bobKeys.isGranted).toBe(false);

    const rawPage = await fx.raw(fx.seller.token, "GET", "/v1/benefit-grants/?limit=1");
    const item = (rawPage.body.items as Array<Record<string, unknown>>)[0]!;
    for (const key of ["modified_at", "subscription_id", "order_id", "granted_at", "revoked_at", "error"]) expect(item).toHaveProperty(key);
  });

  it("filters grants by is_granted, customer, external customer, benefit; sorts and paginates", async () => {
    const list = async (q: Parameters<typeof fx.seller.sdk.benefitGrants.list>[0]) =>
      (await fx.seller.sdk.benefitGrants.list(q)).result.items.map((g) => g.id);
    expect(await list({ isGranted: true })).toEqual([grantIds.adaKeys, grantIds.adaPerk]);
    expect(await list({ isGranted: false })).toEqual([grantIds.bobKeys, grantIds.bobPerk]);
    expect(await list({ customerId: bob })).toEqual([grantIds.bobKeys, grantIds.bobPerk]);
    expect(await list({ customerId: [ada, bob], isGranted: true })).toEqual([grantIds.adaKeys, grantIds.adaPerk]);
    expect(await list({ externalCustomerId: "ext-ada" })).toEqual([grantIds.adaKeys, grantIds.adaPerk]);
    // never-granted rows sort last (their order among themselves is by id)
    const byGranted = await list({ sorting: ["granted_at"] });
    expect(byGranted.slice(0, 2)).toEqual([grantIds.adaPerk, grantIds.adaKeys]);
    expect(byGranted.slice(2).sort()).toEqual([grantIds.bobPerk, grantIds.bobKeys].sort());
    expect((await list({ sorting: ["-revoked_at"] }))[0]).toBe(grantIds.bobPerk);
    expect(await list({ organizationId: fx.seller.organizationId, limit: 2, page: 2 })).toEqual([grantIds.adaKeys, grantIds.adaPerk]);
    const byBenefit = await fx.raw(fx.seller.token, "GET", `/v1/benefit-grants/?benefit_id=${perk}`);
    expect((byBenefit.body.items as Array<{ id: string }>).map((g) => g.id)).toEqual([grantIds.bobPerk, grantIds.adaPerk]);
  });

  it("lists the grants of one benefit (benefits.grants)", async () => {
    const grants = await fx.seller.sdk.benefits.grants({ id: perk });
    expect(grants.result.items.map((g) => g.id)).toEqual([grantIds.bobPerk, grantIds.adaPerk]);
    const granted = await fx.seller.sdk.benefits.grants({ id: perk, isGranted: true, customerId: ada });
    expect(granted.result.items.map((g) => g.id)).toEqual([grantIds.adaPerk]);
    const none = await fx.seller.sdk.benefits.grants({ id: perk, customerId: bob, isGranted: true });
    expect(none.result).toEqual({ items: [], pagination: { totalCount: 0, maxPage: 0 } });
    const members = await fx.seller.sdk.benefits.grants({ id: perk, memberId: "44444444-4444-4444-8444-444444444444" });
    expect(members.result.items).toEqual([]);
    await expect(fx.other.sdk.benefits.grants({ id: perk })).rejects.toMatchObject({ statusCode: 404 });
    expect((await fx.raw(fx.seller.token, "GET", `/v1/benefits/${perk}/grants?is_granted=1`)).status).toBe(422);
  });

  it("grants list only the caller's rows; other organizations see none", async () => {
    expect((await fx.other.sdk.benefitGrants.list({})).result.items).toEqual([]);
    expect((await fx.other.sdk.benefitGrants.list({ customerId: ada })).result.items).toEqual([]);
  });

  it("a deleted benefit keeps its grants (is_deleted) but its own grants route is 404", async () => {
    const gone = (await fx.seller.sdk.benefits.create(custom("Soon deleted"))).id;
    const [g] = await fx.db()
      .insert(benefitGrant)
      .values({ organizationId: fx.seller.organizationId, benefitId: gone, customerId: ada, grantedAt: new Date() })
      .returning();
    await fx.seller.sdk.benefits.delete({ id: gone });
    const found = await fx.seller.sdk.benefitGrants.list({ customerId: ada, limit: 100 });
    const grant = found.result.items.find((x) => x.id === g!.id);
    expect(grant?.benefit).toMatchObject({ id: gone, isDeleted: true });
    await expect(fx.seller.sdk.benefits.grants({ id: gone })).rejects.toMatchObject({ statusCode: 404 });
    await fx.db().delete(benefitGrant).where(eq(benefitGrant.id, g!.id));
  });

  it("0.49.0 parses the grants list", async () => {
    const page = await fx.seller.sdk049.benefitGrants.list({ customerId: ada });
    expect(page.result.items.map((g) => g.id)).toEqual([grantIds.adaKeys, grantIds.adaPerk]);
  });

  it("listGrantedBenefitsForCustomer returns the granted, unrevoked grants for customer state", async () => {
    const state = await listGrantedBenefitsForCustomer(fx.db(), fx.seller.organizationId, ada);
    expect(state).toEqual([
      {
        id: grantIds.adaPerk,
        created_at: "2025-01-01T00:01:00.000Z",
        modified_at: null,
        granted_at: "2025-01-01T00:01:00.000Z",
        benefit_id: perk,
        benefit_type: "custom",
        benefit_metadata: { level: 1 },
        properties: {},
      },
      expect.objectContaining({ id: grantIds.adaKeys, benefit_type: "license_keys", properties: expect.objectContaining({ display_key: "K-****-1234" }) }),
    ]);
    expect(await listGrantedBenefitsForCustomer(fx.db(), fx.seller.organizationId, bob)).toEqual([]);
    expect(await listGrantedBenefitsForCustomer(fx.db(), fx.other.organizationId, ada)).toEqual([]);
    expect(await listGrantedBenefitsForCustomer(fx.db(), fx.seller.organizationId, "nope")).toEqual([]);
  });
});

describe("benefits service for other domains", () => {
  it("loadBenefitsForProducts, benefitIdsExist and toBenefitPublicWire", async () => {
    const [p1] = await fx.db().insert(product).values({ organizationId: fx.seller.organizationId, name: "P1" }).returning();
    const [p2] = await fx.db().insert(product).values({ organizationId: fx.seller.organizationId, name: "P2" }).returning();
    const first = await fx.seller.sdk.benefits.create(custom("First perk"));
    const second = await fx.seller.sdk.benefits.create(custom("Second perk"));
    const deleted = await fx.seller.sdk.benefits.create(custom("Deleted perk"));
    await fx.db()
      .insert(productBenefit)
      .values([
        { productId: p1!.id, benefitId: second.id, position: 0 },
        { productId: p1!.id, benefitId: first.id, position: 1 },
        { productId: p1!.id, benefitId: deleted.id, position: 2 },
      ]);
    await fx.seller.sdk.benefits.delete({ id: deleted.id });

    const map = await loadBenefitsForProducts(fx.db(), fx.seller.organizationId, [p1!.id, p2!.id]);
    expect(map.get(p1!.id)?.map((b) => b.id)).toEqual([second.id, first.id]);
    expect(map.get(p2!.id)).toEqual([]);
    expect((await loadBenefitsForProducts(fx.db(), fx.other.organizationId, [p1!.id])).get(p1!.id)).toEqual([]);
    const wire = map.get(p1!.id)![0]!;
    expect(wire).toMatchObject({ id: second.id, properties: { note: null }, metadata: {}, visibility: "public" });
    expect(toBenefitPublicWire(wire)).toEqual({
      id: second.id,
      created_at: wire.created_at,
      modified_at: null,
      type: "custom",
      description: "Second perk",
      selectable: true,
      deletable: true,
      is_deleted: false,
      organization_id: fx.seller.organizationId,
    });

    const foreign = await fx.other.sdk.benefits.create(custom("Other org perk"));
    const unknown = "00000000-0000-4000-8000-000000000000";
    expect(await benefitIdsExist(fx.db(), fx.seller.organizationId, [first.id, first.id.toUpperCase()])).toEqual([]);
    expect(await benefitIdsExist(fx.db(), fx.seller.organizationId, [first.id, deleted.id, foreign.id, unknown, "bad"])).toEqual([
      deleted.id,
      foreign.id,
      unknown,
      "bad",
    ]);
  });
});
