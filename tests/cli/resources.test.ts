// `till benefits|discounts|custom-fields` and their --help, end to end: the CLI as a child process against the
// real server on a loopback port, with an organization API key (TILL_API_KEY, TILL_SERVER); what it changed is
// read back through the Polar SDK. Processes are started in parallel where the cases do not depend on each other
// (each costs a few hundred milliseconds). Customers: resources-customers.test.ts; meters and events:
// resources-meters.test.ts.
import { describe, expect, it } from "vitest";
import { buildProgram } from "../../cli/main.js";
import { uploadFile } from "../helpers/files.js";
import { parseJson, tempConfigDir, till } from "./till.js";
import { sellerCliFixture, ok, idOf } from "./seller-cli-fixtures.js";

const fx = sellerCliFixture("cli-resources");

describe("till benefits", () => {
  it("creates every type with its property flags; the SDK reads the properties back", async () => {
    const meter = await fx.seller.sdk.meters.create({ name: "Credits", filter: { conjunction: "and", clauses: [] }, aggregation: { func: "count" } });
    const file = await uploadFile(fx.seller.sdk, "book.pdf", Buffer.from("%PDF-1.4 a book"), "downloadable");
    const c = (args: string[]) => fx.run(["benefits", "create", ...args, "--json"]);
    const ids = (
      await Promise.all([
        c(["custom", "--description", "Priority support", "--note", "Write to vip@acme.test", "--metadata", "tier=gold"]),
        c(["license-keys", "--description", "License key", "--prefix", "ACME", "--expires", "1y", "--activations", "3", "--customer-admin", "--limit-usage", "100"]),
        c(["meter_credit", "--description", "1000 credits", "--meter", meter.id, "--units", "1000", "--rollover"]),
        c(["downloadables", "--description", "The book", "--file", file.id]),
        c(["github_repository", "--description", "Source access", "--repository", "acme/sdk", "--permission", "push"]),
        c(["discord", "--description", "Community", "--guild-token", "guild-token-1", "--role", "role-9", "--kick-member"]),
        c(["custom", "--description", "From JSON", "--properties", '{"note":"json note"}']),
      ])
    ).map(idOf);
    const got = await Promise.all(ids.map((id) => fx.seller.sdk.benefits.get({ id })));
    expect(got.map((b) => [b.type, b.description])).toEqual([
      ["custom", "Priority support"],
      ["license_keys", "License key"],
      ["meter_credit", "1000 credits"],
      ["downloadables", "The book"],
      ["github_repository", "Source access"],
      ["discord", "Community"],
      ["custom", "From JSON"],
    ]);
    expect(got[0]).toMatchObject({ properties: { note: "Write to vip@acme.test" }, metadata: { tier: "gold" } });
    expect(got[1]?.properties).toEqual({
      prefix: "ACME",
      expires: { ttl: 1, timeframe: "year" },
      activations: { limit: 3, enableCustomerAdmin: true },
      limitUsage: 100,
    });
    expect(got[2]?.properties).toEqual({ meterId: meter.id, units: 1000, rollover: true });
    expect(got[3]?.properties).toMatchObject({ files: [file.id] });
    expect(got[4]?.properties).toMatchObject({ repositoryOwner: "acme", repositoryName: "sdk", permission: "push" });
    expect(got[5]?.properties).toMatchObject({ guildToken: "guild-token-1", roleId: "role-9", kickMember: true });
    expect(got[6]?.properties).toEqual({ note: "json note" });
  });

  it("list --type, get, update keeps the properties no flag names, delete", async () => {
    const id = idOf(await fx.run(["benefits", "create", "license_keys", "--description", "Keys", "--prefix", "KEEP", "--activations", "2", "--json"]));
    const [listed, get] = await Promise.all([fx.run(["benefits", "list", "--type", "license_keys", "--all", "--json"]), fx.run(["benefits", "get", id])]);
    expect(parseJson<{ id: string; type: string }[]>(listed.stdout).every((b) => b.type === "license_keys")).toBe(true);
    expect(parseJson<{ id: string }[]>(listed.stdout).map((b) => b.id)).toContain(id);
    expect(ok(get).stdout).toContain(`ID: ${id}\nType: license_keys\nDescription: Keys\nProperties: prefix=KEEP, ` +
      `expires=null, activations={"limit":2,"enable_customer_admin":false}, limit_usage=null\n`);

    const upd = ok(await fx.run(["benefits", "update", id, "--activations", "5", "--description", "More keys"]));
    expect(upd.stdout).toBe(`Updated license_keys benefit "More keys" (${id}).\n`);
    expect(await fx.seller.sdk.benefits.get({ id })).toMatchObject({
      description: "More keys",
      properties: { prefix: "KEEP", activations: { limit: 5, enableCustomerAdmin: false } },
    });

    expect(ok(await fx.run(["benefits", "delete", id])).stdout).toBe(`Deleted benefit ${id}.\n`);
    const gone = await fx.run(["benefits", "get", id]);
    expect(gone.exitCode).toBe(1);
    expect(gone.stderr).toBe(`error: Benefit not found\n`);
  });

  it("refuses unknown types, another type's flags and missing properties: exit 2", async () => {
    const [type, flag, missing, json] = await Promise.all([
      fx.run(["benefits", "create", "coupon", "--description", "Nope"]),
      fx.run(["benefits", "create", "custom", "--description", "Nope", "--prefix", "A"]),
      fx.run(["benefits", "create", "meter_credit", "--description", "Nope", "--units", "5"]),
      fx.run(["benefits", "create", "custom", "--description", "Nope", "--properties", "{note"]),
    ]);
    expect([type.exitCode, flag.exitCode, missing.exitCode, json.exitCode]).toEqual([2, 2, 2, 2]);
    expect(type.stderr).toBe(
      "error: command-argument value 'coupon' is invalid for argument 'type'. expected one of custom, license_keys, meter_credit, downloadables, github_repository, discord.\n",
    );
    expect(flag.stderr).toBe("error: --prefix: only for license_keys benefits (this one is custom)\n");
    expect(missing.stderr).toBe("error: meter_credit benefits need --meter <id>\n");
    expect(json.stderr).toMatch(/^error: --properties: expected JSON, @file or @- \(.+\)\n$/);
  });
});

describe("till discounts", () => {
  it("percentage, fixed and repeating discounts; get, update, delete", async () => {
    const product = await fx.seller.sdk.products.create({ name: "Course", prices: [{ amountType: "fixed", priceAmount: 5000 }] });
    const [pct, fixed, rep] = (
      await Promise.all([
        fx.run(["discounts", "create", "Launch", "--percent", "25", "--code", "LAUNCH25", "--max-redemptions", "100", "--starts-at", "2030-01-01", "--ends-at", "2030-02-01T12:00:00+01:00", "--json"]),
        fx.run(["discounts", "create", "Five off", "--amount", "500", "--currency", "eur", "--duration", "forever", "--product", product.id, "--json"]),
        fx.run(["discounts", "create", "Winter", "--percent", "12.5", "--months", "3", "--metadata", "season=winter", "--json"]),
      ])
    ).map(idOf);
    expect(await fx.seller.sdk.discounts.get({ id: pct ?? "" })).toMatchObject({
      type: "percentage",
      basisPoints: 2500,
      duration: "once",
      code: "LAUNCH25",
      maxRedemptions: 100,
      startsAt: new Date("2030-01-01T00:00:00Z"),
      endsAt: new Date("2030-02-01T11:00:00Z"),
    });
    expect(await fx.seller.sdk.discounts.get({ id: fixed ?? "" })).toMatchObject({
      type: "fixed",
      amount: 500,
      currency: "eur",
      duration: "forever",
      products: [{ id: product.id }],
    });
    expect(await fx.seller.sdk.discounts.get({ id: rep ?? "" })).toMatchObject({ basisPoints: 1250, duration: "repeating", durationInMonths: 3, metadata: { season: "winter" } });

    const get = ok(await fx.run(["discounts", "get", pct ?? ""]));
    expect(get.stdout).toContain("Code: LAUNCH25\nDiscount: 25%\nDuration: once\nValid: 2030-01-01 to 2030-02-01\nRedeemed: 0 of 100\n");
    const list = ok(await fx.run(["discounts", "list"]));
    expect(list.stdout).toContain(`${fixed}\tFive off\t\t€5.00\tforever\t0\n`);

    ok(await fx.run(["discounts", "update", pct ?? "", "--max-redemptions", "200", "--code", "SPRING"]));
    expect(await fx.seller.sdk.discounts.get({ id: pct ?? "" })).toMatchObject({ maxRedemptions: 200, code: "SPRING" });
    const del = ok(await fx.run(["discounts", "delete", rep ?? "", "--json"]));
    expect(parseJson(del.stdout)).toEqual({ id: rep, deleted: true });
    expect((await fx.run(["discounts", "get", rep ?? ""])).exitCode).toBe(1);
  });

  it("refuses a discount without an amount, a repeating one without months and an out-of-range percent: exit 2", async () => {
    const results = await Promise.all([
      fx.run(["discounts", "create", "X"]),
      fx.run(["discounts", "create", "X", "--percent", "10", "--duration", "repeating"]),
      fx.run(["discounts", "create", "X", "--percent", "0"]),
      fx.run(["discounts", "create", "X", "--percent", "10", "--amount", "100"]),
      fx.run(["discounts", "create", "X", "--percent", "10", "--ends-at", "tomorrow"]),
    ]);
    expect(results.map((r) => r.stderr)).toEqual([
      "error: a discount needs --amount <minor units> (fixed, with --currency) or --percent <n>\n",
      "error: --duration repeating: needs --months <n>\n",
      "error: option '--percent <n>' argument '0' is invalid. expected a percentage above 0 and at most 100, such as 25 or 12.5.\n",
      "error: --amount and --percent: a discount is either fixed or a percentage\n",
      "error: option '--ends-at <date>' argument 'tomorrow' is invalid. expected a date (2025-01-31, midnight UTC) or a datetime with an offset (2025-01-31T09:00:00+02:00).\n",
    ]);
    expect(results.every((r) => r.exitCode === 2)).toBe(true);
  });
});

describe("till custom-fields", () => {
  it("creates each type; update keeps the other properties; delete", async () => {
    const c = (args: string[]) => fx.run(["custom-fields", "create", ...args, "--json"]);
    const ids = (
      await Promise.all([
        c(["text", "--name", "Company name", "--placeholder", "Acme Inc", "--max-length", "100", "--textarea"]),
        c(["number", "--name", "Seats", "--ge", "1", "--le", "500"]),
        c(["date", "--name", "Start date", "--slug", "start"]),
        c(["checkbox", "--name", "Accept terms", "--label", "I accept"]),
        c(["select", "--name", "Region", "--option", "eu=Europe", "--option", "us=United States"]),
      ])
    ).map(idOf);
    const got = await Promise.all(ids.map((id) => fx.seller.sdk.customFields.get({ id })));
    expect(got.map((f) => [f.type, f.slug, f.name])).toEqual([
      ["text", "company_name", "Company name"],
      ["number", "seats", "Seats"],
      ["date", "start", "Start date"],
      ["checkbox", "accept_terms", "Accept terms"],
      ["select", "region", "Region"],
    ]);
    expect(got[0]?.properties).toMatchObject({ formPlaceholder: "Acme Inc", maxLength: 100, textarea: true });
    expect(got[1]?.properties).toMatchObject({ ge: 1, le: 500 });
    expect(got[3]?.properties).toMatchObject({ formLabel: "I accept" });
    expect(got[4]?.properties).toMatchObject({ options: [{ value: "eu", label: "Europe" }, { value: "us", label: "United States" }] });

    ok(await fx.run(["custom-fields", "update", ids[0] ?? "", "--help-text", "As on invoices", "--name", "Company"]));
    expect(await fx.seller.sdk.customFields.get({ id: ids[0] ?? "" })).toMatchObject({
      name: "Company",
      properties: { formPlaceholder: "Acme Inc", maxLength: 100, formHelpText: "As on invoices" },
    });
    const list = ok(await fx.run(["custom-fields", "list", "--type", "select"]));
    expect(list.stdout).toBe(`${ids[4]}\tregion\tRegion\tselect\n`);
    ok(await fx.run(["custom-fields", "delete", ids[4] ?? ""]));
    expect((await fx.run(["custom-fields", "list", "--type", "select", "--json"])).stdout).toBe("[]\n");

    const wrong = await fx.run(["custom-fields", "create", "date", "--name", "X", "--max-length", "3"]);
    expect(wrong.exitCode).toBe(2);
    expect(wrong.stderr).toBe("error: --max-length: only with text fields\n");
  });
});

describe("--help", () => {
  const NOUNS = ["products", "benefits", "discounts", "meters", "custom-fields", "customers", "events"];

  it("every resource command has a description and examples", () => {
    const program = buildProgram();
    const seen: string[] = [];
    for (const noun of NOUNS) {
      const group = program.commands.find((c) => c.name() === noun);
      expect(group, noun).toBeDefined();
      for (const cmd of [group, ...(group?.commands ?? [])]) {
        if (!cmd) continue;
        let help = "";
        cmd.configureOutput({ writeOut: (s) => (help += s), writeErr: (s) => (help += s) });
        cmd.outputHelp();
        const name = cmd === group ? noun : `${noun} ${cmd.name()}`;
        seen.push(name);
        expect(cmd.description(), name).not.toBe("");
        expect(help, name).toContain("\nExamples:\n  $ till ");
        if (cmd !== group) expect(help, name).toContain(`  $ till ${name}`);
      }
    }
    expect(seen).toEqual(
      expect.arrayContaining([
        "products list", "products get", "products create", "products update", "products archive",
        "benefits list", "benefits get", "benefits create", "benefits update", "benefits delete",
        "discounts list", "discounts get", "discounts create", "discounts update", "discounts delete",
        "meters list", "meters get", "meters create", "meters update", "meters archive", "meters quantities",
        "custom-fields list", "custom-fields get", "custom-fields create", "custom-fields update", "custom-fields delete",
        "customers list", "customers get", "customers create", "customers update", "customers delete", "customers state",
        "events ingest",
      ]),
    );
  });

  it("the real binary prints it, exit 0", async () => {
    const r = await till(["meters", "quantities", "--help"], { configDir: tempConfigDir() });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain("Usage: till meters quantities [options] <id>");
    expect(r.stdout).toContain("  $ till meters quantities <id> --start 2025-01-01 --end 2025-02-01 --interval week\n");
  });
});
