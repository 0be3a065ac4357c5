// /v1/benefits through @polar-sh/sdk 0.47.1 (list/get/create again through 0.49.0): all benefit types and their
// properties, reads, updates, soft deletion and scopes. Validation: benefits-validation.test.ts; grants and the
// service functions other domains call: benefits-grants.test.ts.
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { benefit } from "../../server/db/schema/index.js";
import { createSeller, sdkFor } from "../helpers/seller.js";
import { benefitFixture, custom } from "./benefits-fixtures.js";

const fx = benefitFixture();

describe("/v1/benefits create and read (SDK 0.47.1)", () => {
  it("creates every benefit type with its properties", async () => {
    const c = await fx.seller.sdk.benefits.create({
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
      organizationId: fx.seller.organizationId,
      metadata: { tier: "gold", seats: 3, vip: true },
      properties: { note: "Email us at vip@example.com" },
    });
    expect(c.createdAt).toBeInstanceOf(Date);
    expect(c.modifiedAt).toBeNull();

    const discord = await fx.seller.sdk.benefits.create({
      type: "discord",
      description: "Discord role",
      properties: { guildToken: "1234567890123456", roleId: "998877", kickMember: true },
    });
    expect(discord.properties).toEqual({ guildId: "1234567890123456", roleId: "998877", kickMember: true, guildToken: "1234567890123456" });

    const gh = await fx.seller.sdk.benefits.create({
      type: "github_repository",
      description: "Repo access",
      properties: { repositoryOwner: "till-dev", repositoryName: "private.repo", permission: "maintain" },
    });
    expect(gh.properties).toEqual({ repositoryOwner: "till-dev", repositoryName: "private.repo", permission: "maintain" });

    const dl = await fx.seller.sdk.benefits.create({
      type: "downloadables",
      description: "E-book files",
      properties: { files: fx.fileIds, archived: { [fx.fileIds[1]!]: true } },
    });
    expect(dl.properties).toEqual({ files: fx.fileIds, archived: { [fx.fileIds[1]!]: true } });

    const lk = await fx.seller.sdk.benefits.create({
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
    const lkBare = await fx.seller.sdk.benefits.create({ type: "license_keys", description: "Bare key", properties: {} });
    expect(lkBare.properties).toEqual({ prefix: null, expires: null, activations: null, limitUsage: null });

    const mc = await fx.seller.sdk.benefits.create({
      type: "meter_credit",
      description: "1000 API credits",
      properties: { units: 1000, rollover: true, meterId: fx.meterId },
    });
    expect(mc.properties).toEqual({ units: 1000, rollover: true, meterId: fx.meterId });

    const ff = await fx.seller.sdk.benefits.create({ type: "feature_flag", description: "Beta features", properties: {} });
    expect(ff).toMatchObject({ type: "feature_flag", properties: {} });
  });

  it("gets a benefit; unknown and foreign ids are 404, malformed ids 422", async () => {
    const created = await fx.seller.sdk.benefits.create(custom("Gettable"));
    const got = await fx.seller.sdk.benefits.get({ id: created.id });
    expect(got).toEqual(created);
    await expect(fx.seller.sdk.benefits.get({ id: "00000000-0000-4000-8000-000000000000" })).rejects.toMatchObject({
      statusCode: 404,
    });
    await expect(fx.other.sdk.benefits.get({ id: created.id })).rejects.toMatchObject({ statusCode: 404 });
    const foreign = await fx.raw(fx.other.token, "GET", `/v1/benefits/${created.id}`);
    expect(foreign).toEqual({ status: 404, body: { error: "ResourceNotFound", detail: "Benefit not found" } });
    const malformed = await fx.raw(fx.seller.token, "GET", "/v1/benefits/not-a-uuid");
    expect(malformed.status).toBe(422);
    expect(malformed.body.detail).toMatchObject([{ loc: ["path", "id"], type: "uuid_parsing" }]);
  });

  it("lists with type, query, id, exclude_id, metadata, sorting and pagination", async () => {
    const s = await createSeller(fx.server, "lister");
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
    const bare = await fx.raw(s.token, "GET", "/v1/benefits");
    expect(bare.status).toBe(200);
  });

  it("updates description, metadata and properties; the type cannot change", async () => {
    const lk = await fx.seller.sdk.benefits.create({ type: "license_keys", description: "Keys v1", properties: { prefix: "A" } });
    const updated = await fx.seller.sdk.benefits.update({
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

    const onlyDescription = await fx.seller.sdk.benefits.update({ id: lk.id, requestBody: { type: "license_keys", description: "Keys v3" } });
    expect(onlyDescription.properties).toEqual(updated.properties);
    expect(onlyDescription.metadata).toEqual({ v: 2 });

    const wrongType = await fx.raw(fx.seller.token, "PATCH", `/v1/benefits/${lk.id}`, { type: "custom", description: "Nope" });
    expect(wrongType.status).toBe(422);
    expect(wrongType.body.detail).toMatchObject([{ loc: ["body", "type"] }]);
    expect((await fx.seller.sdk.benefits.get({ id: lk.id })).description).toBe("Keys v3");

    const mc = await fx.seller.sdk.benefits.create({ type: "meter_credit", description: "Credits", properties: { units: 5, rollover: false, meterId: fx.meterId } });
    const badMeter = await fx.raw(fx.seller.token, "PATCH", `/v1/benefits/${mc.id}`, {
      type: "meter_credit",
      properties: { units: 10, rollover: false, meter_id: fx.otherMeterId },
    });
    expect(badMeter.status).toBe(422);
    expect(badMeter.body.detail).toMatchObject([{ loc: ["body", "properties", "meter_id"] }]);
    expect((await fx.seller.sdk.benefits.get({ id: mc.id })).properties).toEqual({ units: 5, rollover: false, meterId: fx.meterId });

    await expect(
      fx.other.sdk.benefits.update({ id: lk.id, requestBody: { type: "license_keys", description: "Hijack" } }),
    ).rejects.toMatchObject({ statusCode: 404 });
  });

  it("deletes softly (204); a deletable:false benefit is refused with 403", async () => {
    const doomed = await fx.seller.sdk.benefits.create(custom("Doomed perk"));
    await fx.seller.sdk.benefits.delete({ id: doomed.id });
    await expect(fx.seller.sdk.benefits.get({ id: doomed.id })).rejects.toMatchObject({ statusCode: 404 });
    const listed = await fx.seller.sdk.benefits.list({ id: doomed.id });
    expect(listed.result.items).toEqual([]);
    const [row] = await fx.db().select().from(benefit).where(eq(benefit.id, doomed.id));
    expect(row?.isDeleted).toBe(true);
    expect((await fx.raw(fx.seller.token, "DELETE", `/v1/benefits/${doomed.id}`)).status).toBe(404);
    expect(
      (await fx.raw(fx.seller.token, "PATCH", `/v1/benefits/${doomed.id}`, { type: "custom", description: "Back" })).status,
    ).toBe(404);

    const kept = await fx.seller.sdk.benefits.create(custom("Foreign-proof"));
    expect((await fx.raw(fx.other.token, "DELETE", `/v1/benefits/${kept.id}`)).status).toBe(404);
    expect((await fx.seller.sdk.benefits.get({ id: kept.id })).isDeleted).toBe(false);

    const [system] = await fx.db()
      .insert(benefit)
      .values({ organizationId: fx.seller.organizationId, type: "custom", description: "Managed by till", deletable: false, properties: { note: null } })
      .returning();
    await expect(fx.seller.sdk.benefits.delete({ id: system!.id })).rejects.toMatchObject({ statusCode: 403 });
    const refused = await fx.raw(fx.seller.token, "DELETE", `/v1/benefits/${system!.id}`);
    expect(refused).toEqual({ status: 403, body: { error: "NotPermitted", detail: "This benefit cannot be deleted." } });
    expect((await fx.seller.sdk.benefits.get({ id: system!.id })).deletable).toBe(false);
  });
});

describe("/v1/benefits through SDK 0.49.0", () => {
  it("creates, gets and lists with the 0.49.0 fields", async () => {
    const created = await fx.seller.sdk049.benefits.create({
      type: "meter_credit",
      description: "Credits 049",
      properties: { units: 7, rollover: false, meterId: fx.meterId },
    });
    expect(created).toMatchObject({ visibility: "public", visibilityConfigurable: false, properties: { units: 7 } });
    const got = await fx.seller.sdk049.benefits.get({ id: created.id });
    expect(got.id).toBe(created.id);
    const listed = await fx.seller.sdk049.benefits.list({ id: created.id });
    expect(listed.result.items.map((b) => b.id)).toEqual([created.id]);
    const all = await fx.seller.sdk049.benefits.list({ limit: 100 });
    expect(all.result.items.length).toBeGreaterThan(5);
    const slack = await fx.seller.sdk049.benefits.list({ typeFilter: "slack_shared_channel" });
    expect(slack.result.items).toEqual([]);
  });
});

describe("scopes", () => {
  it("needs benefits:write to write and benefits:read to read", async () => {
    const reader = sdkFor(fx.server, await fx.seller.createKey({ benefits: ["read"] }));
    const listed = await reader.benefits.list({});
    expect(listed.result.pagination.totalCount).toBeGreaterThan(0);
    const one = listed.result.items[0]!;
    await expect(reader.benefits.create(custom("Reader's perk"))).rejects.toMatchObject({ statusCode: 403 });
    await expect(reader.benefits.update({ id: one.id, requestBody: { type: one.type as "custom", description: "Changed" } })).rejects.toMatchObject({
      statusCode: 403,
    });
    await expect(reader.benefits.delete({ id: one.id })).rejects.toMatchObject({ statusCode: 403 });
    expect((await reader.benefitGrants.list({})).result.items).toBeDefined();

    const stranger = await fx.seller.createKey({ products: ["read"] });
    for (const path of ["/v1/benefits/", `/v1/benefits/${one.id}`, `/v1/benefits/${one.id}/grants`, "/v1/benefit-grants/"]) {
      const res = await fx.raw(stranger, "GET", path);
      expect(res.status, path).toBe(403);
      expect(res.body.error).toBe("NotPermitted");
    }
    const writer = sdkFor(fx.server, await fx.seller.createKey({ benefits: ["write"] }));
    const created = await writer.benefits.create(custom("Writer's perk"));
    await writer.benefits.delete({ id: created.id });
  });
});
