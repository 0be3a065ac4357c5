// Catalog as code (cli/catalog): pull, plan and apply against the real server through the Polar SDK, with the
// organization owner's session token. Every price kind, benefits, discounts, meters and custom fields; edits
// planned field by field; a run that stops midway converges when run again; file errors with their lines.
// What the server already holds: catalog-server-objects.test.ts; the `till catalog` command: catalog-command.test.ts.
import { beforeAll, describe, expect, it } from "vitest";
import { applyPlan, ApplyError } from "../../cli/catalog/apply.js";
import { CatalogFileError, parseCatalog } from "../../cli/catalog/file.js";
import { CATALOG_KEY } from "../../cli/catalog/model.js";
import { planExitCode, renderPlan } from "../../cli/catalog/plan.js";
import { pullCatalog } from "../../cli/catalog/pull.js";
import { catalogFixture, HEADER, FULL, type Org } from "./catalog-fixtures.js";

const fx = catalogFixture();

describe("pull", () => {
  it("an empty organization: an empty catalog, the same bytes every time", async () => {
    const org = await fx.newOrg("empty");
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
    expect(planExitCode(await fx.plan(org, parseCatalog(first.text)))).toBe(0);
  });
});

describe("plan and apply a whole catalog", () => {
  let org: Org;
  const desired = parseCatalog(FULL);

  beforeAll(async () => {
    org = await fx.newOrg("catalog");
  });

  it("plans every entry as a create, in dependency order; exit code 2", async () => {
    const p = await fx.plan(org, desired);
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
    const p = await fx.plan(org, desired);
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
    const p = await fx.plan(org, desired);
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
    const p = await fx.plan(org, parseCatalog(edited));
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

    expect((await fx.plan(org, parseCatalog(edited))).changes).toEqual([]);
    expect(await applyPlan(org.client, await fx.plan(org, parseCatalog(edited)))).toEqual([]);
  });

  it("listing an archived product again brings it back", async () => {
    const p = await fx.plan(org, desired);
    expect(renderPlan(p)).toBe(`~ update product "Pay what you want": archived true → false
~ update product "Pro Monthly": prices - fixed 1200 usd, + fixed 1000 usd
~ update product "Team": name "Teams" → "Team"

# discount "Welcome" (welcome) is no longer in the file: kept (--prune deletes it)

Plan: 0 to create, 3 to update, 0 to replace, 0 to archive, 0 to delete.`);
    await applyPlan(org.client, p);
    const again = await fx.plan(org, desired);
    expect(again.notes).toEqual([`discount "Welcome" (welcome) is no longer in the file: kept (--prune deletes it)`]);
    expect(again.changes).toEqual([]);
  });
});

describe("a run that stops midway", () => {
  it("keeps what it made; running again plans only the rest and converges", async () => {
    const org = await fx.newOrg("midway");
    const desired = parseCatalog(FULL);
    const p = await fx.plan(org, desired);
    let started = 0;
    const err = await applyPlan(org.client, p, {
      onChange: (_c, stage) => {
        if (stage === "start" && ++started === 10) throw new Error("killed");
      },
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApplyError);
    expect((err as ApplyError).message).toBe(`+ create product "Starter" (2 prices, 1 benefit) failed: killed`);
    expect((err as ApplyError).applied).toHaveLength(9);

    const rest = await fx.plan(org, desired);
    expect(rest.changes.map((c) => `${c.action} ${c.key}`)).toEqual(p.changes.slice(9).map((c) => `create ${c.key}`));
    await applyPlan(org.client, rest);
    expect((await fx.plan(org, desired)).changes).toEqual([]);
  });

  it("a refused call stops the run with the server's message; fixing the cause converges", async () => {
    const org = await fx.newOrg("refused");
    // a discount made elsewhere already uses the code the file wants
    const other = await org.seller.sdk.discounts.create({ name: "Other", code: "LAUNCH", type: "percentage", basisPoints: 100, duration: "once" });
    const desired = parseCatalog(FULL);
    const p = await fx.plan(org, desired);
    expect(p.notes).toEqual([`discount "Other" matches launch by name but its type differs: left as is, launch is created`]);
    const err = (await applyPlan(org.client, p).catch((e: unknown) => e)) as ApplyError;
    expect(err).toBeInstanceOf(ApplyError);
    expect(err.message).toMatch(/^\+ create discount "Launch" \(500 usd once, code LAUNCH\) failed: code: /);
    // the server refused a value of the file: invalid input
    expect(err.exitCode).toBe(2);
    expect(err.applied.map((a) => a.key)).toEqual(p.changes.slice(0, 15).map((c) => c.key));

    await org.seller.sdk.discounts.delete({ id: other.id });
    const rest = await fx.plan(org, desired);
    expect(renderPlan(rest)).toBe(`+ create discount "Launch" (500 usd once, code LAUNCH)
+ create discount "Loyal customers" (25% repeating)
+ create discount "Summer sale" (10% forever, code SUMMER25)

Plan: 3 to create, 0 to update, 0 to replace, 0 to archive, 0 to delete.`);
    await applyPlan(org.client, rest);
    expect((await fx.plan(org, desired)).changes).toEqual([]);
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
