// /v1/benefits and /v1/benefit-grants through @polar-sh/sdk 0.47.1 (list/get/create again through 0.49.0):
// all benefit types and their property rules, soft deletion, grants (rows inserted as the grant engine will),
// validation, scopes and tenancy. Also the benefits service functions other domains call.
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { benefit, benefitGrant, customer, file, meter, product, productBenefit } from "../../server/db/schema/index.js";
import { benefitIdsExist, listGrantedBenefitsForCustomer, loadBenefitsForProducts } from "../../server/billing/benefits/service.js";
import { toBenefitPublicWire } from "../../server/billing/benefits/wire.js";
import { createSeller, sdkFor, type Seller } from "../helpers/seller.js";
import { rawOn } from "../helpers/api.js";
import { startServer, type TestServer } from "../helpers/server.js";

let server: TestServer;
let seller: Seller;
let other: Seller;
let meterId: string;
let otherMeterId: string;
let fileIds: string[];
let otherFileId: string;
let mediaFileId: string;

const db = () => server.database.db;

async function insertMeter(organizationId: string): Promise<string> {
  const [row] = await db()
    .insert(meter)
    .values({
      organizationId,
      name: "API calls",
      filter: { conjunction: "and", clauses: [] },
      aggregation: { func: "count" },
    })
    .returning();
  return row!.id;
}

async function insertFile(organizationId: string, service = "downloadable", isUploaded = true): Promise<string> {
  const [row] = await db()
    .insert(file)
    .values({ organizationId, name: "book.pdf", path: `${organizationId}/book.pdf`, mimeType: "application/pdf", size: 1024, service, isUploaded })
    .returning();
  return row!.id;
}

async function insertCustomer(organizationId: string, email: string, externalId?: string): Promise<string> {
  const [row] = await db()
    .insert(customer)
    .values({ organizationId, email, name: "Ada", externalId: externalId ?? null })
    .returning();
  return row!.id;
}

beforeAll(async () => {
  server = await startServer();
  seller = await createSeller(server, "benefits");
  other = await createSeller(server, "intruder");
  meterId = await insertMeter(seller.organizationId);
  otherMeterId = await insertMeter(other.organizationId);
  fileIds = [await insertFile(seller.organizationId), await insertFile(seller.organizationId)];
  otherFileId = await insertFile(other.organizationId);
  mediaFileId = await insertFile(seller.organizationId, "product_media");
});
afterAll(async () => server?.close());

const raw = rawOn(() => server);

async function benefitCount(organizationId: string): Promise<number> {
  return (await db().select().from(benefit).where(eq(benefit.organizationId, organizationId))).length;
}

const custom = (description: string, extra: Record<string, unknown> = {}) => ({
  type: "custom" as const,
  description,
  properties: { note: null },
  ...extra,
});

describe("/v1/benefits create and read (SDK 0.47.1)", () => {
  it("creates every benefit type with its properties", async () => {
    const c = await seller.sdk.benefits.create({
      type: "custom",
      description: "Priority support",
      properties: { note: "Email us at vip@example.com" },
      metadata: { tier: "gold", seats: 3, vip: true },
    });
    expect(c).toMatchObject({
      type: "custom",
      description: "Priority support",
      selectable: true,
      deletable: true,
      isDeleted: false,
      organizationId: seller.organizationId,
      metadata: { tier: "gold", seats: 3, vip: true },
      properties: { note: "Email us at vip@example.com" },
    });
    expect(c.createdAt).toBeInstanceOf(Date);
    expect(c.modifiedAt).toBeNull();

    const discord = await seller.sdk.benefits.create({
      type: "discord",
      description: "Discord role",
      properties: { guildToken: "1234567890123456", roleId: "998877", kickMember: true },
    });
    expect(discord.properties).toEqual({ guildId: "1234567890123456", roleId: "998877", kickMember: true, guildToken: "1234567890123456" });

    const gh = await seller.sdk.benefits.create({
      type: "github_repository",
      description: "Repo access",
      properties: { repositoryOwner: "till-dev", repositoryName: "private.repo", permission: "maintain" },
    });
    expect(gh.properties).toEqual({ repositoryOwner: "till-dev", repositoryName: "private.repo", permission: "maintain" });

    const dl = await seller.sdk.benefits.create({
      type: "downloadables",
      description: "E-book files",
      properties: { files: fileIds, archived: { [fileIds[1]!]: true } },
    });
    expect(dl.properties).toEqual({ files: fileIds, archived: { [fileIds[1]!]: true } });

    const lk = await seller.sdk.benefits.create({
      type: "license_keys",
      description: "License key",
      properties: {
        prefix: "TILL",
        expires: { ttl: 12, timeframe: "month" },
        activations: { limit: 5, enableCustomerAdmin: true },
        limitUsage: 1000,
      },
    });
    expect(lk.properties).toEqual({
      prefix: "TILL",
      expires: { ttl: 12, timeframe: "month" },
      activations: { limit: 5, enableCustomerAdmin: true },
      limitUsage: 1000,
    });
    const lkBare = await seller.sdk.benefits.create({ type: "license_keys", description: "Bare key", properties: {} });
    expect(lkBare.properties).toEqual({ prefix: null, expires: null, activations: null, limitUsage: null });

    const mc = await seller.sdk.benefits.create({
      type: "meter_credit",
      description: "1000 API credits",
      properties: { units: 1000, rollover: true, meterId },
    });
    expect(mc.properties).toEqual({ units: 1000, rollover: true, meterId });

    const ff = await seller.sdk.benefits.create({ type: "feature_flag", description: "Beta features", properties: {} });
    expect(ff).toMatchObject({ type: "feature_flag", properties: {} });
  });

  it("gets a benefit; unknown and foreign ids are 404, malformed ids 422", async () => {
    const created = await seller.sdk.benefits.create(custom("Gettable"));
    const got = await seller.sdk.benefits.get({ id: created.id });
    expect(got).toEqual(created);
    await expect(seller.sdk.benefits.get({ id: "00000000-0000-4000-8000-000000000000" })).rejects.toMatchObject({
      statusCode: 404,
    });
    await expect(other.sdk.benefits.get({ id: created.id })).rejects.toMatchObject({ statusCode: 404 });
    const foreign = await raw(other.token, "GET", `/v1/benefits/${created.id}`);
    expect(foreign).toEqual({ status: 404, body: { error: "ResourceNotFound", detail: "Benefit not found" } });
    const malformed = await raw(seller.token, "GET", "/v1/benefits/not-a-uuid");
    expect(malformed.status).toBe(422);
    expect(malformed.body.detail).toMatchObject([{ loc: ["path", "id"], type: "uuid_parsing" }]);
  });

  it("lists with type, query, id, exclude_id, metadata, sorting and pagination", async () => {
    const s = await createSeller(server, "lister");
    const a = await s.sdk.benefits.create(custom("Alpha perk", { metadata: { plan: "pro" } }));
    const b = await s.sdk.benefits.create(custom("Beta perk", { metadata: { plan: "free" } }));
    const c = await s.sdk.benefits.create({ type: "feature_flag", description: "Gamma flag", properties: {} });

    const all = await s.sdk.benefits.list({});
    expect(all.result.items.map((x) => x.id)).toEqual([c.id, b.id, a.id]);
    expect(all.result.pagination).toEqual({ totalCount: 3, maxPage: 1 });

    const customs = await s.sdk.benefits.list({ typeFilter: "custom" });
    expect(customs.result.items.map((x) => x.id).sort()).toEqual([a.id, b.id].sort());
    const both = await s.sdk.benefits.list({ typeFilter: ["custom", "feature_flag"] });
    expect(both.result.pagination.totalCount).toBe(3);

    const q = await s.sdk.benefits.list({ query: "BETA" });
    expect(q.result.items.map((x) => x.id)).toEqual([b.id]);
    const like = await s.sdk.benefits.list({ query: "%" });
    expect(like.result.items).toEqual([]);

    const ids = await s.sdk.benefits.list({ id: [a.id, c.id] });
    expect(ids.result.items.map((x) => x.id)).toEqual([c.id, a.id]);
    const excluded = await s.sdk.benefits.list({ excludeId: a.id });
    expect(excluded.result.items.map((x) => x.id)).toEqual([c.id, b.id]);

    const meta = await s.sdk.benefits.list({ metadata: { plan: "pro" } });
    expect(meta.result.items.map((x) => x.id)).toEqual([a.id]);

    const byDescription = await s.sdk.benefits.list({ sorting: ["description"] });
    expect(byDescription.result.items.map((x) => x.description)).toEqual(["Alpha perk", "Beta perk", "Gamma flag"]);
    const byType = await s.sdk.benefits.list({ sorting: ["-type", "created_at"] });
    expect(byType.result.items.map((x) => x.id)).toEqual([c.id, a.id, b.id]);

    const ownOrg = await s.sdk.benefits.list({ organizationId: s.organizationId });
    expect(ownOrg.result.pagination.totalCount).toBe(3);

    const first = await s.sdk.benefits.list({ limit: 2, sorting: ["created_at"] });
    expect(first.result.items.map((x) => x.id)).toEqual([a.id, b.id]);
    expect(first.result.pagination).toEqual({ totalCount: 3, maxPage: 2 });
    const second = await first.next();
    expect(second?.result.items.map((x) => x.id)).toEqual([c.id]);
    const page2 = await s.sdk.benefits.list({ limit: 2, page: 2, sorting: ["created_at"] });
    expect(page2.result.items.map((x) => x.id)).toEqual([c.id]);

    // trailing slash or not
    const bare = await raw(s.token, "GET", "/v1/benefits");
    expect(bare.status).toBe(200);
  });

  it("updates description, metadata and properties; the type cannot change", async () => {
    const lk = await seller.sdk.benefits.create({ type: "license_keys", description: "Keys v1", properties: { prefix: "A" } });
    const updated = await seller.sdk.benefits.update({
      id: lk.id,
      requestBody: {
        type: "license_keys",
        description: "Keys v2",
        metadata: { v: 2 },
        properties: { prefix: "B", activations: { limit: 50, enableCustomerAdmin: false }, limitUsage: 1 },
      },
    });
    expect(updated).toMatchObject({
      id: lk.id,
      description: "Keys v2",
      metadata: { v: 2 },
      properties: { prefix: "B", expires: null, activations: { limit: 50, enableCustomerAdmin: false }, limitUsage: 1 },
    });
    expect(updated.modifiedAt).toBeInstanceOf(Date);

    const onlyDescription = await seller.sdk.benefits.update({ id: lk.id, requestBody: { type: "license_keys", description: "Keys v3" } });
    expect(onlyDescription.properties).toEqual(updated.properties);
    expect(onlyDescription.metadata).toEqual({ v: 2 });

    const wrongType = await raw(seller.token, "PATCH", `/v1/benefits/${lk.id}`, { type: "custom", description: "Nope" });
    expect(wrongType.status).toBe(422);
    expect(wrongType.body.detail).toMatchObject([{ loc: ["body", "type"] }]);
    expect((await seller.sdk.benefits.get({ id: lk.id })).description).toBe("Keys v3");

    const mc = await seller.sdk.benefits.create({ type: "meter_credit", description: "Credits", properties: { units: 5, rollover: false, meterId } });
    const badMeter = await raw(seller.token, "PATCH", `/v1/benefits/${mc.id}`, {
      type: "meter_credit",
      properties: { units: 10, rollover: false, meter_id: otherMeterId },
    });
    expect(badMeter.status).toBe(422);
    expect(badMeter.body.detail).toMatchObject([{ loc: ["body", "properties", "meter_id"] }]);
    expect((await seller.sdk.benefits.get({ id: mc.id })).properties).toEqual({ units: 5, rollover: false, meterId });

    await expect(
      other.sdk.benefits.update({ id: lk.id, requestBody: { type: "license_keys", description: "Hijack" } }),
    ).rejects.toMatchObject({ statusCode: 404 });
  });

  it("deletes softly (204); a deletable:false benefit is refused with 403", async () => {
    const doomed = await seller.sdk.benefits.create(custom("Doomed perk"));
    await seller.sdk.benefits.delete({ id: doomed.id });
    await expect(seller.sdk.benefits.get({ id: doomed.id })).rejects.toMatchObject({ statusCode: 404 });
    const listed = await seller.sdk.benefits.list({ id: doomed.id });
    expect(listed.result.items).toEqual([]);
    const [row] = await db().select().from(benefit).where(eq(benefit.id, doomed.id));
    expect(row?.isDeleted).toBe(true);
    expect((await raw(seller.token, "DELETE", `/v1/benefits/${doomed.id}`)).status).toBe(404);
    expect(
      (await raw(seller.token, "PATCH", `/v1/benefits/${doomed.id}`, { type: "custom", description: "Back" })).status,
    ).toBe(404);

    const kept = await seller.sdk.benefits.create(custom("Foreign-proof"));
    expect((await raw(other.token, "DELETE", `/v1/benefits/${kept.id}`)).status).toBe(404);
    expect((await seller.sdk.benefits.get({ id: kept.id })).isDeleted).toBe(false);

    const [system] = await db()
      .insert(benefit)
      .values({ organizationId: seller.organizationId, type: "custom", description: "Managed by till", deletable: false, properties: { note: null } })
      .returning();
    await expect(seller.sdk.benefits.delete({ id: system!.id })).rejects.toMatchObject({ statusCode: 403 });
    const refused = await raw(seller.token, "DELETE", `/v1/benefits/${system!.id}`);
    expect(refused).toEqual({ status: 403, body: { error: "NotPermitted", detail: "This benefit cannot be deleted." } });
    expect((await seller.sdk.benefits.get({ id: system!.id })).deletable).toBe(false);
  });
});

describe("/v1/benefits through SDK 0.49.0", () => {
  it("creates, gets and lists with the 0.49.0 fields", async () => {
    const created = await seller.sdk049.benefits.create({
      type: "meter_credit",
      description: "Credits 049",
      properties: { units: 7, rollover: false, meterId },
    });
    expect(created).toMatchObject({ visibility: "public", visibilityConfigurable: false, properties: { units: 7 } });
    const got = await seller.sdk049.benefits.get({ id: created.id });
    expect(got.id).toBe(created.id);
    const listed = await seller.sdk049.benefits.list({ id: created.id });
    expect(listed.result.items.map((b) => b.id)).toEqual([created.id]);
    const all = await seller.sdk049.benefits.list({ limit: 100 });
    expect(all.result.items.length).toBeGreaterThan(5);
    const slack = await seller.sdk049.benefits.list({ typeFilter: "slack_shared_channel" });
    expect(slack.result.items).toEqual([]);
  });
});

describe("/v1/benefits validation", () => {
  const cases: Array<[string, Record<string, unknown>, Array<string | number>]> = [
    ["unknown type", { type: "newsletter", description: "Nope", properties: {} }, ["body", "type"]],
    ["missing description", { type: "custom", properties: {} }, ["body", "description"]],
    ["too short description", { type: "custom", description: "ab", properties: {} }, ["body", "description"]],
    ["too long description", { type: "custom", description: "x".repeat(43), properties: {} }, ["body", "description"]],
    ["missing properties", { type: "custom", description: "Perk" }, ["body", "properties"]],
    ["NUL in description", { type: "custom", description: "Pe\u0000rk", properties: {} }, ["body", "description"]],
    ["NUL in a metadata key", { ...custom("Perk"), metadata: { "k\u0000": "v" } }, ["body", "metadata", "k\u0000"]],
    ["metadata nested object", { ...custom("Perk"), metadata: { a: { b: 1 } } }, ["body", "metadata", "a"]],
    ["metadata null value", { ...custom("Perk"), metadata: { a: null } }, ["body", "metadata", "a"]],
    [
      "too many metadata keys",
      { ...custom("Perk"), metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i])) },
      ["body", "metadata"],
    ],
    [
      "bad repository permission",
      { type: "github_repository", description: "Repo", properties: { repository_owner: "a", repository_name: "b", permission: "write" } },
      ["body", "properties", "permission"],
    ],
    [
      "discord without guild_token",
      { type: "discord", description: "Role", properties: { role_id: "1", kick_member: false } },
      ["body", "properties", "guild_token"],
    ],
    [
      "discord kick_member not a boolean",
      { type: "discord", description: "Role", properties: { guild_token: "g", role_id: "1", kick_member: "yes" } },
      ["body", "properties", "kick_member"],
    ],
    [
      "license ttl 0",
      { type: "license_keys", description: "Keys", properties: { expires: { ttl: 0, timeframe: "day" } } },
      ["body", "properties", "expires", "ttl"],
    ],
    [
      "license timeframe week",
      { type: "license_keys", description: "Keys", properties: { expires: { ttl: 1, timeframe: "week" } } },
      ["body", "properties", "expires", "timeframe"],
    ],
    [
      "license activations 51",
      { type: "license_keys", description: "Keys", properties: { activations: { limit: 51, enable_customer_admin: true } } },
      ["body", "properties", "activations", "limit"],
    ],
    [
      "license activations 0",
      { type: "license_keys", description: "Keys", properties: { activations: { limit: 0, enable_customer_admin: true } } },
      ["body", "properties", "activations", "limit"],
    ],
    [
      "license limit_usage 0",
      { type: "license_keys", description: "Keys", properties: { limit_usage: 0 } },
      ["body", "properties", "limit_usage"],
    ],
    [
      "license limit_usage fractional",
      { type: "license_keys", description: "Keys", properties: { limit_usage: 1.5 } },
      ["body", "properties", "limit_usage"],
    ],
    [
      "meter credit units 0",
      { type: "meter_credit", description: "Credits", properties: { units: 0, rollover: false, meter_id: "00000000-0000-4000-8000-000000000000" } },
      ["body", "properties", "units"],
    ],
    [
      "meter credit malformed meter id",
      { type: "meter_credit", description: "Credits", properties: { units: 1, rollover: false, meter_id: "nope" } },
      ["body", "properties", "meter_id"],
    ],
    [
      "downloadables without files",
      { type: "downloadables", description: "Files", properties: { files: [] } },
      ["body", "properties", "files"],
    ],
  ];

  it.each(cases)("refuses %s with 422 and creates nothing", async (_name, body, loc) => {
    const before = await benefitCount(seller.organizationId);
    const res = await raw(seller.token, "POST", "/v1/benefits/", body);
    expect(res.status).toBe(422);
    const detail = res.body.detail as Array<{ loc: unknown[]; msg: string; type: string }>;
    expect(detail.some((d) => JSON.stringify(d.loc) === JSON.stringify(loc))).toBe(true);
    expect(await benefitCount(seller.organizationId)).toBe(before);
  });

  it("refuses references to meters and files that are not the organization's", async () => {
    const before = await benefitCount(seller.organizationId);
    const foreignMeter = await raw(seller.token, "POST", "/v1/benefits/", {
      type: "meter_credit",
      description: "Credits",
      properties: { units: 1, rollover: false, meter_id: otherMeterId },
    });
    expect(foreignMeter.status).toBe(422);
    expect(foreignMeter.body.detail).toMatchObject([{ loc: ["body", "properties", "meter_id"] }]);
    for (const files of [[otherFileId], [mediaFileId], [fileIds[0], "00000000-0000-4000-8000-000000000000"]]) {
      const res = await raw(seller.token, "POST", "/v1/benefits/", { type: "downloadables", description: "Files", properties: { files } });
      expect(res.status).toBe(422);
      expect(res.body.detail).toMatchObject([{ loc: ["body", "properties", "files"] }]);
    }
    const notUploaded = await insertFile(seller.organizationId, "downloadable", false);
    const pending = await raw(seller.token, "POST", "/v1/benefits/", {
      type: "downloadables",
      description: "Files",
      properties: { files: [notUploaded] },
    });
    expect(pending.status).toBe(422);
    const archivedStranger = await raw(seller.token, "POST", "/v1/benefits/", {
      type: "downloadables",
      description: "Files",
      properties: { files: [fileIds[0]], archived: { [fileIds[1]!]: true } },
    });
    expect(archivedStranger.status).toBe(422);
    expect(await benefitCount(seller.organizationId)).toBe(before);
  });

  it("refuses malformed JSON and bad list queries with 422", async () => {
    expect((await raw(seller.token, "POST", "/v1/benefits/", "{not json")).status).toBe(422);
    for (const q of ["query=%00", "metadata%5Bplan%5D=a%00", "type=newsletter", "limit=0", "limit=101", "page=0", "sorting=name", "id=nope", "exclude_id=1", "limit=abc"]) {
      const res = await raw(seller.token, "GET", `/v1/benefits/?${q}`);
      expect(res.status, q).toBe(422);
    }
    for (const q of ["is_granted=maybe", "customer_id=nope", "sorting=-name", "organization_id=nope"]) {
      expect((await raw(seller.token, "GET", `/v1/benefit-grants/?${q}`)).status, q).toBe(422);
    }
  });

  it("a foreign organization_id is 404 for the list and a foreign-org filter finds nothing", async () => {
    const key = await seller.createKey();
    const res = await raw(key, "GET", `/v1/benefits/?organization_id=${other.organizationId}`);
    expect(res.status).toBe(404);
    const both = await raw(
      key,
      "GET",
      `/v1/benefits/?organization_id=${other.organizationId}&organization_id=00000000-0000-4000-8000-000000000000`,
    );
    expect(both.status).toBe(200);
    expect(both.body.items).toEqual([]);
  });
});

describe("scopes", () => {
  it("needs benefits:write to write and benefits:read to read", async () => {
    const reader = sdkFor(server, await seller.createKey({ benefits: ["read"] }));
    const listed = await reader.benefits.list({});
    expect(listed.result.pagination.totalCount).toBeGreaterThan(0);
    const one = listed.result.items[0]!;
    await expect(reader.benefits.create(custom("Reader's perk"))).rejects.toMatchObject({ statusCode: 403 });
    await expect(reader.benefits.update({ id: one.id, requestBody: { type: one.type as "custom", description: "Changed" } })).rejects.toMatchObject({
      statusCode: 403,
    });
    await expect(reader.benefits.delete({ id: one.id })).rejects.toMatchObject({ statusCode: 403 });
    expect((await reader.benefitGrants.list({})).result.items).toBeDefined();

    const stranger = await seller.createKey({ products: ["read"] });
    for (const path of ["/v1/benefits/", `/v1/benefits/${one.id}`, `/v1/benefits/${one.id}/grants`, "/v1/benefit-grants/"]) {
      const res = await raw(stranger, "GET", path);
      expect(res.status, path).toBe(403);
      expect(res.body.error).toBe("NotPermitted");
    }
    const writer = sdkFor(server, await seller.createKey({ benefits: ["write"] }));
    const created = await writer.benefits.create(custom("Writer's perk"));
    await writer.benefits.delete({ id: created.id });
  });
});

describe("grants", () => {
  let perk: string;
  let keys: string;
  let ada: string;
  let bob: string;
  let grantIds: Record<string, string>;

  beforeAll(async () => {
    const s = seller.sdk;
    perk = (await s.benefits.create(custom("Granted perk", { metadata: { level: 1 } }))).id;
    keys = (await s.benefits.create({ type: "license_keys", description: "Granted keys", properties: { prefix: "K" } })).id;
    ada = await insertCustomer(seller.organizationId, "ada@example.com", "ext-ada");
    bob = await insertCustomer(seller.organizationId, "bob@example.com");
    const t = (m: number) => new Date(Date.UTC(2025, 0, 1, 0, m));
    const rows = await db()
      .insert(benefitGrant)
      .values([
        { organizationId: seller.organizationId, benefitId: perk, customerId: ada, grantedAt: t(1), createdAt: t(1) },
        {
          organizationId: seller.organizationId,
          benefitId: keys,
          customerId: ada,
          grantedAt: t(2),
          createdAt: t(2),
          orderId: "11111111-1111-4111-8111-111111111111",
          properties: { license_key_id: "22222222-2222-4222-8222-222222222222", display_key: "K-****-1234" },
        },
        {
          organizationId: seller.organizationId,
          benefitId: perk,
          customerId: bob,
          revokedAt: t(4),
          createdAt: t(3),
          subscriptionId: "33333333-3333-4333-8333-333333333333",
        },
        {
          organizationId: seller.organizationId,
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
    const page = await seller.sdk.benefitGrants.list({});
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

    const rawPage = await raw(seller.token, "GET", "/v1/benefit-grants/?limit=1");
    const item = (rawPage.body.items as Array<Record<string, unknown>>)[0]!;
    for (const key of ["modified_at", "subscription_id", "order_id", "granted_at", "revoked_at", "error"]) expect(item).toHaveProperty(key);
  });

  it("filters grants by is_granted, customer, external customer, benefit; sorts and paginates", async () => {
    const list = async (q: Parameters<typeof seller.sdk.benefitGrants.list>[0]) =>
      (await seller.sdk.benefitGrants.list(q)).result.items.map((g) => g.id);
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
    expect(await list({ organizationId: seller.organizationId, limit: 2, page: 2 })).toEqual([grantIds.adaKeys, grantIds.adaPerk]);
    const byBenefit = await raw(seller.token, "GET", `/v1/benefit-grants/?benefit_id=${perk}`);
    expect((byBenefit.body.items as Array<{ id: string }>).map((g) => g.id)).toEqual([grantIds.bobPerk, grantIds.adaPerk]);
  });

  it("lists the grants of one benefit (benefits.grants)", async () => {
    const grants = await seller.sdk.benefits.grants({ id: perk });
    expect(grants.result.items.map((g) => g.id)).toEqual([grantIds.bobPerk, grantIds.adaPerk]);
    const granted = await seller.sdk.benefits.grants({ id: perk, isGranted: true, customerId: ada });
    expect(granted.result.items.map((g) => g.id)).toEqual([grantIds.adaPerk]);
    const none = await seller.sdk.benefits.grants({ id: perk, customerId: bob, isGranted: true });
    expect(none.result).toEqual({ items: [], pagination: { totalCount: 0, maxPage: 0 } });
    const members = await seller.sdk.benefits.grants({ id: perk, memberId: "44444444-4444-4444-8444-444444444444" });
    expect(members.result.items).toEqual([]);
    await expect(other.sdk.benefits.grants({ id: perk })).rejects.toMatchObject({ statusCode: 404 });
    expect((await raw(seller.token, "GET", `/v1/benefits/${perk}/grants?is_granted=1`)).status).toBe(422);
  });

  it("grants list only the caller's rows; other organizations see none", async () => {
    expect((await other.sdk.benefitGrants.list({})).result.items).toEqual([]);
    expect((await other.sdk.benefitGrants.list({ customerId: ada })).result.items).toEqual([]);
  });

  it("a deleted benefit keeps its grants (is_deleted) but its own grants route is 404", async () => {
    const gone = (await seller.sdk.benefits.create(custom("Soon deleted"))).id;
    const [g] = await db()
      .insert(benefitGrant)
      .values({ organizationId: seller.organizationId, benefitId: gone, customerId: ada, grantedAt: new Date() })
      .returning();
    await seller.sdk.benefits.delete({ id: gone });
    const found = await seller.sdk.benefitGrants.list({ customerId: ada, limit: 100 });
    const grant = found.result.items.find((x) => x.id === g!.id);
    expect(grant?.benefit).toMatchObject({ id: gone, isDeleted: true });
    await expect(seller.sdk.benefits.grants({ id: gone })).rejects.toMatchObject({ statusCode: 404 });
    await db().delete(benefitGrant).where(eq(benefitGrant.id, g!.id));
  });

  it("0.49.0 parses the grants list", async () => {
    const page = await seller.sdk049.benefitGrants.list({ customerId: ada });
    expect(page.result.items.map((g) => g.id)).toEqual([grantIds.adaKeys, grantIds.adaPerk]);
  });

  it("listGrantedBenefitsForCustomer returns the granted, unrevoked grants for customer state", async () => {
    const state = await listGrantedBenefitsForCustomer(db(), seller.organizationId, ada);
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
    expect(await listGrantedBenefitsForCustomer(db(), seller.organizationId, bob)).toEqual([]);
    expect(await listGrantedBenefitsForCustomer(db(), other.organizationId, ada)).toEqual([]);
    expect(await listGrantedBenefitsForCustomer(db(), seller.organizationId, "nope")).toEqual([]);
  });
});

describe("benefits service for other domains", () => {
  it("loadBenefitsForProducts, benefitIdsExist and toBenefitPublicWire", async () => {
    const [p1] = await db().insert(product).values({ organizationId: seller.organizationId, name: "P1" }).returning();
    const [p2] = await db().insert(product).values({ organizationId: seller.organizationId, name: "P2" }).returning();
    const first = await seller.sdk.benefits.create(custom("First perk"));
    const second = await seller.sdk.benefits.create(custom("Second perk"));
    const deleted = await seller.sdk.benefits.create(custom("Deleted perk"));
    await db()
      .insert(productBenefit)
      .values([
        { productId: p1!.id, benefitId: second.id, position: 0 },
        { productId: p1!.id, benefitId: first.id, position: 1 },
        { productId: p1!.id, benefitId: deleted.id, position: 2 },
      ]);
    await seller.sdk.benefits.delete({ id: deleted.id });

    const map = await loadBenefitsForProducts(db(), seller.organizationId, [p1!.id, p2!.id]);
    expect(map.get(p1!.id)?.map((b) => b.id)).toEqual([second.id, first.id]);
    expect(map.get(p2!.id)).toEqual([]);
    expect((await loadBenefitsForProducts(db(), other.organizationId, [p1!.id])).get(p1!.id)).toEqual([]);
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
      organization_id: seller.organizationId,
    });

    const foreign = await other.sdk.benefits.create(custom("Other org perk"));
    const unknown = "00000000-0000-4000-8000-000000000000";
    expect(await benefitIdsExist(db(), seller.organizationId, [first.id, first.id.toUpperCase()])).toEqual([]);
    expect(await benefitIdsExist(db(), seller.organizationId, [first.id, deleted.id, foreign.id, unknown, "bad"])).toEqual([
      deleted.id,
      foreign.id,
      unknown,
      "bad",
    ]);
  });
});
