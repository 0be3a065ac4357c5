// What gh and Stripe CLI users reach for, end to end against the real server: --json=<fields>,
// --jq and --template on --json commands; `till open`; `till events list`; `till files upload|list`;
// `till trigger --list` and `--override`. Shell completion: completion.test.ts.
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawRequest } from "../helpers/api.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";
import {
  fakeBrowser,
  parseJson,
  finalScreen,
  spawnTillInTerminal,
  tempConfigDir,
  till,
  TRACE_HOOK,
  type TillOptions,
  type TillResult,
} from "./till.js";

let server: TestServer;
let seller: Seller;
let cli: TillOptions;

const run = (args: string[], extra: Partial<TillOptions> = {}): Promise<TillResult> => till(args, { ...cli, ...extra });
const ok = (r: TillResult) => {
  expect(r.exitCode, r.stderr).toBe(0);
  return r;
};
const tmp = (name: string) => path.join(os.tmpdir(), `till-tools-${process.pid}-${name}`);
const noKey = (): Partial<TillOptions> => ({ configDir: tempConfigDir(), env: { TILL_SERVER: server.url } });

beforeAll(async () => {
  server = await startServer();
  seller = await createSeller(server, "cli-tools");
  // live, said explicitly: trigger works in the sandbox unless told otherwise
  cli = { configDir: tempConfigDir(), env: { TILL_API_KEY: await seller.createKey(), TILL_SERVER: server.url, TILL_SANDBOX: "0" } };
});
afterAll(async () => server?.close());

describe("--json=<fields>, --jq, --template", () => {
  let first: { id: string; name: string };
  beforeAll(async () => {
    const make = (name: string, price: string) => run(["products", "create", name, "--price", price, "--json"]);
    const [a] = await Promise.all([make("Shaped A", "1500"), make("Shaped B", "2500")]);
    first = parseJson(ok(a as TillResult).stdout);
  });

  it("--json=id,name keeps those fields of each item; of an object too", async () => {
    const [list, one, spaced] = await Promise.all([
      run(["products", "list", "--json=id,name"]),
      run(["products", "get", first.id, "--json=name,is_archived"]),
      run(["--json=name", "products", "list"]),
    ]);
    const items = parseJson<Record<string, unknown>[]>(ok(list).stdout);
    expect(items.length).toBe(2);
    for (const item of items) expect(Object.keys(item)).toEqual(["id", "name"]);
    expect(parseJson(ok(one).stdout)).toEqual({ name: "Shaped A", is_archived: false });
    expect(parseJson<{ name: string }[]>(ok(spaced).stdout).map((p) => p.name).sort()).toEqual(["Shaped A", "Shaped B"]);
  });

  it("--jq filters with jq itself (strings raw); --template formats one line per item", async () => {
    const [names, count, tsv, obj] = await Promise.all([
      run(["products", "list", "--jq", ".[].name"]),
      run(["products", "list", "--jq", "map(.prices[0].price_amount) | add"]),
      run(["products", "list", "--template", "{{.name}}\\t{{.prices.0.price_amount}}\\t{{json .metadata}}"]),
      run(["products", "get", first.id, "--template", "{{.name}} ({{.id}})"]),
    ]);
    expect(ok(names).stdout.split("\n").filter(Boolean).sort()).toEqual(["Shaped A", "Shaped B"]);
    expect(ok(count).stdout).toBe("4000\n");
    expect(ok(tsv).stdout.split("\n").filter(Boolean).sort()).toEqual(["Shaped A\t1500\t{}", "Shaped B\t2500\t{}"]);
    expect(ok(obj).stdout).toBe(`Shaped A (${first.id})\n`);
  });

  it("a bad expression is exit 2 before anything is sent; a failing one exit 1; errors stay JSON", async () => {
    const [bad, created, failing, unknownField, both, empty] = await Promise.all([
      run(["products", "create", "Never made", "--price", "100", "--jq", ".[[["]),
      run(["products", "create", "Never made 2", "--price", "100", "--template", "{{.id"]),
      run(["products", "list", "--jq", ".[0].name | .nope"]),
      run(["products", "list", "--json=id,nope"]),
      run(["products", "list", "--jq", ".", "--template", "{{.id}}"]),
      run(["products", "list", "--json="]),
    ]);
    expect(bad.exitCode).toBe(2);
    expect(parseJson<{ error: { message: string; code: string } }>(bad.stderr).error).toMatchObject({ code: "usage", message: expect.stringMatching(/^--jq: syntax error/) });
    expect(created.exitCode).toBe(2);
    const all = await seller.sdk.products.list({ limit: 100 });
    expect(all.result.items.map((p) => p.name)).not.toContain("Never made");
    expect(all.result.items.map((p) => p.name)).not.toContain("Never made 2");
    expect(failing.exitCode).toBe(1);
    expect(parseJson<{ error: { message: string } }>(failing.stderr).error.message).toContain("Cannot index string");
    expect(unknownField.exitCode).toBe(2);
    expect(parseJson<{ error: { message: string; hint: string } }>(unknownField.stderr).error).toMatchObject({ message: "--json: unknown field nope", hint: expect.stringContaining("price") });
    expect([both.exitCode, empty.exitCode]).toEqual([2, 2]);
    expect(bad.stdout + failing.stdout + unknownField.stdout).toBe("");
  });

  it("till api and every other --json command go through the same printer", async () => {
    const r = await run(["api", "GET", "/v1/products/", "--jq", ".items | length"]);
    expect(ok(r).stdout).toBe("2\n");
  });

  it("jq is loaded only when --jq is given", async () => {
    const trace = async (name: string, args: string[]) => {
      const file = tmp(`trace-${name}.txt`);
      writeFileSync(file, "");
      ok(await run(args, { nodeArgs: ["--import", TRACE_HOOK], env: { ...cli.env, TILL_TRACE_FILE: file } }));
      return readFileSync(file, "utf8").split("\n");
    };
    const [json, fields, jq] = await Promise.all([
      trace("json", ["products", "list", "--json"]),
      trace("fields", ["products", "list", "--json=id"]),
      trace("jq", ["products", "list", "--jq", ".[].id"]),
    ]);
    const loadsJq = (urls: string[]) => urls.some((u) => u.includes("/node_modules/jq-web/"));
    expect(json.some((u) => u.endsWith("/bin/till.js"))).toBe(true);
    expect([loadsJq(json), loadsJq(fields), loadsJq(jq)]).toEqual([false, false, true]);
  });
});

describe("till open", () => {
  it("prints the page in a pipe: the dashboard, a checkout's page, a new portal session", async () => {
    const product = (await seller.sdk.products.create({ name: "Openable", prices: [{ amountType: "fixed", priceAmount: 900, priceCurrency: "usd" }] })).id;
    const checkout = await seller.sdk.checkouts.create({ products: [product] });
    const customer = await seller.sdk.customers.create({ email: `open-${Date.now()}@example.com`, externalId: `open-${Date.now()}` });
    const [dashboard, page, json, portal, byExternal] = await Promise.all([
      run(["open"], noKey()),
      run(["open", "checkout", checkout.id]),
      run(["open", "checkout", checkout.id, "--json"]),
      run(["open", "portal", customer.id, "--print"]),
      run(["open", "portal", "--external-id", customer.externalId as string, "--json"]),
    ]);
    expect(ok(dashboard).stdout).toBe(`${server.url}/\n`);
    expect(ok(page).stdout).toBe(`${checkout.url}\n`);
    expect(parseJson(ok(json).stdout)).toEqual({ target: "checkout", url: checkout.url, expires_at: checkout.expiresAt.toISOString(), opened: false });
    const url = new URL(ok(portal).stdout.trim());
    expect(url.pathname).toBe("/portal");
    expect(portal.stderr).toContain("anyone holding it acts as the customer");
    // the link is a working customer session
    const me = await rawRequest(server.url, url.searchParams.get("customer_session_token") as string, "GET", "/v1/customer-portal/customers/me");
    expect([me.status, (me.body as { id: string }).id]).toEqual([200, customer.id]);
    expect(parseJson<{ target: string; url: string }>(ok(byExternal).stdout)).toMatchObject({ target: "portal", url: expect.stringContaining("/portal?customer_session_token=") });
  });

  it("in a terminal: opens the page with the system's opener, else prints it; never ends silently", async () => {
    // the bug this guards: at a terminal the process ended (exit 0, nothing printed) while the opener ran
    const product = (await seller.sdk.products.create({ name: "Open here", prices: [{ amountType: "fixed", priceAmount: 900, priceCurrency: "usd" }] })).id;
    const checkout = await seller.sdk.checkouts.create({ products: [product] });
    const failing = fakeBrowser(1);
    const succeeding = fakeBrowser(0);
    const inTerminal = async (args: string[], env: Record<string, string>) => {
      const r = await spawnTillInTerminal(args, { ...cli, env: { ...cli.env, ...env } });
      return { exitCode: r.exitCode, screen: finalScreen(String(r.stdout)) };
    };
    const [none, fails, opens, page] = await Promise.all([
      inTerminal(["open"], {}),
      inTerminal(["open"], failing.env),
      inTerminal(["open"], succeeding.env),
      inTerminal(["open", "checkout", checkout.id], succeeding.env),
    ]);
    for (const r of [none, fails]) {
      expect(r).toEqual({ exitCode: 0, screen: `${server.url}/\nNo browser could be opened: open the link above yourself.\n` });
    }
    expect(opens).toEqual({ exitCode: 0, screen: `Opened ${server.url}/ in your browser.\n` });
    expect(page).toEqual({ exitCode: 0, screen: `Opened ${checkout.url} in your browser.\n` });
    expect([...new Set(failing.opened())]).toEqual([`${server.url}/`]);
    expect(succeeding.opened().sort()).toEqual([`${server.url}/`, checkout.url].sort());
  });

  it("exit codes: unknown page or bad id 2, unknown checkout 1, no credentials 4", async () => {
    const [page, missing, malformed, unknown, signedOut, stray] = await Promise.all([
      run(["open", "invoices"]),
      run(["open", "checkout"]),
      run(["open", "checkout", "abc"]),
      run(["open", "checkout", "0b5c1d2e-0000-4000-8000-000000000000"]),
      run(["open", "portal", "0b5c1d2e-0000-4000-8000-000000000000"], noKey()),
      run(["open", "dashboard", "--external-id", "x"]),
    ]);
    expect([page.exitCode, missing.exitCode, malformed.exitCode, unknown.exitCode, signedOut.exitCode, stray.exitCode]).toEqual([2, 2, 2, 1, 4, 2]);
    expect(missing.stderr).toContain("missing the checkout's id");
  });
});

describe("till events list", () => {
  it("--customer (id or external id), --name, --since, --until, pages like the other lists", async () => {
    const customer = await seller.sdk.customers.create({ email: `events-${Date.now()}@example.com`, externalId: "ev_user_1" });
    const old = new Date(Date.now() - 3 * 86_400_000);
    await seller.sdk.events.ingest({
      events: [
        { name: "api_call", externalCustomerId: "ev_user_1", metadata: { tokens: 5 } },
        { name: "api_call", externalCustomerId: "ev_user_1", timestamp: old, metadata: { tokens: 7 } },
        { name: "upload", externalCustomerId: "ev_user_1" },
        { name: "api_call", externalCustomerId: "ev_user_2" },
      ],
    });
    const names = (r: TillResult) => parseJson<{ name: string; external_customer_id: string | null }[]>(ok(r).stdout).map((e) => `${e.name}/${e.external_customer_id}`).sort();
    const [byExternal, byId, byName, since, until, page, plain] = await Promise.all([
      run(["events", "list", "--customer", "ev_user_1", "--json"]),
      run(["events", "list", "--customer", customer.id, "--name", "api_call", "--json"]),
      run(["events", "list", "--name", "api_call", "--json"]),
      run(["events", "list", "--customer", "ev_user_1", "--since", "1d", "--json"]),
      run(["events", "list", "--until", new Date(Date.now() - 86_400_000).toISOString().slice(0, 10), "--json"]),
      run(["events", "list", "--name", "api_call", "--limit", "1"]),
      run(["events", "ls", "--customer", "ev_user_2"]),
    ]);
    expect(names(byExternal)).toEqual(["api_call/ev_user_1", "api_call/ev_user_1", "upload/ev_user_1"]);
    expect(names(byId)).toEqual(["api_call/ev_user_1", "api_call/ev_user_1"]);
    expect(names(byName)).toEqual(["api_call/ev_user_1", "api_call/ev_user_1", "api_call/ev_user_2"]);
    expect(names(since)).toEqual(["api_call/ev_user_1", "upload/ev_user_1"]);
    expect(parseJson<{ timestamp: string }[]>(ok(until).stdout).map((e) => e.timestamp)).toEqual([old.toISOString()]);
    expect(ok(page).stdout.trim().split("\n")).toHaveLength(1);
    expect(page.stderr).toContain("Showing 1–1 of 3 events: --page 2 for more");
    expect(ok(plain).stdout).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\tapi_call\tev_user_2\tnone\t[0-9a-f-]{36}\n$/);
  });

  it("a bad --since or --source is exit 2, no credentials 4", async () => {
    const [since, source, signedOut] = await Promise.all([
      run(["events", "list", "--since", "yesterday"]),
      run(["events", "list", "--source", "robot"]),
      run(["events", "list"], noKey()),
    ]);
    expect([since.exitCode, source.exitCode, signedOut.exitCode]).toEqual([2, 2, 4]);
    expect(since.stderr).toContain("--since");
  });
});

describe("till files", () => {
  it("upload: a download in several parts, checked by the server; product media served publicly", async () => {
    // 8 MB parts: this one takes two
    const big = Buffer.alloc(9 * 1024 * 1024 + 123, 7);
    big.write("%PDF-1.4 the book", 0);
    const bookFile = tmp("book.pdf");
    writeFileSync(bookFile, big);
    const png = Buffer.from(Array.from({ length: 3000 }, (_, i) => (i * 13) % 256));
    const coverFile = tmp("cover.png");
    writeFileSync(coverFile, png);
    const [book, cover, plain] = await Promise.all([
      run(["files", "upload", bookFile, "--name", "The Book.pdf", "--file-version", "2", "--json"]),
      run(["files", "upload", coverFile, "--service", "product_media", "--json"]),
      run(["files", "upload", coverFile, "--service", "product_media"]),
    ]);
    const b = parseJson<Record<string, unknown>>(ok(book).stdout);
    expect(b).toMatchObject({
      name: "The Book.pdf",
      mime_type: "application/pdf",
      size: big.length,
      service: "downloadable",
      version: "2",
      is_uploaded: true,
      checksum_sha256_hex: createHash("sha256").update(big).digest("hex"),
    });
    expect(b.checksum_etag).toMatch(/-2$/);
    const c = parseJson<{ id: string; public_url: string; mime_type: string }>(ok(cover).stdout);
    expect(c.mime_type).toBe("image/png");
    const served = await fetch(c.public_url);
    expect(Buffer.from(await served.arrayBuffer()).equals(png)).toBe(true);
    expect(ok(plain).stdout).toMatch(/^Uploaded till-tools-\d+-cover\.png \(2\.9 KB, image\/png\) as file [0-9a-f-]{36}\.\n$/);

    const listed = parseJson<{ id: string; is_uploaded: boolean }[]>(ok(await run(["files", "list", "--all", "--json"])).stdout);
    expect(listed.map((f) => f.id)).toEqual(expect.arrayContaining([b.id, c.id]));
    // usable where a file id is asked for
    const benefit = await run(["benefits", "create", "downloadables", "--description", "The book", "--file", b.id as string, "--json"]);
    expect(ok(benefit).exitCode).toBe(0);
  });

  it("exit codes: no such file or a refused type 2, no credentials 4", async () => {
    const pdf = tmp("not-an-image.pdf");
    writeFileSync(pdf, "%PDF-1.4");
    const [missing, refused, service, signedOut] = await Promise.all([
      run(["files", "upload", tmp("nope.bin")]),
      run(["files", "upload", pdf, "--service", "product_media"]),
      run(["files", "upload", pdf, "--service", "avatar"]),
      run(["files", "upload", pdf], noKey()),
    ]);
    expect([missing.exitCode, refused.exitCode, service.exitCode, signedOut.exitCode]).toEqual([2, 2, 2, 4]);
    expect(missing.stderr).toContain("cannot read it (ENOENT)");
    expect(refused.stderr).toContain("image");
  });
});

describe("till trigger --list and --override", () => {
  it("--list: a line per event type with what it creates; --json names the objects", async () => {
    const [list, json] = await Promise.all([run(["trigger", "--list"]), run(["trigger", "--list", "--json"])]);
    const lines = ok(list).stdout.trimEnd().split("\n");
    expect(lines).toHaveLength(27);
    expect(lines.find((l) => l.startsWith("order.refunded "))).toMatch(/^order\.refunded +a test-card purchase .*, then refunds the order in full$/);
    const rows = parseJson<{ type: string; does: string; creates: string[] }[]>(ok(json).stdout);
    expect(rows.find((r) => r.type === "order.paid")?.creates).toEqual(["benefit", "product", "checkout", "customer"]);
    expect(rows.find((r) => r.type === "organization.updated")?.creates).toEqual([]);
  });

  it("--override sets fields of the objects it creates", async () => {
    const email = `override-${Date.now()}@example.com`;
    const r = await run([
      "trigger",
      "order.paid",
      "--override",
      "product.name=Overridden plan",
      "--override",
      "product.prices.0.price_amount:=2500",
      "--override",
      "checkout.metadata.campaign=spring",
      "--override",
      `customer.email=${email}`,
      "--json",
    ]);
    const out = parseJson<{ created: Record<string, string>; overrides: string[] }>(ok(r).stdout);
    expect(out.overrides).toHaveLength(4);
    const product = await seller.sdk.products.get({ id: out.created.product as string });
    expect(product.name).toBe("Overridden plan");
    expect(product.prices[0]).toMatchObject({ priceAmount: 2500 });
    const checkout = await seller.sdk.checkouts.get({ id: out.created.checkout as string });
    expect(checkout.metadata).toMatchObject({ campaign: "spring", till_trigger: "order.paid" });
    const order = await seller.sdk.orders.get({ id: out.created.order as string });
    expect(order.customer.email).toBe(email);
    expect(order.totalAmount).toBeGreaterThanOrEqual(2500);
  });

  it("an object the type does not create, or a malformed override, is exit 2 before anything is made", async () => {
    const before = (await seller.sdk.products.list({ limit: 100 })).result.pagination.totalCount;
    const [stray, malformed, badJson, refused] = await Promise.all([
      run(["trigger", "product.created", "--override", "refund.amount:=3"]),
      run(["trigger", "product.created", "--override", "name=x"]),
      run(["trigger", "product.created", "--override", "product.prices:=[oops"]),
      run(["trigger", "product.created", "--override", "product.name:=123"]),
    ]);
    expect([stray.exitCode, malformed.exitCode, badJson.exitCode]).toEqual([2, 2, 2]);
    expect(stray.stderr).toContain("product.created creates no refund (it creates product)");
    // the server's 422 for a value it refuses is exit 2 too, and nothing is made
    expect(refused.exitCode).toBe(2);
    expect((await seller.sdk.products.list({ limit: 100 })).result.pagination.totalCount).toBe(before);
  });
});
