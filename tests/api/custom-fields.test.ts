// /v1/custom-fields through @polar-sh/sdk 0.47.1 (and 0.49.0): the five types, list filters and sorting,
// slug rules, type changes refused, validation, scopes and tenancy.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { locs, rawRequest } from "../helpers/api.js";
import { createSeller, sdkFor, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";

let server: TestServer;
let seller: Seller;
let other: Seller;

beforeAll(async () => {
  server = await startServer();
  seller = await createSeller(server, "fields");
  other = await createSeller(server, "other");
});
afterAll(async () => server?.close());

const raw = (token: string, method: string, path: string, body?: unknown) => rawRequest(server.url, token, method, path, body);


describe("/v1/custom-fields", () => {
  it("creates every type with its properties and gets it back", async () => {
    const text = await seller.sdk.customFields.create({
      type: "text",
      slug: "Company-Name",
      name: "Company name",
      properties: { formLabel: "Company", formHelpText: "Legal name", formPlaceholder: "Acme", textarea: false, minLength: 2, maxLength: 80 },
      metadata: { source: "test", weight: 2 },
    });
    expect(text.type).toBe("text");
    expect(text.slug).toBe("company-name");
    expect(text.organizationId).toBe(seller.organizationId);
    expect(text.properties).toEqual({
      formLabel: "Company",
      formHelpText: "Legal name",
      formPlaceholder: "Acme",
      textarea: false,
      minLength: 2,
      maxLength: 80,
    });
    expect(text.metadata).toEqual({ source: "test", weight: 2 });
    expect(text.modifiedAt).toBeNull();

    const number = await seller.sdk.customFields.create({ type: "number", slug: "seats", name: "Seats", properties: { ge: 1, le: 100 } });
    expect(number.properties).toEqual({ ge: 1, le: 100 });
    const date = await seller.sdk.customFields.create({ type: "date", slug: "start_date", name: "Start", properties: { ge: 1700000000 } });
    expect(date.type).toBe("date");
    const checkbox = await seller.sdk.customFields.create({
      type: "checkbox",
      slug: "terms",
      name: "Terms",
      properties: { formLabel: "I agree" },
    });
    expect(checkbox.properties).toEqual({ formLabel: "I agree" });
    const select = await seller.sdk.customFields.create({
      type: "select",
      slug: "size",
      name: "Size",
      properties: { options: [{ value: "s", label: "Small" }, { value: "l", label: "Large" }] },
    });
    expect(select.type === "select" && select.properties.options).toEqual([
      { value: "s", label: "Small" },
      { value: "l", label: "Large" },
    ]);

    const got = await seller.sdk.customFields.get({ id: select.id });
    expect(got).toEqual(select);
    const got049 = await seller.sdk049.customFields.get({ id: text.id });
    expect(got049.slug).toBe("company-name");
  });

  it("lists with query, type, sorting and pagination (0.47.1 and 0.49.0)", async () => {
    const all = await seller.sdk.customFields.list({ limit: 100 });
    // default order: slug ascending
    const slugs = all.result.items.map((f) => f.slug);
    expect(slugs).toEqual([...slugs].sort());
    expect(slugs).toEqual(expect.arrayContaining(["company-name", "seats", "start_date", "terms", "size"]));

    const byType = await seller.sdk.customFields.list({ typeFilter: ["number", "date"] });
    expect(byType.result.items.map((f) => f.type).sort()).toEqual(["date", "number"]);
    const byQuery = await seller.sdk.customFields.list({ query: "SIZ" });
    expect(byQuery.result.items.map((f) => f.slug)).toEqual(["size"]);
    const byName = await seller.sdk.customFields.list({ query: "company" });
    expect(byName.result.items.map((f) => f.slug)).toEqual(["company-name"]);

    const sorted = await seller.sdk.customFields.list({ sorting: ["-name"] });
    const names = sorted.result.items.map((f) => f.name);
    expect(names).toEqual([...names].sort().reverse());

    const first = await seller.sdk.customFields.list({ limit: 2, page: 1 });
    expect(first.result.items).toHaveLength(2);
    expect(first.result.pagination).toEqual({ totalCount: all.result.items.length, maxPage: Math.ceil(all.result.items.length / 2) });
    const pages: string[] = [];
    for await (const p of first) pages.push(...p.result.items.map((f) => f.id));
    expect(pages.sort()).toEqual(all.result.items.map((f) => f.id).sort());

    const list049 = await seller.sdk049.customFields.list({ typeFilter: "select" });
    expect(list049.result.items.map((f) => f.slug)).toEqual(["size"]);
    const ownOrg = await seller.sdk.customFields.list({ organizationId: seller.organizationId, typeFilter: "select" });
    expect(ownOrg.result.items).toHaveLength(1);
  });

  it("creates through 0.49.0", async () => {
    const created = await seller.sdk049.customFields.create({
      type: "text",
      slug: "vat-note",
      name: "VAT note",
      properties: { textarea: true },
    });
    expect(created.type).toBe("text");
    expect((await seller.sdk.customFields.get({ id: created.id })).name).toBe("VAT note");
  });

  it("updates name, slug, properties and metadata but never the type", async () => {
    const field = await seller.sdk.customFields.create({ type: "number", slug: "quantity", name: "Quantity", properties: {} });
    const updated = await seller.sdk.customFields.update({
      id: field.id,
      customFieldUpdate: { type: "number", name: "How many", slug: "how-many", properties: { ge: 0, le: 9 }, metadata: { k: true } },
    });
    expect(updated).toMatchObject({ name: "How many", slug: "how-many", properties: { ge: 0, le: 9 }, metadata: { k: true } });
    expect(updated.modifiedAt).toBeInstanceOf(Date);

    await expect(
      seller.sdk.customFields.update({ id: field.id, customFieldUpdate: { type: "text", name: "Text now" } }),
    ).rejects.toMatchObject({ statusCode: 422 });
    const typeChange = await raw(seller.token, "PATCH", `/v1/custom-fields/${field.id}`, { type: "text", name: "Text now" });
    expect(typeChange.status).toBe(422);
    expect(typeChange.body.detail).toEqual([
      { loc: ["body", "type"], msg: "The type of a custom field can't be changed.", type: "value_error" },
    ]);
    const after = await seller.sdk.customFields.get({ id: field.id });
    expect(after).toMatchObject({ type: "number", name: "How many" });
  });

  it("keeps slugs unique per organization and well-formed", async () => {
    const dup = await raw(seller.token, "POST", "/v1/custom-fields/", { type: "checkbox", slug: "TERMS", name: "Again", properties: {} });
    expect(dup.status).toBe(422);
    expect(dup.body.detail).toEqual([
      { loc: ["body", "slug"], msg: "Custom field with this slug already exists.", type: "value_error" },
    ]);
    const renameToTaken = await raw(seller.token, "PATCH", `/v1/custom-fields/${(await firstBySlug("seats")).id}`, {
      type: "number",
      slug: "terms",
    });
    expect(renameToTaken.status).toBe(422);
    const bad = await raw(seller.token, "POST", "/v1/custom-fields/", { type: "checkbox", slug: "no spaces!", name: "Bad", properties: {} });
    expect(bad.status).toBe(422);
    expect(locs(bad.body)).toEqual([["body", "slug"]]);
    // another organization may use the same slug
    const theirs = await other.sdk.customFields.create({ type: "checkbox", slug: "terms", name: "Terms", properties: {} });
    expect(theirs.slug).toBe("terms");
  });

  it("refuses invalid bodies and queries with 422 and changes nothing", async () => {
    const before = (await seller.sdk.customFields.list({ limit: 100 })).result.pagination.totalCount;
    const cases: Array<[unknown, unknown[]]> = [
      [{ type: "select", slug: "empty", name: "Empty", properties: { options: [] } }, ["body", "properties", "options"]],
      [{ type: "number", slug: "range", name: "Range", properties: { ge: 10, le: 1 } }, ["body", "properties", "le"]],
      [{ type: "text", slug: "len", name: "Len", properties: { min_length: 5, max_length: 2 } }, ["body", "properties", "max_length"]],
      [{ type: "text", slug: "neg", name: "Neg", properties: { min_length: -1 } }, ["body", "properties", "min_length"]],
      [{ type: "number", slug: "float", name: "Float", properties: { ge: 1.5 } }, ["body", "properties", "ge"]],
      [{ type: "color", slug: "c", name: "C", properties: {} }, ["body", "type"]],
      [{ type: "text", slug: "noname", properties: {} }, ["body", "name"]],
      [{ type: "text", slug: "meta", name: "Meta", properties: {}, metadata: { nested: { a: 1 } } }, ["body", "metadata", "nested"]],
      [{ type: "select", slug: "opt", name: "Opt", properties: { options: [{ value: "", label: "x" }] } }, ["body", "properties", "options", 0, "value"]],
    ];
    for (const [body, loc] of cases) {
      const res = await raw(seller.token, "POST", "/v1/custom-fields/", body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(locs(res.body)).toContainEqual(loc);
    }
    const tooMany = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i]));
    expect((await raw(seller.token, "POST", "/v1/custom-fields/", { type: "text", slug: "m", name: "M", properties: {}, metadata: tooMany })).status).toBe(422);
    expect((await raw(seller.token, "POST", "/v1/custom-fields/", "{oops")).status).toBe(422);
    expect((await raw(seller.token, "GET", "/v1/custom-fields/?type=color")).status).toBe(422);
    expect((await raw(seller.token, "GET", "/v1/custom-fields/?sorting=nope")).status).toBe(422);
    expect((await raw(seller.token, "GET", "/v1/custom-fields/?limit=0")).status).toBe(422);
    expect((await raw(seller.token, "GET", "/v1/custom-fields/?page=abc")).status).toBe(422);
    expect((await raw(seller.token, "GET", "/v1/custom-fields/not-a-uuid")).status).toBe(422);
    expect((await seller.sdk.customFields.list({ limit: 100 })).result.pagination.totalCount).toBe(before);
  });

  it("deletes with 204; the field is gone and its slug free again", async () => {
    const field = await seller.sdk.customFields.create({ type: "checkbox", slug: "newsletter", name: "Newsletter", properties: {} });
    await seller.sdk.customFields.delete({ id: field.id });
    await expect(seller.sdk.customFields.get({ id: field.id })).rejects.toMatchObject({ error: "ResourceNotFound" });
    const del = await raw(seller.token, "DELETE", `/v1/custom-fields/${field.id}`);
    expect(del.status).toBe(404);
    const again = await seller.sdk.customFields.create({ type: "checkbox", slug: "newsletter", name: "Newsletter", properties: {} });
    expect(again.id).not.toBe(field.id);
  });

  it("enforces scopes", async () => {
    const readKey = await seller.createKey({ custom_fields: ["read"] });
    const reader = sdkFor(server, readKey);
    expect((await reader.customFields.list({})).result.items.length).toBeGreaterThan(0);
    const denied = await raw(readKey, "POST", "/v1/custom-fields/", { type: "checkbox", slug: "nope", name: "Nope", properties: {} });
    expect(denied.status).toBe(403);
    expect(denied.body).toMatchObject({ error: "NotPermitted" });
    const field = await firstBySlug("terms");
    expect((await raw(readKey, "DELETE", `/v1/custom-fields/${field.id}`)).status).toBe(403);
    const otherKey = await seller.createKey({ products: ["read", "write"] });
    expect((await raw(otherKey, "GET", "/v1/custom-fields/")).status).toBe(403);
    const writeKey = await seller.createKey({ custom_fields: ["write"] });
    const writer = sdkFor(server, writeKey);
    const created = await writer.customFields.create({ type: "checkbox", slug: "by-key", name: "By key", properties: {} });
    expect(created.organizationId).toBe(seller.organizationId);
  });

  it("keeps organizations apart: foreign ids are 404 and lists never show foreign rows", async () => {
    const mine = await firstBySlug("terms");
    await expect(other.sdk.customFields.get({ id: mine.id })).rejects.toMatchObject({ error: "ResourceNotFound" });
    expect((await raw(other.token, "PATCH", `/v1/custom-fields/${mine.id}`, { type: "checkbox", name: "hijack" })).status).toBe(404);
    expect((await raw(other.token, "DELETE", `/v1/custom-fields/${mine.id}`)).status).toBe(404);
    const theirs = await other.sdk.customFields.list({});
    expect(theirs.result.items.map((f) => f.organizationId)).toEqual([other.organizationId]);
    const asOther = await raw(seller.token, "GET", `/v1/custom-fields/?organization_id=${other.organizationId}`);
    expect(asOther.status).toBe(404);
    const key = await seller.createKey();
    const keyForeign = await raw(key, "GET", `/v1/custom-fields/?organization_id=${other.organizationId}`);
    expect(keyForeign.status).toBe(404);
    expect((await seller.sdk.customFields.get({ id: mine.id })).name).toBe("Terms");
  });
});

async function firstBySlug(slug: string) {
  const list = await seller.sdk.customFields.list({ query: slug, limit: 100 });
  const found = list.result.items.find((f) => f.slug === slug);
  if (!found) throw new Error(`no field ${slug}`);
  return found;
}
