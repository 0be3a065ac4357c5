// Catalog as code (cli/catalog): pull, plan and apply against the real server through the Polar SDK, with the
// organization owner's session token. Every price kind, benefits, discounts, meters and custom fields; edits
// planned field by field; a run that stops midway converges when run again; file errors with their lines.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { PolarCore } from "@polar-sh/sdk/core.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyPlan, ApplyError } from "../../cli/catalog/apply.js";
import { CatalogFileError, parseCatalog } from "../../cli/catalog/file.js";
import { CATALOG_KEY, type Catalog } from "../../cli/catalog/model.js";
import { planCatalog, planExitCode, renderPlan, type Plan, type PlanOptions } from "../../cli/catalog/plan.js";
import { pullCatalog } from "../../cli/catalog/pull.js";
import { catalogClient, fetchServerCatalog, type CatalogClient } from "../../cli/catalog/server.js";
import { uploadFile } from "../helpers/files.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { parseJson, spawnTillInTerminal, tempConfigDir, terminal, till, type TillOptions } from "./till.js";

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => server?.close());

interface Org {
  seller: Seller;
  client: CatalogClient;
}

async function newOrg(tag: string): Promise<Org> {
  const seller = await createSeller(server, tag);
  return { seller, client: catalogClient(new PolarCore({ accessToken: seller.token, serverURL: server.url })) };
}

async function plan(org: Org, desired: Catalog, opts: PlanOptions = {}): Promise<Plan> {
  return planCatalog(desired, await fetchServerCatalog(org.client), opts);
}

const HEADER = `# The catalog of a till organization: meters, custom fields, benefits, products and discounts.
# Entries are identified by their key (written to the server objects' metadata as till_catalog_key).
# Amounts are in minor units (1000 usd = $10.00). Check changes with \`till catalog plan -f <file>\`,
# then make them with \`till catalog apply -f <file>\`.
`;

/** Every kind of price, benefit, custom field and discount the catalog covers. */
const FULL = `version: 1
meters:
  api-calls:
    name: API calls
    filter:
      conjunction: and
      clauses:
        - { property: name, operator: eq, value: api.call }
    aggregation: { func: count }
  tokens:
    name: Tokens
    unit: custom
    custom_label: tokens
    custom_multiplier: 1000
    filter:
      conjunction: or
      clauses:
        - { property: name, operator: eq, value: llm.prompt }
        - conjunction: and
          clauses:
            - { property: name, operator: eq, value: llm.completion }
            - { property: metadata.model, operator: like, value: gpt }
    aggregation: { func: sum, property: metadata.tokens }
custom_fields:
  company:
    type: text
    name: Company
    properties: { form_label: Your company, max_length: 100 }
  seats-wanted:
    type: number
    name: Seats wanted
    properties: { ge: 1, le: 500 }
  size:
    type: select
    name: Team size
    slug: team_size
    properties:
      options:
        - { value: small, label: "1-10" }
        - { value: large, label: "11+" }
  terms:
    type: checkbox
    name: Accept the terms
benefits:
  support:
    type: custom
    description: Priority support
    properties: { note: Write to support@example.com }
  license:
    type: license_keys
    description: A license key
    properties:
      prefix: PRO
      expires: { ttl: 1, timeframe: year }
      activations: { limit: 3, enable_customer_admin: true }
      limit_usage: 1000
  credits:
    type: meter_credit
    description: 10k API calls a month
    properties: { meter: api-calls, units: 10000, rollover: true }
products:
  starter:
    name: Starter
    description: Everything to get going.
    prices:
      - { amount_type: fixed, price_amount: 1900 }
      - { amount_type: fixed, price_currency: eur, price_amount: 1700 }
    benefits: [support]
    custom_fields:
      - { field: company, required: true }
      - terms
    metadata: { tier: 1, featured: true }
  pwyw:
    name: Pay what you want
    visibility: private
    prices:
      - { amount_type: custom, minimum_amount: 500, maximum_amount: 10000, preset_amount: 1500 }
  freebie:
    name: Free sample
    prices:
      - { amount_type: free }
  pro-monthly:
    name: Pro Monthly
    recurring_interval: month
    trial_interval: day
    trial_interval_count: 14
    prices:
      - { amount_type: fixed, price_amount: 1000 }
      - { amount_type: metered_unit, meter: api-calls, unit_amount: "0.05", cap_amount: 5000 }
      - { amount_type: metered_unit, meter: tokens, unit_amount: 0.001 }
    benefits: [support, credits, license]
    custom_fields:
      - { field: size, required: false }
  pro-yearly:
    name: Pro Yearly
    recurring_interval: year
    prices:
      - { amount_type: fixed, price_amount: 10000 }
    benefits: [license]
  team:
    name: Team
    recurring_interval: month
    recurring_interval_count: 3
    prices:
      - amount_type: seat_based
        seat_tiers:
          tiers:
            - { min_seats: 6, price_per_seat: 800 }
            - { min_seats: 1, max_seats: 5, price_per_seat: 1000 }
    custom_fields: [seats-wanted]
discounts:
  launch:
    name: Launch
    code: LAUNCH
    type: fixed
    amount: 500
    duration: once
    products: [starter, pro-monthly]
  loyal:
    name: Loyal customers
    type: percentage
    basis_points: 2500
    duration: repeating
    duration_in_months: 3
    metadata: { campaign: retention }
  summer:
    name: Summer sale
    code: SUMMER25
    type: percentage
    basis_points: 1000
    duration: forever
    max_redemptions: 100
    starts_at: 2030-06-01T00:00:00Z
    ends_at: "2030-09-01T00:00:00+02:00"
`;

describe("pull", () => {
  it("an empty organization: an empty catalog, the same bytes every time", async () => {
    const org = await newOrg("empty");
    const first = await pullCatalog(org.client);
    expect(first.text).toBe(`${HEADER}
version: 1
meters: {}
custom_fields: {}
benefits: {}
products: {}
discounts: {}
`);
    expect(first.warnings).toEqual([]);
    expect((await pullCatalog(org.client)).text).toBe(first.text);
    expect(planExitCode(await plan(org, parseCatalog(first.text)))).toBe(0);
  });
});

describe("plan and apply a whole catalog", () => {
  let org: Org;
  const desired = parseCatalog(FULL);

  beforeAll(async () => {
    org = await newOrg("catalog");
  });

  it("plans every entry as a create, in dependency order; exit code 2", async () => {
    const p = await plan(org, desired);
    expect(renderPlan(p)).toBe(`+ create meter "API calls"
+ create meter "Tokens"
+ create custom field "Company" (text)
+ create custom field "Seats wanted" (number)
+ create custom field "Team size" (select)
+ create custom field "Accept the terms" (checkbox)
+ create benefit "Priority support" (custom)
+ create benefit "A license key" (license_keys)
+ create benefit "10k API calls a month" (meter_credit)
+ create product "Starter" (2 prices, 1 benefit)
+ create product "Pay what you want" (1 price)
+ create product "Free sample" (1 price)
+ create product "Pro Monthly" (3 prices, 3 benefits)
+ create product "Pro Yearly" (1 price, 1 benefit)
+ create product "Team" (1 price)
+ create discount "Launch" (500 usd once, code LAUNCH)
+ create discount "Loyal customers" (25% repeating)
+ create discount "Summer sale" (10% forever, code SUMMER25)

Plan: 18 to create, 0 to update, 0 to replace, 0 to archive, 0 to delete.`);
    expect(planExitCode(p)).toBe(2);
  });

  it("applies it: every object carries its key, references resolve to the new ids", async () => {
    const p = await plan(org, desired);
    const applied = await applyPlan(org.client, p);
    expect(applied.map((a) => `${a.action} ${a.kind} ${a.key}`)).toEqual(p.changes.map((c) => `create ${c.kind} ${c.key}`));
    const { sdk } = org.seller;

    const products = (await sdk.products.list({ limit: 100 })).result.items;
    const byKey = new Map(products.map((p) => [p.metadata[CATALOG_KEY], p]));
    expect([...byKey.keys()].sort()).toEqual(["freebie", "pro-monthly", "pro-yearly", "pwyw", "starter", "team"]);
    const pro = byKey.get("pro-monthly");
    const meters = (await sdk.meters.list({ limit: 100 })).result.items;
    const apiCalls = meters.find((m) => m.metadata[CATALOG_KEY] === "api-calls");
    expect(pro).toMatchObject({ recurringInterval: "month", trialInterval: "day", trialIntervalCount: 14 });
    expect(pro?.prices.map((x) => x.amountType).sort()).toEqual(["fixed", "metered_unit", "metered_unit"]);
    expect(pro?.prices.find((x) => x.amountType === "metered_unit" && x.capAmount === 5000)).toMatchObject({
      meterId: apiCalls?.id,
      unitAmount: "0.05",
    });
    expect(pro?.benefits.map((b) => b.metadata[CATALOG_KEY])).toEqual(["support", "credits", "license"]);
    const credits = pro?.benefits.find((b) => b.type === "meter_credit");
    expect(credits?.properties).toEqual({ units: 10000, rollover: true, meterId: apiCalls?.id });
    expect(byKey.get("starter")?.metadata).toEqual({ tier: 1, featured: true, [CATALOG_KEY]: "starter" });
    expect(byKey.get("starter")?.attachedCustomFields.map((a) => [a.customField.slug, a.required])).toEqual([
      ["company", true],
      ["terms", false],
    ]);
    expect(byKey.get("team")).toMatchObject({ recurringInterval: "month", recurringIntervalCount: 3 });

    const discounts = (await sdk.discounts.list({ limit: 100 })).result.items;
    const launch = discounts.find((d) => d.metadata[CATALOG_KEY] === "launch");
    expect(launch?.products.map((x) => x.id).sort()).toEqual([byKey.get("starter")?.id, pro?.id].sort());
    const summer = discounts.find((d) => d.code === "SUMMER25");
    expect(summer?.endsAt?.toISOString()).toBe("2030-08-31T22:00:00.000Z");
  });

  it("then plans nothing: exit code 0", async () => {
    const p = await plan(org, desired);
    expect(p.changes).toEqual([]);
    expect(p.notes).toEqual([]);
    expect(planExitCode(p)).toBe(0);
    expect(renderPlan(p)).toBe("No changes: the catalog on the server matches the file.");
  });

  it("pull round-trips to the same catalog, byte for byte the same each time", async () => {
    const first = await pullCatalog(org.client);
    expect(first.warnings).toEqual([]);
    expect(parseCatalog(first.text)).toEqual(desired);
    expect((await pullCatalog(org.client)).text).toBe(first.text);
    // the canonical form: sorted keys, defaults left out, flow lists of keys
    expect(first.text).toContain(`  pro-monthly:
    name: Pro Monthly
    recurring_interval: month
    trial_interval: day
    trial_interval_count: 14
    prices:
      - amount_type: fixed
        price_currency: usd
        price_amount: 1000
      - amount_type: metered_unit
        price_currency: usd
        meter: api-calls
        unit_amount: "0.05"
        cap_amount: 5000
      - amount_type: metered_unit
        price_currency: usd
        meter: tokens
        unit_amount: "0.001"
    benefits: [support, credits, license]
    custom_fields:
      - field: size
        required: false
`);
  });

  it("edits plan exactly what changed: a price amount, a rename, a new discount, a removed product", async () => {
    const edited = FULL.replace("{ amount_type: fixed, price_amount: 1000 }", "{ amount_type: fixed, price_amount: 1200 }")
      .replace("    name: Team\n", "    name: Teams\n")
      .replace(/ {2}pwyw:\n(?: {4}.*\n)+/, "")
      .concat(`  welcome:
    name: Welcome
    code: WELCOME
    type: fixed
    amount: 700
    currency: eur
    duration: once
`);
    const before = (await org.seller.sdk.products.list({ limit: 100 })).result.items.find((p) => p.metadata[CATALOG_KEY] === "pro-monthly");
    const p = await plan(org, parseCatalog(edited));
    expect(renderPlan(p)).toBe(`~ update product "Pro Monthly": prices - fixed 1000 usd, + fixed 1200 usd
~ update product "Teams": name "Team" → "Teams"
+ create discount "Welcome" (700 eur once, code WELCOME)
- archive product "Pay what you want"

Plan: 1 to create, 2 to update, 0 to replace, 1 to archive, 0 to delete.`);
    await applyPlan(org.client, p);

    // the metered prices were kept (same ids), the fixed one replaced: the old one archived by the server
    const after = await org.seller.sdk.products.get({ id: before?.id ?? "" });
    const metered = (ps: typeof after.prices) => ps.filter((x) => x.amountType === "metered_unit").map((x) => x.id).sort();
    expect(metered(after.prices)).toEqual(metered(before?.prices ?? []));
    expect(after.prices.filter((x) => x.amountType === "fixed").map((x) => "priceAmount" in x && x.priceAmount)).toEqual([1200]);
    const pwyw = (await org.seller.sdk.products.list({ limit: 100 })).result.items.find((x) => x.metadata[CATALOG_KEY] === "pwyw");
    expect(pwyw?.isArchived).toBe(true);

    expect((await plan(org, parseCatalog(edited))).changes).toEqual([]);
    expect(await applyPlan(org.client, await plan(org, parseCatalog(edited)))).toEqual([]);
  });

  it("listing an archived product again brings it back", async () => {
    const p = await plan(org, desired);
    expect(renderPlan(p)).toBe(`~ update product "Pay what you want": archived true → false
~ update product "Pro Monthly": prices - fixed 1200 usd, + fixed 1000 usd
~ update product "Team": name "Teams" → "Team"

# discount "Welcome" (welcome) is no longer in the file: kept (--prune deletes it)

Plan: 0 to create, 3 to update, 0 to replace, 0 to archive, 0 to delete.`);
    await applyPlan(org.client, p);
    const again = await plan(org, desired);
    expect(again.notes).toEqual([`discount "Welcome" (welcome) is no longer in the file: kept (--prune deletes it)`]);
    expect(again.changes).toEqual([]);
  });
});

describe("a run that stops midway", () => {
  it("keeps what it made; running again plans only the rest and converges", async () => {
    const org = await newOrg("midway");
    const desired = parseCatalog(FULL);
    const p = await plan(org, desired);
    let started = 0;
    const err = await applyPlan(org.client, p, {
      onChange: (_c, stage) => {
        if (stage === "start" && ++started === 10) throw new Error("killed");
      },
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApplyError);
    expect((err as ApplyError).message).toBe(`+ create product "Starter" (2 prices, 1 benefit) failed: killed`);
    expect((err as ApplyError).applied).toHaveLength(9);

    const rest = await plan(org, desired);
    expect(rest.changes.map((c) => `${c.action} ${c.key}`)).toEqual(p.changes.slice(9).map((c) => `create ${c.key}`));
    await applyPlan(org.client, rest);
    expect((await plan(org, desired)).changes).toEqual([]);
  });

  it("a refused call stops the run with the server's message; fixing the cause converges", async () => {
    const org = await newOrg("refused");
    // a discount made elsewhere already uses the code the file wants
    const other = await org.seller.sdk.discounts.create({ name: "Other", code: "LAUNCH", type: "percentage", basisPoints: 100, duration: "once" });
    const desired = parseCatalog(FULL);
    const p = await plan(org, desired);
    expect(p.notes).toEqual([`discount "Other" matches launch by name but its type differs: left as is, launch is created`]);
    const err = (await applyPlan(org.client, p).catch((e: unknown) => e)) as ApplyError;
    expect(err).toBeInstanceOf(ApplyError);
    expect(err.message).toMatch(/^\+ create discount "Launch" \(500 usd once, code LAUNCH\) failed: code: /);
    // the server refused a value of the file: invalid input
    expect(err.exitCode).toBe(2);
    expect(err.applied.map((a) => a.key)).toEqual(p.changes.slice(0, 15).map((c) => c.key));

    await org.seller.sdk.discounts.delete({ id: other.id });
    const rest = await plan(org, desired);
    expect(renderPlan(rest)).toBe(`+ create discount "Launch" (500 usd once, code LAUNCH)
+ create discount "Loyal customers" (25% repeating)
+ create discount "Summer sale" (10% forever, code SUMMER25)

Plan: 3 to create, 0 to update, 0 to replace, 0 to archive, 0 to delete.`);
    await applyPlan(org.client, rest);
    expect((await plan(org, desired)).changes).toEqual([]);
  });
});

describe("objects made elsewhere", () => {
  it("are adopted when the file names them by the key pull derives; the others are left alone", async () => {
    const org = await newOrg("adopt");
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
    const fresh = await plan(org, parseCatalog(pulled.text));
    expect(renderPlan(fresh)).toBe("No changes: the catalog on the server matches the file.");
    expect(planExitCode(fresh)).toBe(0);

    // the file keeps one of the two products and changes its price
    const edited = pulled.text.replace(/ {2}other-thing:\n(?: {4}.*\n)+/, "").replace("price_amount: 2500", "price_amount: 2900");
    const p = await plan(org, parseCatalog(edited));
    expect(renderPlan(p)).toBe(`~ adopt product "Hand Made" as hand-made: prices - fixed 2500 usd, + fixed 2900 usd

# 1 product not in the file, kept: "Other Thing" (--prune archives it)

Plan: 0 to create, 1 to update, 0 to replace, 0 to archive, 0 to delete.`);
    await applyPlan(org.client, p);
    const products = (await sdk.products.list({ limit: 100 })).result.items;
    expect(products.find((x) => x.name === "Hand Made")?.metadata).toEqual({ origin: "dashboard", [CATALOG_KEY]: "hand-made" });
    expect(products.find((x) => x.name === "Other Thing")).toMatchObject({ isArchived: false, metadata: {} });
    const again = await plan(org, parseCatalog(edited));
    expect(again.changes).toEqual([]);
    expect(again.notes).toEqual([`1 product not in the file, kept: "Other Thing" (--prune archives it)`]);

    // with --prune the dropped product is archived (and the benefit made elsewhere is never deleted)
    const pruned = await plan(org, parseCatalog(edited), { prune: true });
    expect(renderPlan(pruned)).toBe(`- archive product "Other Thing"

Plan: 0 to create, 0 to update, 0 to replace, 1 to archive, 0 to delete.`);
    await applyPlan(org.client, pruned);
    const after = (await sdk.products.list({ limit: 100, isArchived: true })).result.items;
    expect(after.map((x) => x.name)).toEqual(["Other Thing"]);
    expect((await sdk.benefits.list({ limit: 100 })).result.items.map((b) => b.description)).toEqual(["Hand made perk"]);
    expect((await plan(org, parseCatalog(edited), { prune: true })).changes).toEqual([]);
  });
});

describe("changes the server can't make in place, and --prune", () => {
  it("replaces a product whose interval changes and a discount whose type changes; prunes only when asked", async () => {
    const org = await newOrg("replace");
    const base = parseCatalog(FULL);
    await applyPlan(org.client, await plan(org, base));
    const edited = FULL.replace("    name: Pro Yearly\n    recurring_interval: year\n", "    name: Pro Yearly\n    recurring_interval: month\n    recurring_interval_count: 12\n")
      .replace("    type: percentage\n    basis_points: 2500\n", "    type: fixed\n    amount: 300\n")
      .replace("    type: checkbox\n    name: Accept the terms\n", "    type: text\n    name: Accept the terms\n")
      .replace(/ {2}support:\n(?: {4}.*\n)+/, "")
      .replaceAll("benefits: [support]", "benefits: []")
      .replace("benefits: [support, credits, license]", "benefits: [credits, license]");
    const desired = parseCatalog(edited);
    const p = await plan(org, desired);
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
    const after = await plan(org, desired);
    expect(after.changes).toEqual([]);
    const products = (await org.seller.sdk.products.list({ limit: 100 })).result.items.filter((x) => x.name === "Pro Yearly");
    expect(products.map((x) => [x.isArchived, x.recurringInterval, x.metadata[CATALOG_KEY] ?? null]).sort()).toEqual([
      [false, "month", "pro-yearly"],
      [true, "year", null],
    ]);
    // the discount restricted to products keeps pointing at live ones; Launch was restricted to two unchanged products
    const pruned = await plan(org, desired, { prune: true });
    expect(renderPlan(pruned)).toBe(`- delete benefit "Priority support"

Plan: 0 to create, 0 to update, 0 to replace, 0 to archive, 1 to delete.`);
    await applyPlan(org.client, pruned);
    expect((await plan(org, desired, { prune: true })).changes).toEqual([]);
    expect((await org.seller.sdk.benefits.list({ limit: 100 })).result.items.map((b) => b.description).sort()).toEqual([
      "10k API calls a month",
      "A license key",
    ]);
  });

  it("moves discounts restricted to a replaced product to the new one", async () => {
    const org = await newOrg("moves");
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
    await applyPlan(org.client, await plan(org, parseCatalog(file("month"))));
    const p = await plan(org, parseCatalog(file("year")));
    expect(renderPlan(p)).toBe(`-/+ replace product "Pro" (archives the old one: recurring_interval and recurring_interval_count can't change): recurring_interval "month" → "year"
~ update discount "Intro": products [pro (replaced)] → [pro]

Plan: 0 to create, 1 to update, 1 to replace, 0 to archive, 0 to delete.`);
    await applyPlan(org.client, p);
    expect((await plan(org, parseCatalog(file("year")))).changes).toEqual([]);
    const intro = (await org.seller.sdk.discounts.list({})).result.items[0];
    expect(intro?.products.map((x) => [x.recurringInterval, x.isArchived])).toEqual([["year", false]]);
  });
});

describe("archived objects the file still names", () => {
  it("stay in the file marked archived, and pull writes them back", async () => {
    const org = await newOrg("archived");
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
    await applyPlan(org.client, await plan(org, parseCatalog(text(false))));
    const p = await plan(org, parseCatalog(text(true)));
    expect(renderPlan(p)).toBe(`~ update product "Old plan": archived false → true

Plan: 0 to create, 1 to update, 0 to replace, 0 to archive, 0 to delete.`);
    await applyPlan(org.client, p);
    const pulled = await pullCatalog(org.client);
    expect(parseCatalog(pulled.text)).toEqual(parseCatalog(text(true)));
    expect((await plan(org, parseCatalog(pulled.text))).changes).toEqual([]);
  });
});

describe("medias and downloadables", () => {
  it("are written by file id and round-trip", async () => {
    const org = await newOrg("medias");
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
    await applyPlan(org.client, await plan(org, parseCatalog(text)));
    expect((await plan(org, parseCatalog(text))).changes).toEqual([]);
    const pulled = await pullCatalog(org.client);
    expect(parseCatalog(pulled.text)).toEqual(parseCatalog(text));
    expect(pulled.text).toContain(`    medias: [${cover.id}]\n`);
  });
});

describe("the file", () => {
  const errors = (text: string) => {
    try {
      parseCatalog(text, "till.yaml");
    } catch (err) {
      if (err instanceof CatalogFileError) return err.message.split("\n");
      throw err;
    }
    return [];
  };

  it("reports each problem as file:line: path: what is wrong", () => {
    expect(
      errors(`version: 1
products:
  pro:
    name: Pro
    prise: 3
    prices:
      - amount_type: fixed
        price_amount: 10
      - amount_type: metered_unit
        meter: calls
        unit_amount: "0"
  Bad Key:
    name: Bad
    prices: [{ amount_type: free }]
discounts:
  d:
    name: D
    type: percent
    duration: once
`),
    ).toEqual([
      "till.yaml:5: products.pro.prise: unknown field",
      "till.yaml:8: products.pro.prices[0].price_amount: expected 0 or at least 50 (minor units)",
      "till.yaml:9: products.pro.prices[1]: metered prices need a recurring product",
      "till.yaml:11: products.pro.prices[1].unit_amount: expected a positive decimal with at most 5 digits before and 12 after the point",
      "till.yaml:12: products.Bad Key: a key is 1 to 64 characters: lower-case letters, digits, '.', '_' or '-', starting with a letter or digit",
      "till.yaml:18: discounts.d.type: Invalid discriminator value. Expected 'fixed' | 'percentage'",
    ]);
  });

  it("references must name entries of the same file", () => {
    expect(
      errors(`version: 1
products:
  pro:
    name: Pro
    recurring_interval: month
    prices:
      - { amount_type: metered_unit, meter: calls, unit_amount: 1 }
    benefits: [support]
discounts:
  launch:
    name: Launch
    type: fixed
    amount: 500
    duration: once
    products: [pro, nope]
`),
    ).toEqual([
      'till.yaml:6: products.pro.prices: no meter "calls" in meters',
      'till.yaml:8: products.pro.benefits[0]: no benefit "support" in benefits',
      'till.yaml:15: discounts.launch.products: no product "nope" in products',
    ]);
  });

  it("rules of products and discounts, YAML syntax, the catalog key in metadata, an empty file", () => {
    expect(
      errors(`version: 1
products:
  one-time:
    name: One time
    trial_interval: day
    trial_interval_count: 7
    prices:
      - { amount_type: fixed, price_amount: 1000 }
      - { amount_type: custom, price_currency: usd, minimum_amount: 2000, preset_amount: 1000 }
    metadata: { till_catalog_key: x }
discounts:
  r:
    name: R
    type: percentage
    basis_points: 100
    duration: repeating
`),
    ).toEqual([
      "till.yaml:5: products.one-time.trial_interval: trials are only available on recurring products",
      "till.yaml:9: products.one-time.prices[1].preset_amount: must be at least minimum_amount",
      "till.yaml:9: products.one-time.prices[1]: only one fixed, custom, free or seat_based price per currency (usd)",
      "till.yaml:10: products.one-time.metadata: till_catalog_key is written by till (it holds the entry's key): remove it",
      "till.yaml:12: discounts.r.duration_in_months: required for a repeating discount",
    ]);
    expect(errors("version: 1\nproducts:\n  a: [\n")[0]).toMatch(/^till\.yaml:4: /);
    expect(errors("version: 1\nmeters: {}\nmeters: {}\n")).toEqual(["till.yaml:3: Map keys must be unique"]);
    expect(errors("")).toEqual(['till.yaml: the file is empty; start with "version: 1"']);
    expect(errors("version: 2\n")).toEqual(["till.yaml:1: version: expected version: 1"]);
  });

  it("JSON is accepted too", () => {
    const catalog = parseCatalog(JSON.stringify({ version: 1, products: { p: { name: "Plain", prices: [{ amount_type: "free" }] } } }), "c.json");
    expect(catalog.products.get("p")).toMatchObject({ name: "Plain", visibility: "public", recurring_interval: null });
  });
});

describe("till catalog pull, then plan, in a folder (the default file)", () => {
  it("pull on a terminal writes till.yaml, plan reads it: no changes; a dropped product is named, --prune archives it", { timeout: 120_000 }, async () => {
    const org = await newOrg("default-file");
    const { sdk } = org.seller;
    await sdk.products.create({ name: "Kept", prices: [{ amountType: "fixed", priceAmount: 1500 }] });
    await sdk.products.create({ name: "Dropped", prices: [{ amountType: "fixed", priceAmount: 900 }] });
    const cwd = mkdtempSync(path.join(os.tmpdir(), "till-catalog-cwd-"));
    const opts: TillOptions = { configDir: tempConfigDir(), cwd, env: { TILL_API_KEY: await org.seller.createKey(), TILL_SERVER: server.url } };

    const pulled = await till(["catalog", "pull"], { ...opts, env: { ...opts.env, TILL_FORCE_TTY: "1", NO_COLOR: "1" } });
    expect(pulled.exitCode, pulled.stderr).toBe(0);
    expect(pulled.stdout).toBe("Wrote till.yaml: 0 meters, 0 custom fields, 0 benefits, 2 products, 0 discounts.\n");
    const text = readFileSync(path.join(cwd, "till.yaml"), "utf8");
    expect(text).toContain("  dropped:\n    name: Dropped\n");

    expect(await till(["catalog", "plan"], opts)).toEqual({ exitCode: 0, stderr: "", stdout: "No changes: the catalog on the server matches the file.\n" });

    writeFileSync(path.join(cwd, "till.yaml"), text.replace(/ {2}dropped:\n(?: {4}.*\n)+/, ""));
    expect(await till(["catalog", "plan"], opts)).toEqual({
      exitCode: 0,
      stderr: "",
      stdout: `# 1 product not in the file, kept: "Dropped" (--prune archives it)\n\nNo changes: the catalog on the server matches the file.\n`,
    });
    expect(await till(["catalog", "plan", "--prune"], opts)).toEqual({
      exitCode: 2,
      stderr: "",
      stdout: `- archive product "Dropped"\n\nPlan: 0 to create, 0 to update, 0 to replace, 1 to archive, 0 to delete.\n`,
    });

    const elsewhere = await till(["catalog", "plan"], { ...opts, cwd: os.tmpdir() });
    expect(elsewhere.exitCode).toBe(2);
    expect(elsewhere.stderr).toBe("error: -f: there is no till.yaml here\nhint: write it with `till catalog pull`, or name another file with -f\n");
  });
});

describe("till catalog (the command)", () => {
  const SMALL = `version: 1
benefits:
  support:
    type: custom
    description: Priority support
products:
  pro:
    name: Pro
    recurring_interval: month
    prices: [{ amount_type: fixed, price_amount: 1000 }]
    benefits: [support]
discounts:
  launch:
    name: Launch
    code: LAUNCH
    type: percentage
    basis_points: 2000
    duration: once
    products: [pro]
`;
  let dir: string;
  let opts: TillOptions;
  let org: Org;
  /** The organization apply changes, as its messages name it. */
  let target: string;
  const file = (name: string) => path.join(dir, name);

  beforeAll(async () => {
    org = await newOrg("cli");
    dir = mkdtempSync(path.join(os.tmpdir(), "till-catalog-"));
    writeFileSync(file("till.yaml"), SMALL);
    opts = { configDir: tempConfigDir(), env: { TILL_API_KEY: await org.seller.createKey(), TILL_SERVER: server.url } };
    target = `${(await org.seller.sdk.organizations.get({ id: org.seller.organizationId })).name} (${org.seller.slug}), live`;
  });

  it("plan: the changes on stdout, exit 2; --json; apply without --yes and nobody to ask: exit 2 and a hint", async () => {
    const planned = await till(["catalog", "plan", "-f", file("till.yaml")], opts);
    expect(planned).toEqual({
      exitCode: 2,
      stderr: "",
      stdout: `+ create benefit "Priority support" (custom)
+ create product "Pro" (1 price, 1 benefit)
+ create discount "Launch" (20% once, code LAUNCH)

Plan: 3 to create, 0 to update, 0 to replace, 0 to archive, 0 to delete.
`,
    });
    const json = await till(["catalog", "plan", "-f", file("till.yaml"), "--json"], opts);
    expect(json.exitCode).toBe(2);
    expect(parseJson(json.stdout)).toEqual({
      changes: [
        { action: "create", kind: "benefit", section: "benefits", key: "support", name: "Priority support", id: null, adopt: false, fields: [] },
        { action: "create", kind: "product", section: "products", key: "pro", name: "Pro", id: null, adopt: false, fields: [] },
        { action: "create", kind: "discount", section: "discounts", key: "launch", name: "Launch", id: null, adopt: false, fields: [] },
      ],
      notes: [],
      counts: { create: 3, update: 0, replace: 0, archive: 0, delete: 0 },
    });

    const refused = await till(["catalog", "apply", "-f", file("till.yaml")], opts);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toBe(
      `error: apply needs confirmation: 3 changes planned to ${target} and nobody to ask\nhint: review them with \`till catalog plan -f ${file("till.yaml")}\`, then run \`till catalog apply -f ${file("till.yaml")} --yes\`\n`,
    );
    expect((await till(["catalog", "plan", "-f", file("till.yaml")], opts)).exitCode).toBe(2);
  });

  it("apply --yes makes the changes; then plan exits 0 and pull writes the same catalog", { timeout: 120_000 }, async () => {
    const applied = await till(["catalog", "apply", "-f", file("till.yaml"), "--yes", "--json"], opts);
    expect(applied.exitCode, applied.stderr).toBe(0);
    const body = parseJson<{ applied: Array<{ action: string; key: string; id: string }> }>(applied.stdout);
    expect(body.applied.map((a) => `${a.action} ${a.key}`)).toEqual(["create support", "create pro", "create launch"]);
    expect(body.applied.every((a) => /^[0-9a-f-]{36}$/.test(a.id))).toBe(true);

    const plain = await till(["catalog", "apply", "-f", file("till.yaml"), "--yes"], opts);
    expect(plain).toEqual({ exitCode: 0, stderr: "", stdout: "No changes: the catalog on the server matches the file.\n" });
    expect(await till(["catalog", "plan", "-f", file("till.yaml")], opts)).toEqual({
      exitCode: 0,
      stderr: "",
      stdout: "No changes: the catalog on the server matches the file.\n",
    });

    const pulled = await till(["catalog", "pull", "-o", file("pulled.yaml")], opts);
    expect(pulled).toEqual({ exitCode: 0, stderr: "", stdout: `Wrote ${file("pulled.yaml")}: 0 meters, 0 custom fields, 1 benefit, 1 product, 1 discount.\n` });
    expect(parseCatalog(readFileSync(file("pulled.yaml"), "utf8"))).toEqual(parseCatalog(SMALL));
    const stdout = await till(["catalog", "pull"], opts);
    expect(stdout.stdout).toBe(readFileSync(file("pulled.yaml"), "utf8"));
  });

  it("apply on a pipe: the plan and a summary on stdout, progress on stderr", async () => {
    writeFileSync(file("edited.yaml"), SMALL.replace("price_amount: 1000", "price_amount: 1500"));
    const r = await till(["catalog", "apply", "-f", file("edited.yaml"), "--yes"], opts);
    expect(r).toEqual({
      exitCode: 0,
      stdout: `~ update product "Pro": prices - fixed 1000 usd, + fixed 1500 usd

Plan: 0 to create, 1 to update, 0 to replace, 0 to archive, 0 to delete.
Applied 1 change to ${target}.
`,
      stderr: `✓ ~ update product "Pro": prices - fixed 1000 usd, + fixed 1500 usd\n`,
    });
  });

  it("apply names the organization and the mode it changes: a sandbox key changes the sandbox", async () => {
    const sandbox = { ...opts, env: { ...opts.env, TILL_API_KEY: await org.seller.createSandboxKey() } };
    const refused = await till(["catalog", "apply", "-f", file("till.yaml")], sandbox);
    expect(refused.stderr).toContain(`3 changes planned to ${target.replace(/, live$/, "").replace(`(${org.seller.slug})`, `(${org.seller.slug}-sandbox)`)}, sandbox and nobody to ask`);
    const r = await till(["catalog", "apply", "-f", file("till.yaml"), "--yes"], sandbox);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`\\nApplied 3 changes to .* \\(${org.seller.slug}-sandbox\\), sandbox\\.\\n$`));
  });

  it("at a terminal, apply asks first, naming the organization, the mode and the server; a no is exit 2, nothing changed", async () => {
    writeFileSync(file("asked.yaml"), SMALL.replace("price_amount: 1000", "price_amount: 1700"));
    const child = spawnTillInTerminal(["catalog", "apply", "-f", file("asked.yaml")], opts);
    const person = terminal(child);
    await person.waitFor(new RegExp(`Apply \\d+ changes? to ${escapeRegExp(target)} on ${escapeRegExp(server.url)}\\? \\[y/N\\] `));
    person.type("n\r");
    const r = await child;
    expect(r.exitCode, person.text()).toBe(2);
    expect(person.text()).toContain("Cancelled: nothing was changed.");
    expect((await till(["catalog", "plan", "-f", file("asked.yaml")], opts)).exitCode).toBe(2);
  });

  it("an invalid file: exit 2 (invalid input), every problem with its line", async () => {
    writeFileSync(file("bad.yaml"), "version: 1\nproducts:\n  pro:\n    name: Pro\n    prices: []\n");
    const r = await till(["catalog", "plan", "-f", file("bad.yaml")], opts);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toBe(
      `error: ${file("bad.yaml")} is not a valid catalog:\n${file("bad.yaml")}:5: products.pro.prices: a product has at least one price\nhint: \`till catalog pull\` writes a valid file to start from\n`,
    );
  });
});
