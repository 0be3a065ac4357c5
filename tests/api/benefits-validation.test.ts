// /v1/benefits validation: the property rules of every benefit type, and the other bad inputs (422, nothing
// written).
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { benefit } from "../../server/db/schema/index.js";
import { benefitFixture, custom } from "./benefits-fixtures.js";

const fx = benefitFixture();

async function benefitCount(organizationId: string): Promise<number> {
  return (await fx.db().select().from(benefit).where(eq(benefit.organizationId, organizationId))).length;
}

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
    const before = await benefitCount(fx.seller.organizationId);
    const res = await fx.raw(fx.seller.token, "POST", "/v1/benefits/", body);
    expect(res.status).toBe(422);
    const detail = res.body.detail as Array<{ loc: unknown[]; msg: string; type: string }>;
    expect(detail.some((d) => JSON.stringify(d.loc) === JSON.stringify(loc))).toBe(true);
    expect(await benefitCount(fx.seller.organizationId)).toBe(before);
  });

  it("refuses references to meters and files that are not the organization's", async () => {
    const before = await benefitCount(fx.seller.organizationId);
    const foreignMeter = await fx.raw(fx.seller.token, "POST", "/v1/benefits/", {
      type: "meter_credit",
      description: "Credits",
      properties: { units: 1, rollover: false, meter_id: fx.otherMeterId },
    });
    expect(foreignMeter.status).toBe(422);
    expect(foreignMeter.body.detail).toMatchObject([{ loc: ["body", "properties", "meter_id"] }]);
    for (const files of [[fx.otherFileId], [fx.mediaFileId], [fx.fileIds[0], "00000000-0000-4000-8000-000000000000"]]) {
      const res = await fx.raw(fx.seller.token, "POST", "/v1/benefits/", { type: "downloadables", description: "Files", properties: { files } });
      expect(res.status).toBe(422);
      expect(res.body.detail).toMatchObject([{ loc: ["body", "properties", "files"] }]);
    }
    const notUploaded = await fx.insertFile(fx.seller.organizationId, "downloadable", false);
    const pending = await fx.raw(fx.seller.token, "POST", "/v1/benefits/", {
      type: "downloadables",
      description: "Files",
      properties: { files: [notUploaded] },
    });
    expect(pending.status).toBe(422);
    const archivedStranger = await fx.raw(fx.seller.token, "POST", "/v1/benefits/", {
      type: "downloadables",
      description: "Files",
      properties: { files: [fx.fileIds[0]], archived: { [fx.fileIds[1]!]: true } },
    });
    expect(archivedStranger.status).toBe(422);
    expect(await benefitCount(fx.seller.organizationId)).toBe(before);
  });

  it("refuses malformed JSON and bad list queries with 422", async () => {
    expect((await fx.raw(fx.seller.token, "POST", "/v1/benefits/", "{not json")).status).toBe(422);
    for (const q of ["query=%00", "metadata%5Bplan%5D=a%00", "type=newsletter", "limit=0", "limit=101", "page=0", "sorting=name", "id=nope", "exclude_id=1", "limit=abc"]) {
      const res = await fx.raw(fx.seller.token, "GET", `/v1/benefits/?${q}`);
      expect(res.status, q).toBe(422);
    }
    for (const q of ["is_granted=maybe", "customer_id=nope", "sorting=-name", "organization_id=nope"]) {
      expect((await fx.raw(fx.seller.token, "GET", `/v1/benefit-grants/?${q}`)).status, q).toBe(422);
    }
  });

  it("a foreign organization_id is 404 for the list and a foreign-org filter finds nothing", async () => {
    const key = await fx.seller.createKey();
    const res = await fx.raw(key, "GET", `/v1/benefits/?organization_id=${fx.other.organizationId}`);
    expect(res.status).toBe(404);
    const both = await fx.raw(
      key,
      "GET",
      `/v1/benefits/?organization_id=${fx.other.organizationId}&organization_id=00000000-0000-4000-8000-000000000000`,
    );
    expect(both.status).toBe(200);
    expect(both.body.items).toEqual([]);
  });
});
