// `till benefits|discounts|meters|custom-fields|customers|events`, end to end: the CLI as a child process
// against the real server on a loopback port, with an organization API key (TILL_API_KEY, TILL_SERVER);
// what it changed is read back through the Polar SDK. Processes are started in parallel where the cases
// do not depend on each other (each costs a few hundred milliseconds).
import { readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildProgram } from "../../cli/main.js";
import { uploadFile } from "../helpers/files.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { parseJson, tempConfigDir, till, TRACE_HOOK, type TillOptions, type TillResult } from "./till.js";

let server: TestServer;
let seller: Seller;
let cli: TillOptions;

const run = (args: string[], extra: Partial<TillOptions> = {}): Promise<TillResult> => till(args, { ...cli, ...extra });
const ok = (r: TillResult) => {
  expect(r.exitCode, r.stderr).toBe(0);
  return r;
};
const idOf = (r: TillResult) => parseJson<{ id: string }>(ok(r).stdout).id;
const tmp = (name: string) => path.join(os.tmpdir(), `till-cli-${process.pid}-${name}`);

beforeAll(async () => {
  server = await startServer();
  seller = await createSeller(server, "cli-resources");
  cli = { configDir: tempConfigDir(), env: { TILL_API_KEY: await seller.createKey(), TILL_SERVER: server.url } };
});
afterAll(async () => server?.close());

describe("till benefits", () => {
  it("creates every type with its property flags; the SDK reads the properties back", async () => {
    const meter = await seller.sdk.meters.create({ name: "Credits", filter: { conjunction: "and", clauses: [] }, aggregation: { func: "count" } });
    const file = await uploadFile(seller.sdk, "book.pdf", Buffer.from("%PDF-1.4 a book"), "downloadable");
    const c = (args: string[]) => run(["benefits", "create", ...args, "--json"]);
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
    const got = await Promise.all(ids.map((id) => seller.sdk.benefits.get({ id })));
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
    const id = idOf(await run(["benefits", "create", "license_keys", "--description", "Keys", "--prefix", "KEEP", "--activations", "2", "--json"]));
    const [listed, get] = await Promise.all([run(["benefits", "list", "--type", "license_keys", "--all", "--json"]), run(["benefits", "get", id])]);
    expect(parseJson<{ id: string; type: string }[]>(listed.stdout).every((b) => b.type === "license_keys")).toBe(true);
    expect(parseJson<{ id: string }[]>(listed.stdout).map((b) => b.id)).toContain(id);
    expect(ok(get).stdout).toContain(`ID: ${id}\nType: license_keys\nDescription: Keys\nProperties: prefix=KEEP, expires=null, activations={"limit":2,"enable_customer_admin":false}, limit_usage=null\n`);

    const upd = ok(await run(["benefits", "update", id, "--activations", "5", "--description", "More keys"]));
    expect(upd.stdout).toBe(`Updated license_keys benefit "More keys" (${id}).\n`);
    expect(await seller.sdk.benefits.get({ id })).toMatchObject({
      description: "More keys",
      properties: { prefix: "KEEP", activations: { limit: 5, enableCustomerAdmin: false } },
    });

    expect(ok(await run(["benefits", "delete", id])).stdout).toBe(`Deleted benefit ${id}.\n`);
    const gone = await run(["benefits", "get", id]);
    expect(gone.exitCode).toBe(1);
    expect(gone.stderr).toBe(`error: Benefit not found\n`);
  });

  it("refuses unknown types, another type's flags and missing properties: exit 2", async () => {
    const [type, flag, missing, json] = await Promise.all([
      run(["benefits", "create", "coupon", "--description", "Nope"]),
      run(["benefits", "create", "custom", "--description", "Nope", "--prefix", "A"]),
      run(["benefits", "create", "meter_credit", "--description", "Nope", "--units", "5"]),
      run(["benefits", "create", "custom", "--description", "Nope", "--properties", "{note"]),
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
    const product = await seller.sdk.products.create({ name: "Course", prices: [{ amountType: "fixed", priceAmount: 5000 }] });
    const [pct, fixed, rep] = (
      await Promise.all([
        run(["discounts", "create", "Launch", "--percent", "25", "--code", "LAUNCH25", "--max-redemptions", "100", "--starts-at", "2030-01-01", "--ends-at", "2030-02-01T12:00:00+01:00", "--json"]),
        run(["discounts", "create", "Five off", "--amount", "500", "--currency", "eur", "--duration", "forever", "--product", product.id, "--json"]),
        run(["discounts", "create", "Winter", "--percent", "12.5", "--months", "3", "--metadata", "season=winter", "--json"]),
      ])
    ).map(idOf);
    expect(await seller.sdk.discounts.get({ id: pct ?? "" })).toMatchObject({
      type: "percentage",
      basisPoints: 2500,
      duration: "once",
      code: "LAUNCH25",
      maxRedemptions: 100,
      startsAt: new Date("2030-01-01T00:00:00Z"),
      endsAt: new Date("2030-02-01T11:00:00Z"),
    });
    expect(await seller.sdk.discounts.get({ id: fixed ?? "" })).toMatchObject({
      type: "fixed",
      amount: 500,
      currency: "eur",
      duration: "forever",
      products: [{ id: product.id }],
    });
    expect(await seller.sdk.discounts.get({ id: rep ?? "" })).toMatchObject({ basisPoints: 1250, duration: "repeating", durationInMonths: 3, metadata: { season: "winter" } });

    const get = ok(await run(["discounts", "get", pct ?? ""]));
    expect(get.stdout).toContain("Code: LAUNCH25\nDiscount: 25%\nDuration: once\nValid: 2030-01-01 to 2030-02-01\nRedeemed: 0 of 100\n");
    const list = ok(await run(["discounts", "list"]));
    expect(list.stdout).toContain(`${fixed}\tFive off\t\t€5.00\tforever\t0\n`);

    ok(await run(["discounts", "update", pct ?? "", "--max-redemptions", "200", "--code", "SPRING"]));
    expect(await seller.sdk.discounts.get({ id: pct ?? "" })).toMatchObject({ maxRedemptions: 200, code: "SPRING" });
    const del = ok(await run(["discounts", "delete", rep ?? "", "--json"]));
    expect(parseJson(del.stdout)).toEqual({ id: rep, deleted: true });
    expect((await run(["discounts", "get", rep ?? ""])).exitCode).toBe(1);
  });

  it("refuses a discount without an amount, a repeating one without months and an out-of-range percent: exit 2", async () => {
    const results = await Promise.all([
      run(["discounts", "create", "X"]),
      run(["discounts", "create", "X", "--percent", "10", "--duration", "repeating"]),
      run(["discounts", "create", "X", "--percent", "0"]),
      run(["discounts", "create", "X", "--percent", "10", "--amount", "100"]),
      run(["discounts", "create", "X", "--percent", "10", "--ends-at", "tomorrow"]),
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
    const c = (args: string[]) => run(["custom-fields", "create", ...args, "--json"]);
    const ids = (
      await Promise.all([
        c(["text", "--name", "Company name", "--placeholder", "Acme Inc", "--max-length", "100", "--textarea"]),
        c(["number", "--name", "Seats", "--ge", "1", "--le", "500"]),
        c(["date", "--name", "Start date", "--slug", "start"]),
        c(["checkbox", "--name", "Accept terms", "--label", "I accept"]),
        c(["select", "--name", "Region", "--option", "eu=Europe", "--option", "us=United States"]),
      ])
    ).map(idOf);
    const got = await Promise.all(ids.map((id) => seller.sdk.customFields.get({ id })));
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

    ok(await run(["custom-fields", "update", ids[0] ?? "", "--help-text", "As on invoices", "--name", "Company"]));
    expect(await seller.sdk.customFields.get({ id: ids[0] ?? "" })).toMatchObject({
      name: "Company",
      properties: { formPlaceholder: "Acme Inc", maxLength: 100, formHelpText: "As on invoices" },
    });
    const list = ok(await run(["custom-fields", "list", "--type", "select"]));
    expect(list.stdout).toBe(`${ids[4]}\tregion\tRegion\tselect\n`);
    ok(await run(["custom-fields", "delete", ids[4] ?? ""]));
    expect((await run(["custom-fields", "list", "--type", "select", "--json"])).stdout).toBe("[]\n");

    const wrong = await run(["custom-fields", "create", "date", "--name", "X", "--max-length", "3"]);
    expect(wrong.exitCode).toBe(2);
    expect(wrong.stderr).toBe("error: --max-length: only with text fields\n");
  });
});

describe("a customer named by email where a seller knows only that", () => {
  it("customers get, state, portal, delete and `open portal` take the email; --customer on lists takes it too", async () => {
    const email = `only-email-${Date.now()}@example.com`;
    const c = parseJson<{ id: string }>(ok(await run(["customers", "create", "--email", email, "--json"])).stdout);
    await seller.sdk.events.ingest({ events: [{ name: "by_email", customerId: c.id }] });
    const [get, state, portal, open, orders, subscriptions, checkouts, refunds, keys, events] = await Promise.all([
      run(["customers", "get", email, "--json"]),
      run(["customers", "state", email.toUpperCase(), "--json"]),
      run(["customers", "portal", email, "--json"]),
      run(["open", "portal", email, "--json"]),
      run(["orders", "list", "--customer", email, "--json"]),
      run(["subscriptions", "list", "--customer", email, "--json"]),
      run(["checkouts", "list", "--customer", email, "--json"]),
      run(["refunds", "list", "--customer", email, "--json"]),
      run(["license-keys", "list", "--customer", email, "--json"]),
      run(["events", "list", "--customer", email, "--json"]),
    ]);
    expect(parseJson<{ id: string }>(ok(get).stdout).id).toBe(c.id);
    expect(parseJson<{ id: string }>(ok(state).stdout).id).toBe(c.id);
    expect(parseJson<{ customer_id: string }>(ok(portal).stdout).customer_id).toBe(c.id);
    const page = parseJson<{ target: string; url: string }>(ok(open).stdout);
    const token = new URL(page.url).searchParams.get("customer_session_token") ?? "";
    const me = await fetch(`${server.url}/v1/customer-portal/customers/me`, { headers: { authorization: `Bearer ${token}` } });
    expect(((await me.json()) as { id: string }).id).toBe(c.id);
    for (const r of [orders, subscriptions, checkouts, refunds, keys]) expect(parseJson(ok(r).stdout)).toEqual([]);
    expect(parseJson<{ name: string; customer_id: string }[]>(ok(events).stdout)).toMatchObject([{ name: "by_email", customer_id: c.id }]);

    // checkouts for the customer found by email carry its id
    const product = (await seller.sdk.products.create({ name: "By email", prices: [{ amountType: "fixed", priceAmount: 500, priceCurrency: "usd" }] })).id;
    const checkout = parseJson<{ id: string; customer_id: string }>(ok(await run(["checkouts", "create", "--product", product, "--customer", email, "--json"])).stdout);
    expect(checkout.customer_id).toBe(c.id);
    const listed = parseJson<{ id: string }[]>(ok(await run(["checkouts", "list", "--customer", email, "--json"])).stdout);
    expect(listed.map((x) => x.id)).toEqual([checkout.id]);

    // an email no customer has: exit 1, nothing changed; not an id nor an email: exit 2 before any request
    const [unknown, unknownFlag, malformed] = await Promise.all([
      run(["open", "portal", "nobody@example.com"]),
      run(["orders", "list", "--customer", "nobody@example.com"]),
      run(["orders", "list", "--customer", "nobody"]),
    ]);
    expect([unknown.exitCode, unknownFlag.exitCode, malformed.exitCode]).toEqual([1, 1, 2]);
    expect(unknown.stderr).toBe(
      "error: no customer has the email nobody@example.com\nhint: `till customers list --query <text>` searches emails, names and external ids\n",
    );
    expect(malformed.stderr).toContain("expected the customer's id (a UUID such as 0b5c1d2e-…) or email");

    const deleted = ok(await run(["customers", "delete", email]));
    expect(deleted.stdout).toBe(`Deleted customer ${email} (${c.id}).\n`);
    expect((await run(["customers", "get", c.id])).exitCode).toBe(1);
  });
});

describe("till customers", () => {
  it("create, get by id and by external id, update, state, list, delete", async () => {
    const created = ok(await run(["customers", "create", "--email", "ada@example.com", "--name", "Ada", "--external-id", "user_42", "--metadata", "plan=pro", "--json"]));
    const ada = parseJson<{ id: string }>(created.stdout);
    expect(await seller.sdk.customers.get({ id: ada.id })).toMatchObject({ email: "ada@example.com", name: "Ada", externalId: "user_42", metadata: { plan: "pro" } });

    const [byId, byExternal] = await Promise.all([run(["customers", "get", ada.id, "--json"]), run(["customers", "get", "--external-id", "user_42", "--json"])]);
    expect(parseJson(byId.stdout)).toEqual(parseJson(byExternal.stdout));

    ok(await run(["customers", "update", "--external-id", "user_42", "--name", "Ada Lovelace"]));
    ok(await run(["customers", "update", ada.id, "--metadata", "plan=team"]));
    expect(await seller.sdk.customers.get({ id: ada.id })).toMatchObject({ name: "Ada Lovelace", externalId: "user_42", metadata: { plan: "team" } });
    // an external id is set once (the server refuses to change it)
    const bob = idOf(await run(["customers", "create", "--email", "bob@example.com", "--json"]));
    ok(await run(["customers", "update", bob, "--set-external-id", "user_43"]));
    expect(await seller.sdk.customers.get({ id: bob })).toMatchObject({ externalId: "user_43" });
    const change = await run(["customers", "update", ada.id, "--set-external-id", "user_44"]);
    expect(change.exitCode).toBe(2);
    expect(change.stderr).toBe(`error: --set-external-id: Customer external ID cannot be updated.\n`);

    const state = ok(await run(["customers", "state", "--external-id", "user_42", "--json"]));
    expect(parseJson(state.stdout)).toMatchObject({ id: ada.id, active_subscriptions: [], granted_benefits: [], active_meters: [] });
    const plainState = ok(await run(["customers", "state", ada.id]));
    expect(plainState.stdout).toContain("Subscriptions: none\nBenefits: none\nMeters: none\n");

    const list = ok(await run(["customers", "list", "--email", "ada@example.com"]));
    expect(list.stdout).toBe(`${ada.id}\tada@example.com\tAda Lovelace\tuser_42\n`);

    ok(await run(["customers", "delete", "--external-id", "user_42"]));
    const gone = await run(["customers", "get", ada.id]);
    expect(gone.exitCode).toBe(1);
    expect(gone.stderr).toBe(`error: Customer not found.\n`);

    const [both, neither, notUuid] = await Promise.all([
      run(["customers", "get", ada.id, "--external-id", "x"]),
      run(["customers", "state"]),
      run(["customers", "delete", "user_43"]),
    ]);
    expect([both.exitCode, neither.exitCode, notUuid.exitCode]).toEqual([2, 2, 2]);
    expect(both.stderr).toBe("error: <id> and --external-id: address the customer by one of them\n");
    expect(neither.stderr).toBe("error: missing the customer: pass its <id> (or email) or --external-id <your id>\n");
    expect(notUuid.stderr).toBe('error: <id>: expected the customer\'s id (a UUID) or email, got "user_43"; use --external-id for your own ids\n');
  });

  it("portal prints a link to the customer's portal whose session works, by id or external id", async () => {
    const c = parseJson<{ id: string }>(ok(await run(["customers", "create", "--email", "grace@example.com", "--external-id", "user_77", "--json"])).stdout);
    const byId = ok(await run(["customers", "portal", c.id]));
    const url = new URL(byId.stdout.trim());
    expect(`${url.origin}${url.pathname}`).toBe(`${server.url}/portal`);
    expect(byId.stderr).toContain("anyone holding it acts as the customer");
    const token = url.searchParams.get("customer_session_token") ?? "";
    const me = await fetch(`${server.url}/v1/customer-portal/customers/me`, { headers: { authorization: `Bearer ${token}` } });
    expect(((await me.json()) as { id: string }).id).toBe(c.id);

    const json = parseJson<{ customer_id: string; return_url: string; token: string }>(
      ok(await run(["customers", "portal", "--external-id", "user_77", "--return-url", "https://example.com/account", "--json"])).stdout,
    );
    expect(json).toMatchObject({ customer_id: c.id, return_url: "https://example.com/account" });
    const missing = await run(["customers", "portal", "--external-id", "nobody"]);
    expect(missing.exitCode).toBe(2); // the server's 422 is invalid input: exit 2
    expect(missing.stderr).toContain("Customer does not exist.");
    expect((await run(["customers", "portal"])).exitCode).toBe(2);
  });
});

describe("till meters and till events ingest", () => {
  let meterId: string;
  const ndjson = (n: number, from = 0, extra: (i: number) => Record<string, unknown> = () => ({})) =>
    Array.from({ length: n }, (_, k) => JSON.stringify({ name: "api_call", external_customer_id: "svc_1", external_id: `ev-${from + k}`, ...extra(from + k) })).join("\n") + "\n";
  const total = async () => {
    const q = await seller.sdk.meters.quantities({
      id: meterId,
      startTimestamp: new Date(Date.now() - 86_400_000),
      endTimestamp: new Date(Date.now() + 86_400_000),
      interval: "day",
    });
    return q.total;
  };

  it("meters: create with --event-name or --filter and an aggregation; update; list; archive", async () => {
    const [count, sum] = await Promise.all([
      run(["meters", "create", "API calls", "--event-name", "api_call", "--count", "--json"]),
      run([
        "meters", "create", "Tokens",
        "--filter", JSON.stringify({ conjunction: "or", clauses: [{ property: "name", operator: "eq", value: "llm" }, { property: "name", operator: "eq", value: "chat" }] }),
        "--sum", "metadata.tokens", "--unit", "token", "--json",
      ]),
    ]);
    meterId = idOf(count);
    const tokens = idOf(sum);
    expect(await seller.sdk.meters.get({ id: meterId })).toMatchObject({
      name: "API calls",
      filter: { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: "api_call" }] },
      aggregation: { func: "count" },
    });
    expect(await seller.sdk.meters.get({ id: tokens })).toMatchObject({ unit: "token", aggregation: { func: "sum", property: "metadata.tokens" } });

    ok(await run(["meters", "update", tokens, "--name", "LLM tokens", "--max", "metadata.tokens"]));
    expect(await seller.sdk.meters.get({ id: tokens })).toMatchObject({ name: "LLM tokens", aggregation: { func: "max", property: "metadata.tokens" } });
    const list = ok(await run(["meters", "list"]));
    expect(list.stdout).toContain(`${meterId}\tAPI calls\tcount\tname = "api_call"\n`);
    expect(list.stdout).toContain(`${tokens}\tLLM tokens\tmax(metadata.tokens)\tname = "llm" or name = "chat"\n`);
    ok(await run(["meters", "archive", tokens]));
    expect((await run(["meters", "list", "--json"])).stdout).not.toContain(tokens);

    const refused = await Promise.all([
      run(["meters", "create", "X", "--event-name", "a", "--count", "--sum", "x"]),
      run(["meters", "create", "X", "--count"]),
      run(["meters", "create", "X", "--event-name", "a"]),
      run(["meters", "create", "X", "--filter", "[1]", "--count"]),
    ]);
    expect(refused.map((r) => [r.exitCode, r.stderr])).toEqual([
      [2, "error: --count and --sum: a meter has one aggregation\n"],
      [2, "error: a meter needs the events it counts: --event-name <name> or --filter <json>\n"],
      [2, "error: a meter needs an aggregation: --count, --sum <property>, --max, --min, --avg or --unique <property>\n"],
      [2, "error: --filter: expected a JSON object\n"],
    ]);
  });

  it("ingest from a file: batches of 1000 with a progress line per batch, duplicates counted; again: all duplicates", async () => {
    await seller.sdk.customers.create({ email: "svc@example.com", externalId: "svc_1" });
    const file = tmp("events.ndjson");
    // 2500 lines, the last 100 repeating earlier external ids
    writeFileSync(file, ndjson(2400) + ndjson(100));
    const r = ok(await run(["events", "ingest", file]));
    expect(r.stdout).toBe("Ingested 2500 events in 3 batches: 2400 inserted, 100 duplicates.\n");
    expect(r.stderr).toBe(
      "Batch 1/3: 1000/2500 events sent, 1000 inserted, 0 duplicates\n" +
        "Batch 2/3: 2000/2500 events sent, 2000 inserted, 0 duplicates\n" +
        "Batch 3/3: 2500/2500 events sent, 2400 inserted, 100 duplicates\n",
    );
    expect(await total()).toBe(2400);
    const again = ok(await run(["events", "ingest", file, "--json"]));
    expect(again.stderr).toBe("");
    expect(parseJson(again.stdout)).toEqual({ events: 2500, batches: 3, inserted: 0, duplicates: 2500 });
  });

  it("ingest from stdin (`-` or no file), blank lines skipped, --batch-size", async () => {
    const input = ndjson(3, 5000) + "\n\n" + ndjson(2, 5003);
    const [dash, bare] = await Promise.all([
      run(["events", "ingest", "-", "--batch-size", "2", "--json"], { input }),
      run(["events", "ingest", "--json"], { input: ndjson(1, 6000) }),
    ]);
    const a = parseJson<{ events: number; batches: number; inserted: number; duplicates: number }>(ok(dash).stdout);
    const b = parseJson<{ inserted: number }>(ok(bare).stdout);
    expect(a).toEqual({ events: 5, batches: 3, inserted: 5, duplicates: 0 });
    expect(b).toEqual({ events: 1, batches: 1, inserted: 1, duplicates: 0 });
    expect(await total()).toBe(2406);
  });

  it("ingest refuses bad lines before sending anything, names the line; unreadable files; the server's refusal names the line too", async () => {
    const before = await total();
    const bad = ndjson(1500, 7000) + '{"name":"api_call"}\n' + ndjson(1, 9000) + "not json\n";
    const [lines, missing, directory] = await Promise.all([
      run(["events", "ingest"], { input: bad }),
      run(["events", "ingest", tmp("no-such-file.ndjson")]),
      run(["events", "ingest", os.tmpdir(), "--json"]),
    ]);
    expect(lines.exitCode).toBe(2);
    expect(lines.stdout).toBe("");
    expect(lines.stderr).toBe(
      'error: stdin: line 1501: needs "customer_id" or "external_customer_id" (and 1 more bad line)\n' +
        "hint: nothing was sent: fix the input and run the command again\n",
    );
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toBe(`error: ${tmp("no-such-file.ndjson")}: cannot read it (ENOENT)\n`);
    expect(directory.exitCode).toBe(2);
    expect(JSON.parse(directory.stderr)).toMatchObject({ error: { message: `${os.tmpdir()}: cannot read it (EISDIR)`, code: "usage" } });
    expect(await total()).toBe(before);

    // what only the server knows (an unknown customer) refuses that batch alone, named by its line
    const unknown = ndjson(2, 9100) + JSON.stringify({ name: "api_call", customer_id: "00000000-0000-4000-8000-000000000000" }) + "\n";
    const refused = await run(["events", "ingest", "--batch-size", "2"], { input: unknown });
    expect(refused.exitCode).toBe(2); // the server's 422 is invalid input: exit 2
    expect(refused.stderr).toBe(
      "Batch 1/2: 2/3 events sent, 2 inserted, 0 duplicates\n" +
        "error: the server refused batch 2: line 3: customer_id: Customer not found.\n" +
        "hint: lines before 3 are in (2 inserted, 0 duplicates); nothing of this batch or after it was sent. Events with an external_id are deduplicated: fix the lines and send the file again.\n",
    );
    expect(await total()).toBe(before + 2);
  });

  it("quantities: --json is the API's answer, a pipe gets tab-separated buckets, a terminal a bar chart (Ink)", async () => {
    const day = new Date().toISOString().slice(0, 10);
    const start = new Date(Date.now() - 2 * 86_400_000).toISOString().slice(0, 10);
    const end = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    const args = ["meters", "quantities", meterId, "--start", start, "--end", end, "--interval", "day"];
    const [json, plain, tty] = await Promise.all([
      run([...args, "--json"]),
      run(args),
      run(args, { env: { ...cli.env, TILL_FORCE_TTY: "1", NO_COLOR: "1" } }),
    ]);
    const q = parseJson<{ quantities: { timestamp: string; quantity: number }[]; total: number }>(ok(json).stdout);
    const expected = await total();
    expect(q.total).toBe(expected);
    expect(q.quantities.map((b) => b.timestamp.slice(0, 10))).toContain(day);
    expect(q.quantities.find((b) => b.timestamp.startsWith(day))?.quantity).toBe(expected);

    expect(ok(plain).stdout).toBe(q.quantities.map((b) => `${b.timestamp}\t${b.quantity}`).join("\n") + "\n");
    const lines = ok(tty).stdout.trimEnd().split("\n");
    const today = lines.find((l) => l.startsWith(day));
    expect(today).toMatch(new RegExp(`^${day} +${expected.toLocaleString("en")} █+$`));
    expect(lines.at(-1)).toMatch(new RegExp(`^Total +${expected.toLocaleString("en")}$`));
    expect(tty.stdout).not.toContain("\u001B[");
  });

  it("--json never loads Ink or React; the chart on a terminal does", async () => {
    const trace = async (name: string, args: string[], env: Record<string, string> = {}) => {
      const file = tmp(`trace-${name}.txt`);
      writeFileSync(file, "");
      ok(await run(args, { nodeArgs: ["--import", TRACE_HOOK], env: { ...cli.env, TILL_TRACE_FILE: file, ...env } }));
      return readFileSync(file, "utf8").split("\n");
    };
    // Ink and React from node_modules, or bundled into the CLI's Ink screens (dist/cli/ui-*)
    const loadsUi = (urls: string[]) => urls.some((u) => /\/node_modules\/(ink|react)\/|\/dist\/cli\/ui-/.test(u));
    const [json, list, chart] = await Promise.all([
      trace("json", ["meters", "quantities", meterId, "--json"]),
      trace("list", ["products", "list", "--json"]),
      trace("chart", ["meters", "quantities", meterId], { TILL_FORCE_TTY: "1" }),
    ]);
    expect(json.some((u) => u.includes("/node_modules/commander/") || u.includes("/dist/cli/") || u.endsWith("/bin/till.js"))).toBe(true);
    expect(loadsUi(json)).toBe(false);
    expect(loadsUi(list)).toBe(false);
    expect(loadsUi(chart)).toBe(true);
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
