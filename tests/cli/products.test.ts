// `till products`, end to end: the CLI runs as a child process against the real server on a loopback port,
// authenticated with an organization API key (TILL_API_KEY, TILL_SERVER, as in CI); what it created is
// read back through the Polar SDK, so every price kind is checked on the server's side of the wire.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { parseJson, tempConfigDir, till, type TillOptions, type TillResult } from "./till.js";

let server: TestServer;
let seller: Seller;
let cli: TillOptions;
let meterId: string;
let benefitIds: string[];

interface WireProduct {
  id: string;
  name: string;
  is_archived: boolean;
  prices: { id: string; amount_type: string }[];
  benefits: { id: string }[];
}

const run = (args: string[], extra: Partial<TillOptions> = {}): Promise<TillResult> => till(args, { ...cli, ...extra });

/** Creates a product through the CLI (--json) and returns what the SDK reads back for it. */
async function created(r: TillResult) {
  expect(r.exitCode, r.stderr).toBe(0);
  expect(r.stderr).toBe("");
  const { id } = parseJson<WireProduct>(r.stdout);
  return seller.sdk.products.get({ id });
}

beforeAll(async () => {
  server = await startServer();
  seller = await createSeller(server, "cli-products");
  cli = { configDir: tempConfigDir(), env: { TILL_API_KEY: await seller.createKey(), TILL_SERVER: server.url } };
  const meter = await seller.sdk.meters.create({
    name: "API calls",
    filter: { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: "api_call" }] },
    aggregation: { func: "count" },
  });
  meterId = meter.id;
  const benefits = await Promise.all(
    ["Priority support", "Private forum"].map((description) =>
      seller.sdk.benefits.create({ type: "custom", description, properties: {} }),
    ),
  );
  benefitIds = benefits.map((b) => b.id);
});
afterAll(async () => server?.close());

describe("till products create: every price kind", () => {
  it("fixed one-time with description and typed metadata; fixed recurring in eur with an interval count and a trial", async () => {
    const [ebook, pro] = await Promise.all([
      run(["products", "create", "E-book", "--price", "1999", "--description", "The book", "--metadata", "plan=pro", "--metadata", "seats:=5", "--metadata", "beta:=true", "--json"]),
      run(["products", "create", "Pro", "--price", "999", "--currency", "EUR", "--recurring", "month", "--interval-count", "3", "--trial", "14d", "--json"]),
    ]);
    const e = await created(ebook);
    expect(e).toMatchObject({ name: "E-book", description: "The book", isRecurring: false, recurringInterval: null, metadata: { plan: "pro", seats: 5, beta: true } });
    expect(e.prices).toMatchObject([{ amountType: "fixed", priceAmount: 1999, priceCurrency: "usd" }]);

    const p = await created(pro);
    expect(p).toMatchObject({ isRecurring: true, recurringInterval: "month", recurringIntervalCount: 3, trialInterval: "day", trialIntervalCount: 14 });
    expect(p.prices).toMatchObject([{ amountType: "fixed", priceAmount: 999, priceCurrency: "eur" }]);
  });

  it("pay what you want, free, metered, fixed + metered, seat-based tiers, --prices JSON, with benefits", async () => {
    const results = await Promise.all([
      run(["products", "create", "Tip jar", "--custom-price", "--min", "500", "--max", "10000", "--preset", "1500", "--json"]),
      run(["products", "create", "Starter", "--free", "--recurring", "year", "--json"]),
      run(["products", "create", "API", "--recurring", "month", "--metered", "--meter", meterId, "--unit-amount", "0.5", "--cap", "10000", "--json"]),
      run(["products", "create", "API plus", "--recurring", "month", "--price", "1000", "--metered", "--meter", meterId, "--unit-amount", "0.000001", "--json"]),
      // tiers in any order: sorted before they are sent
      run(["products", "create", "Team", "--recurring", "month", "--seat-tier", "11+:800", "--seat-tier", "1-10:1000", "--json"]),
      run([
        "products", "create", "Two currencies",
        "--prices", JSON.stringify([{ amount_type: "fixed", price_amount: 1500 }, { amount_type: "fixed", price_currency: "eur", price_amount: 1400 }]),
        "--json",
      ]),
      run(["products", "create", "Bundle", "--price", "4900", "--benefit", benefitIds[0] ?? "", "--benefit", benefitIds[1] ?? "", "--json"]),
    ]);
    const [tip, starter, api, apiPlus, team, two, bundle] = await Promise.all(results.map(created));

    expect(tip?.prices).toMatchObject([{ amountType: "custom", minimumAmount: 500, maximumAmount: 10000, presetAmount: 1500, priceCurrency: "usd" }]);
    expect(starter).toMatchObject({ recurringInterval: "year" });
    // --free: the server stores a free price and writes it as a fixed price of 0 (both SDK versions read that)
    expect(starter?.prices).toMatchObject([{ amountType: "fixed", priceAmount: 0 }]);
    const starterGet = await run(["products", "get", starter?.id ?? ""]);
    expect(starterGet.stdout).toContain("Prices: free\n");
    expect(api?.prices).toMatchObject([{ amountType: "metered_unit", meterId, unitAmount: "0.5", capAmount: 10000, meter: { id: meterId, name: "API calls" } }]);
    // one unit of the meter, as the checkout page says it
    const shown = await run(["products", "get", api?.id ?? ""]);
    expect(shown.stdout).toContain("Prices: $0.005 per API call (cap $100.00)\n");
    expect(apiPlus?.prices).toMatchObject([
      { amountType: "fixed", priceAmount: 1000 },
      { amountType: "metered_unit", meterId, unitAmount: "0.000001", capAmount: null },
    ]);
    expect(team?.prices).toMatchObject([
      { amountType: "seat_based", seatTiers: { tiers: [{ minSeats: 1, maxSeats: 10, pricePerSeat: 1000 }, { minSeats: 11, maxSeats: null, pricePerSeat: 800 }] } },
    ]);
    expect(two?.prices).toMatchObject([
      { amountType: "fixed", priceAmount: 1500, priceCurrency: "usd" },
      { amountType: "fixed", priceAmount: 1400, priceCurrency: "eur" },
    ]);
    expect(bundle?.benefits.map((b) => b.id)).toEqual(benefitIds);
  });

  it("without --json: one line naming the product, its prices and billing", async () => {
    const r = await run(["products", "create", "Plain", "--price", "2500", "--recurring", "week"]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^Created product Plain \([0-9a-f-]{36}\): \$25\.00, every week\.\n$/);
  });
});

describe("till products list, get, update, archive", () => {
  it("list: --json prints the full items; --limit/--page page through them, --all gets every one; a pipe gets rows", async () => {
    const total = (await seller.sdk.products.list({ isArchived: false, limit: 100 })).result.pagination.totalCount;
    expect(total).toBeGreaterThan(3);
    const [page1, page2, all, plain] = await Promise.all([
      run(["products", "list", "--limit", "2", "--json"]),
      run(["products", "list", "--limit", "2", "--page", "2", "--json"]),
      run(["products", "list", "--all", "--json"]),
      run(["products", "list", "--limit", "2"]),
    ]);
    const one = parseJson<WireProduct[]>(page1.stdout);
    const two = parseJson<WireProduct[]>(page2.stdout);
    const every = parseJson<WireProduct[]>(all.stdout);
    expect(one).toHaveLength(2);
    expect(two).toHaveLength(2);
    expect(every).toHaveLength(total);
    expect(every.slice(0, 4).map((p) => p.id)).toEqual([...one, ...two].map((p) => p.id));
    // full items: prices and benefits included, as /v1 returns them
    expect(every.find((p) => p.name === "Bundle")?.benefits).toHaveLength(2);
    expect(page1.stderr).toBe(""); // --json: nothing but JSON
    expect(plain.stdout.split("\n").filter(Boolean)).toHaveLength(2);
    expect(plain.stdout.split("\n")[0]).toMatch(/^[0-9a-f-]{36}\t\S/);
    expect(plain.stderr).toBe(`Showing 1–2 of ${total} products: --page 2 for more, --all for every one.\n`);
  });

  it("get prints the product's fields; update changes the name and replaces the price; --benefit replaces the benefits", async () => {
    const product = await seller.sdk.products.create({ name: "Course", prices: [{ amountType: "fixed", priceAmount: 5000 }] });
    const get = await run(["products", "get", product.id]);
    expect(get.exitCode, get.stderr).toBe(0);
    expect(get.stdout).toContain(`ID: ${product.id}\nName: Course\nPrices: $50.00\nBilling: one-time\n`);

    const upd = await run(["products", "update", product.id, "--name", "Course 2", "--price", "6000", "--benefit", benefitIds[0] ?? "", "--metadata", "level=2"]);
    expect(upd.exitCode, upd.stderr).toBe(0);
    expect(upd.stdout).toBe(`Updated product Course 2 (${product.id}).\n`);
    const after = await seller.sdk.products.get({ id: product.id });
    expect(after).toMatchObject({ name: "Course 2", metadata: { level: "2" } });
    expect(after.prices).toMatchObject([{ amountType: "fixed", priceAmount: 6000 }]);
    expect(after.prices[0]?.id).not.toBe(product.prices[0]?.id);
    expect(after.benefits.map((b) => b.id)).toEqual([benefitIds[0]]);

    const cleared = await run(["products", "update", product.id, "--benefit", "none", "--json"]);
    expect(parseJson<WireProduct>(cleared.stdout).benefits).toEqual([]);
  });

  it("update: a trial on a recurring product, then none", async () => {
    const product = await seller.sdk.products.create({ name: "Monthly", recurringInterval: "month", prices: [{ amountType: "fixed", priceAmount: 900 }] });
    await run(["products", "update", product.id, "--trial", "2w"]);
    expect(await seller.sdk.products.get({ id: product.id })).toMatchObject({ trialInterval: "week", trialIntervalCount: 2 });
    await run(["products", "update", product.id, "--trial", "none"]);
    expect(await seller.sdk.products.get({ id: product.id })).toMatchObject({ trialInterval: null, trialIntervalCount: null });
  });

  it("archive: the product leaves the default list and shows with --archived", async () => {
    const product = await seller.sdk.products.create({ name: "Old thing", prices: [{ amountType: "free" }] });
    const r = await run(["products", "archive", product.id]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe(`Archived product Old thing (${product.id}): it can no longer be bought; existing customers keep it.\n`);
    expect(await seller.sdk.products.get({ id: product.id })).toMatchObject({ isArchived: true });
    const [active, archived] = await Promise.all([run(["products", "list", "--all", "--json"]), run(["products", "list", "--archived", "--json"])]);
    expect(parseJson<WireProduct[]>(active.stdout).map((p) => p.id)).not.toContain(product.id);
    expect(parseJson<WireProduct[]>(archived.stdout).map((p) => p.id)).toEqual([product.id]);
  });
});

describe("till products: refused input", () => {
  it("malformed amounts, unknown flags, unknown price kinds and conflicting flags: exit 2, one line, nothing created", async () => {
    const before = (await seller.sdk.products.list({ limit: 1 })).result.pagination.totalCount;
    const cases: [string[], string][] = [
      [["--price", "19.99"], "error: option '--price <amount>' argument '19.99' is invalid. expected a whole amount in the currency's smallest unit (cents for usd: 1999 for 19.99), not a decimal.\n"],
      [["--price", "ten"], "error: option '--price <amount>' argument 'ten' is invalid. expected a whole amount in the currency's smallest unit, such as 1999 for 19.99 usd.\n"],
      [["--custom-price", "--min", "-5"], "error: option '--min <amount>' argument '-5' is invalid. expected a whole amount in the currency's smallest unit, such as 1999 for 19.99 usd.\n"],
      [
        ["--recurring", "month", "--metered", "--meter", meterId, "--unit-amount", "0"],
        "error: option '--unit-amount <amount>' argument '0' is invalid. expected a positive amount per unit in the currency's smallest unit, " +
          "such as 0.5 (half a cent); at most 5 digits before the point and 12 after.\n",
      ],
      [["--price", "1000", "--colour", "red"], "error: unknown option '--colour'\n"],
      [["--prices", '[{"amount_type":"tiered","price_amount":100}]'], 'error: --prices[0].amount_type: unknown price kind "tiered"; expected one of fixed, custom, free, metered_unit, seat_based\n'],
      [["--price", "1000", "--free"], "error: --price and --free: choose one price kind (a product has one fixed, pay-what-you-want, free or seat-based price per currency)\n"],
      [["--seat-tier", "1-5:100", "--seat-tier", "7+:90"], "error: --seat-tier: tiers 1-5 and 7+ leave a gap\n"],
      [
        ["--seat-tier", "1-5"],
        "error: option '--seat-tier <tier>' argument '1-5' is invalid. expected <first>-<last>:<price per seat> or <first>+:<price per seat> in minor units, such as 1-10:1000 or 11+:800.\n",
      ],
      [["--price", "1000", "--min", "5"], "error: --min: only with --custom-price\n"],
      [["--metered", "--meter", meterId, "--unit-amount", "1"], "error: --metered: usage-based prices need a recurring product: add --recurring <interval>\n"],
      [["--price", "1000", "--trial", "14d"], "error: --trial: only with --recurring <interval> (one-time products have neither)\n"],
      [
        ["--price", "1000", "--trial", "3 fortnights"],
        "error: option '--trial <length>' argument '3 fortnights' is invalid. expected a trial length such as 14d, 2w, 1m or 1y (days, weeks, months, years; 1 to 1000), or none.\n",
      ],
      [
        ["--price", "1000", "--metadata", "novalue"],
        "error: option '--metadata <key=value>' argument 'novalue' is invalid. expected key=value (a string) or key:=value (a number or true/false), with a key of 1 to 40 characters.\n",
      ],
      [[], "error: a product needs a price: --price <amount>, --custom-price, --free, --seat-tier <tier>, --metered or --prices <json>\n"],
    ];
    const results = await Promise.all(cases.map(([flags]) => run(["products", "create", "Nope", ...flags])));
    results.forEach((r, i) => {
      expect({ flags: cases[i]?.[0], exitCode: r.exitCode, stderr: r.stderr, stdout: r.stdout }).toEqual({
        flags: cases[i]?.[0],
        exitCode: 2,
        stderr: cases[i]?.[1],
        stdout: "",
      });
    });
    expect((await seller.sdk.products.list({ limit: 1 })).result.pagination.totalCount).toBe(before);
  });

  it("--json: a usage error is the JSON envelope on stderr; a malformed id is exit 2 before any request", async () => {
    const [json, id, nothing] = await Promise.all([
      run(["products", "create", "Nope", "--price", "1.5", "--json"]),
      run(["products", "get", "not-an-id"]),
      run(["products", "update", "00000000-0000-4000-8000-000000000000"]),
    ]);
    expect(json.exitCode).toBe(2);
    expect(json.stdout).toBe("");
    expect(JSON.parse(json.stderr)).toEqual({
      error: {
        message: "option '--price <amount>' argument '1.5' is invalid. expected a whole amount in the currency's smallest unit (cents for usd: 1999 for 19.99), not a decimal.",
        code: "usage",
        hint: null,
      },
    });
    expect(id.exitCode).toBe(2);
    expect(id.stderr).toBe("error: command-argument value 'not-an-id' is invalid for argument 'id'. expected an id (a UUID such as 0b5c1d2e-…), see the list command.\n");
    expect(nothing.exitCode).toBe(2);
    expect(nothing.stderr).toBe("error: nothing to update: pass --name, --description, a price flag, --recurring, --trial, --visibility, --metadata, --add-on or --benefit\n");
  });

  it("the server's refusals in the user's words: unknown product (404, exit 1), an amount below its minimum (422: the flag, as money, exit 2), " +
    "a key without the scope (403: the scope and the key command, exit 4)", async () => {
    const readOnly = await seller.createKey({ products: ["read"] });
    const [missing, low, forbidden, foreign, benefit, unnamed, verbose] = await Promise.all([
      run(["products", "get", "00000000-0000-4000-8000-000000000000"]),
      run(["products", "create", "Cheap", "--price", "10"]),
      run(["products", "create", "Blocked", "--price", "1000"], { env: { ...cli.env, TILL_API_KEY: readOnly } }),
      // another organization's product is not found either
      createSeller(server, "cli-other")
        .then((other) => other.sdk.products.create({ name: "Theirs", prices: [{ amountType: "free" }] }))
        .then((p) => run(["products", "get", p.id, "--json"])),
      run(["products", "create", "Half done", "--price", "1000", "--benefit", "00000000-0000-4000-8000-000000000000"]),
      run(["products", "create", "", "--price", "1000"]),
      run(["products", "create", "Cheap", "--price", "10", "--verbose"]),
    ]);
    expect(missing.exitCode).toBe(1);
    expect(missing.stderr).toBe("error: Product not found\n");
    expect(low.exitCode).toBe(2);
    expect(low.stderr).toBe("error: --price: must be 0 (free) or at least $0.50\n");
    expect(unnamed.exitCode).toBe(2);
    expect(unnamed.stderr).toBe("error: <name>: needs at least 3 characters\n");
    expect(forbidden.exitCode).toBe(4);
    expect(forbidden.stderr).toBe(
      "error: TILL_API_KEY lacks the scope products:write\n" +
        "hint: create a key that has it: till keys create <name> --scope products:write (signed in as an owner or admin), then use that key\n",
    );
    expect(foreign.exitCode).toBe(1);
    expect(JSON.parse(foreign.stderr)).toMatchObject({ error: { code: "ResourceNotFound" } });
    // --verbose: each request, and the error names its request with the server's request id
    expect(verbose.exitCode).toBe(2);
    const id = /request id ([0-9a-f-]{36})/.exec(verbose.stderr)?.[1];
    expect(verbose.stderr).toBe(
      `POST /v1/products/ → 422 (${/\((\d+) ms/.exec(verbose.stderr)?.[1]} ms, request id ${id})\n` +
        "error: --price: must be 0 (free) or at least $0.50\n" +
        `request: POST /v1/products/ → 422 (request id ${id})\n`,
    );
    // the product was made before its benefits were refused: the hint says so and how to finish
    expect(benefit.exitCode).toBe(2);
    const made = /hint: product ([0-9a-f-]{36}) was created/.exec(benefit.stderr)?.[1];
    expect(benefit.stderr).toBe(
      "error: --benefit: Benefit does not exist.\n" +
        `hint: product ${made} was created without its benefits; once they are fixed: till products update ${made} --benefit 00000000-0000-4000-8000-000000000000\n`,
    );
  });
});
