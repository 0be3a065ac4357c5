// Catalog as code against what the server already holds: objects made elsewhere, changes the server can't make
// in place and --prune, archived objects the file still names, medias and downloadables.
import { describe, expect, it } from "vitest";
import { applyPlan } from "../../cli/catalog/apply.js";
import { parseCatalog } from "../../cli/catalog/file.js";
import { CATALOG_KEY } from "../../cli/catalog/model.js";
import { planExitCode, renderPlan } from "../../cli/catalog/plan.js";
import { pullCatalog } from "../../cli/catalog/pull.js";
import { uploadFile } from "../helpers/files.js";
import { catalogFixture, HEADER, FULL } from "./catalog-fixtures.js";

const fx = catalogFixture();

describe("objects made elsewhere", () => {
  it("are adopted when the file names them by the key pull derives; the others are left alone", async () => {
    const org = await fx.newOrg("adopt");
    const { sdk } = org.seller;
    await sdk.products.create({ name: "Hand Made", prices: [{ amountType: "fixed", priceAmount: 2500 }], metadata: { origin: "dashboard" } });
    await sdk.products.create({ name: "Other Thing", prices: [{ amountType: "free" }] });
    await sdk.benefits.create({ type: "custom", description: "Hand made perk", properties: {} });

    const pulled = await pullCatalog(org.client);
    expect(pulled.text).toBe(`${HEADER}
version: 1
meters: {}
custom_fields: {}
benefits:
  hand-made-perk:
    type: custom
    description: Hand made perk
products:
  hand-made:
    name: Hand Made
    prices:
      - amount_type: fixed
        price_currency: usd
        price_amount: 2500
    metadata:
      origin: dashboard
  other-thing:
    name: Other Thing
    prices:
      - amount_type: fixed
        price_currency: usd
        price_amount: 0
discounts: {}
`);
    // the fresh pull describes everything as it is: nothing to apply, adoption included
    const fresh = await fx.plan(org, parseCatalog(pulled.text));
    expect(renderPlan(fresh)).toBe("No changes: the catalog on the server matches the file.");
    expect(planExitCode(fresh)).toBe(0);

    // the file keeps one of the two products and changes its price
    const edited = pulled.text.replace(/ {2}other-thing:\n(?: {4}.*\n)+/, "").replace("price_amount: 2500", "price_amount: 2900");
    const p = await fx.plan(org, parseCatalog(edited));
    expect(renderPlan(p)).toBe(`~ adopt product "Hand Made" as hand-made: prices - fixed 2500 usd, + fixed 2900 usd

# 1 product not in the file, kept: "Other Thing" (--prune archives it)

Plan: 0 to create, 1 to update, 0 to replace, 0 to archive, 0 to delete.`);
    await applyPlan(org.client, p);
    const products = (await sdk.products.list({ limit: 100 })).result.items;
    expect(products.find((x) => x.name === "Hand Made")?.metadata).toEqual({ origin: "dashboard", [CATALOG_KEY]: "hand-made" });
    expect(products.find((x) => x.name === "Other Thing")).toMatchObject({ isArchived: false, metadata: {} });
    const again = await fx.plan(org, parseCatalog(edited));
    expect(again.changes).toEqual([]);
    expect(again.notes).toEqual([`1 product not in the file, kept: "Other Thing" (--prune archives it)`]);

    // with --prune the dropped product is archived (and the benefit made elsewhere is never deleted)
    const pruned = await fx.plan(org, parseCatalog(edited), { prune: true });
    expect(renderPlan(pruned)).toBe(`- archive product "Other Thing"

Plan: 0 to create, 0 to update, 0 to replace, 1 to archive, 0 to delete.`);
    await applyPlan(org.client, pruned);
    const after = (await sdk.products.list({ limit: 100, isArchived: true })).result.items;
    expect(after.map((x) => x.name)).toEqual(["Other Thing"]);
    expect((await sdk.benefits.list({ limit: 100 })).result.items.map((b) => b.description)).toEqual(["Hand made perk"]);
    expect((await fx.plan(org, parseCatalog(edited), { prune: true })).changes).toEqual([]);
  });
});

describe("changes the server can't make in place, and --prune", () => {
  it("replaces a product whose interval changes and a discount whose type changes; prunes only when asked", async () => {
    const org = await fx.newOrg("replace");
    const base = parseCatalog(FULL);
    await applyPlan(org.client, await fx.plan(org, base));
    const edited = FULL.replace("    name: Pro Yearly\n    recurring_interval: year\n", "    name: Pro Yearly\n    recurring_interval: month\n    recurring_interval_count: 12\n")
      .replace("    type: percentage\n    basis_points: 2500\n", "    type: fixed\n    amount: 300\n")
      .replace("    type: checkbox\n    name: Accept the terms\n", "    type: text\n    name: Accept the terms\n")
      .replace(/ {2}support:\n(?: {4}.*\n)+/, "")
      .replaceAll("benefits: [support]", "benefits: []")
      .replace("benefits: [support, credits, license]", "benefits: [credits, license]");
    const desired = parseCatalog(edited);
    const p = await fx.plan(org, desired);
    expect(renderPlan(p)).toBe(`-/+ replace custom field "Accept the terms" (deletes the old one: type can't change): type "checkbox" → "text"
~ update product "Starter":
    benefits [support] → []
    custom_fields [company (required), terms (replaced)] → [company (required), terms]
~ update product "Pro Monthly": benefits [support, credits, license] → [credits, license]
-/+ replace product "Pro Yearly" (archives the old one: recurring_interval and recurring_interval_count can't change):
    recurring_interval "year" → "month"
    recurring_interval_count 1 → 12
-/+ replace discount "Loyal customers" (deletes the old one: type and duration can't change):
    type "percentage" → "fixed"
    amount none → 300
    currency none → "usd"
    amounts none → {"usd":300}
    basis_points 2500 → none

# benefit "Priority support" (support) is no longer in the file: kept (--prune deletes it)

Plan: 0 to create, 2 to update, 3 to replace, 0 to archive, 0 to delete.`);
    await applyPlan(org.client, p);
    const after = await fx.plan(org, desired);
    expect(after.changes).toEqual([]);
    const products = (await org.seller.sdk.products.list({ limit: 100 })).result.items.filter((x) => x.name === "Pro Yearly");
    expect(products.map((x) => [x.isArchived, x.recurringInterval, x.metadata[CATALOG_KEY] ?? null]).sort()).toEqual([
      [false, "month", "pro-yearly"],
      [true, "year", null],
    ]);
    // the discount restricted to products keeps pointing at live ones; Launch was restricted to two unchanged products
    const pruned = await fx.plan(org, desired, { prune: true });
    expect(renderPlan(pruned)).toBe(`- delete benefit "Priority support"

Plan: 0 to create, 0 to update, 0 to replace, 0 to archive, 1 to delete.`);
    await applyPlan(org.client, pruned);
    expect((await fx.plan(org, desired, { prune: true })).changes).toEqual([]);
    expect((await org.seller.sdk.benefits.list({ limit: 100 })).result.items.map((b) => b.description).sort()).toEqual([
      "10k API calls a month",
      "A license key",
    ]);
  });

  it("moves discounts restricted to a replaced product to the new one", async () => {
    const org = await fx.newOrg("moves");
    const file = (interval: string) => `version: 1
products:
  pro:
    name: Pro
    recurring_interval: ${interval}
    prices: [{ amount_type: fixed, price_amount: 1000 }]
discounts:
  intro:
    name: Intro
    type: percentage
    basis_points: 5000
    duration: once
    products: [pro]
`;
    await applyPlan(org.client, await fx.plan(org, parseCatalog(file("month"))));
    const p = await fx.plan(org, parseCatalog(file("year")));
    expect(renderPlan(p)).toBe(`-/+ replace product "Pro" (archives the old one: recurring_interval and recurring_interval_count can't change): recurring_interval "month" → "year"
~ update discount "Intro": products [pro (replaced)] → [pro]

Plan: 0 to create, 1 to update, 1 to replace, 0 to archive, 0 to delete.`);
    await applyPlan(org.client, p);
    expect((await fx.plan(org, parseCatalog(file("year")))).changes).toEqual([]);
    const intro = (await org.seller.sdk.discounts.list({})).result.items[0];
    expect(intro?.products.map((x) => [x.recurringInterval, x.isArchived])).toEqual([["year", false]]);
  });
});

describe("archived objects the file still names", () => {
  it("stay in the file marked archived, and pull writes them back", async () => {
    const org = await fx.newOrg("archived");
    const text = (archived: boolean) => `version: 1
meters:
  calls:
    name: Calls
    filter: { conjunction: and, clauses: [{ property: name, operator: eq, value: call }] }
    aggregation: { func: count }
products:
  old:
    name: Old plan
    recurring_interval: month
    prices:
      - { amount_type: fixed, price_amount: 900 }
      - { amount_type: metered_unit, meter: calls, unit_amount: 2 }${archived ? "\n    archived: true" : ""}
discounts:
  old-customers:
    name: Old customers
    type: percentage
    basis_points: 1000
    duration: forever
    products: [old]
`;
    await applyPlan(org.client, await fx.plan(org, parseCatalog(text(false))));
    const p = await fx.plan(org, parseCatalog(text(true)));
    expect(renderPlan(p)).toBe(`~ update product "Old plan": archived false → true

Plan: 0 to create, 1 to update, 0 to replace, 0 to archive, 0 to delete.`);
    await applyPlan(org.client, p);
    const pulled = await pullCatalog(org.client);
    expect(parseCatalog(pulled.text)).toEqual(parseCatalog(text(true)));
    expect((await fx.plan(org, parseCatalog(pulled.text))).changes).toEqual([]);
  });
});

describe("medias and downloadables", () => {
  it("are written by file id and round-trip", async () => {
    const org = await fx.newOrg("medias");
    const cover = await uploadFile(org.seller.sdk, "cover.png", Buffer.from("png bytes"));
    const ebook = await uploadFile(org.seller.sdk, "book.pdf", Buffer.from("pdf bytes"), "downloadable");
    const text = `version: 1
benefits:
  ebook:
    type: downloadables
    description: The e-book
    properties: { files: [${ebook.id}] }
products:
  book:
    name: The Book
    prices: [{ amount_type: fixed, price_amount: 1500 }]
    benefits: [ebook]
    medias: [${cover.id}]
`;
    await applyPlan(org.client, await fx.plan(org, parseCatalog(text)));
    expect((await fx.plan(org, parseCatalog(text))).changes).toEqual([]);
    const pulled = await pullCatalog(org.client);
    expect(parseCatalog(pulled.text)).toEqual(parseCatalog(text));
    expect(pulled.text).toContain(`    medias: [${cover.id}]\n`);
  });
});
