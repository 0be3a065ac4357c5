// `till customers`, end to end: the CLI as a child process against the real server with an organization API
// key, a customer named by email where a seller knows only that, and what it changed read back through the SDK.
import { describe, expect, it } from "vitest";
import { createApiCallsMeter, createProduct, subscribeThroughCheckout } from "../helpers/checkout.js";
import { parseJson } from "./till.js";
import { sellerCliFixture, ok, idOf } from "./seller-cli-fixtures.js";

const fx = sellerCliFixture("cli-resources");

describe("a customer named by email where a seller knows only that", () => {
  it("customers get, state, portal, delete and `open portal` take the email; --customer on lists takes it too", async () => {
    const email = `only-email-${Date.now()}@example.com`;
    const c = parseJson<{ id: string }>(ok(await fx.run(["customers", "create", "--email", email, "--json"])).stdout);
    await fx.seller.sdk.events.ingest({ events: [{ name: "by_email", customerId: c.id }] });
    const [get, state, portal, open, orders, subscriptions, checkouts, refunds, keys, events] = await Promise.all([
      fx.run(["customers", "get", email, "--json"]),
      fx.run(["customers", "state", email.toUpperCase(), "--json"]),
      fx.run(["customers", "portal", email, "--json"]),
      fx.run(["open", "portal", email, "--json"]),
      fx.run(["orders", "list", "--customer", email, "--json"]),
      fx.run(["subscriptions", "list", "--customer", email, "--json"]),
      fx.run(["checkouts", "list", "--customer", email, "--json"]),
      fx.run(["refunds", "list", "--customer", email, "--json"]),
      fx.run(["license-keys", "list", "--customer", email, "--json"]),
      fx.run(["events", "list", "--customer", email, "--json"]),
    ]);
    expect(parseJson<{ id: string }>(ok(get).stdout).id).toBe(c.id);
    expect(parseJson<{ id: string }>(ok(state).stdout).id).toBe(c.id);
    expect(parseJson<{ customer_id: string }>(ok(portal).stdout).customer_id).toBe(c.id);
    const page = parseJson<{ target: string; url: string }>(ok(open).stdout);
    const token = new URL(page.url).searchParams.get("customer_session_token") ?? "";
    const me = await fetch(`${fx.server.url}/v1/customer-portal/customers/me`, { headers: { authorization: `Bearer ${token}` } });
    expect(((await me.json()) as { id: string }).id).toBe(c.id);
    for (const r of [orders, subscriptions, checkouts, refunds, keys]) expect(parseJson(ok(r).stdout)).toEqual([]);
    expect(parseJson<{ name: string; customer_id: string }[]>(ok(events).stdout)).toMatchObject([{ name: "by_email", customer_id: c.id }]);

    // checkouts for the customer found by email carry its id
    const product = (await fx.seller.sdk.products.create({ name: "By email", prices: [{ amountType: "fixed", priceAmount: 500, priceCurrency: "usd" }] })).id;
    const checkout = parseJson<{ id: string; customer_id: string }>(ok(await fx.run(["checkouts", "create", "--product", product, "--customer", email, "--json"])).stdout);
    expect(checkout.customer_id).toBe(c.id);
    const listed = parseJson<{ id: string }[]>(ok(await fx.run(["checkouts", "list", "--customer", email, "--json"])).stdout);
    expect(listed.map((x) => x.id)).toEqual([checkout.id]);

    // an email no customer has: exit 1, nothing changed; not an id nor an email: exit 2 before any request
    const [unknown, unknownFlag, malformed] = await Promise.all([
      fx.run(["open", "portal", "nobody@example.com"]),
      fx.run(["orders", "list", "--customer", "nobody@example.com"]),
      fx.run(["orders", "list", "--customer", "nobody"]),
    ]);
    expect([unknown.exitCode, unknownFlag.exitCode, malformed.exitCode]).toEqual([1, 1, 2]);
    expect(unknown.stderr).toBe(
      "error: no customer has the email nobody@example.com\nhint: `till customers list --query <text>` searches emails, names and external ids\n",
    );
    expect(malformed.stderr).toContain("expected the customer's id (a UUID such as 0b5c1d2e-…) or email");

    const deleted = ok(await fx.run(["customers", "delete", email]));
    expect(deleted.stdout).toBe(`Deleted customer ${email} (${c.id}).\n`);
    expect((await fx.run(["customers", "get", c.id])).exitCode).toBe(1);
  });
});

describe("till customers", () => {
  it("create, get by id and by external id, update, state, list, delete", async () => {
    const created = ok(await fx.run(["customers", "create", "--email", "ada@example.com", "--name", "Ada", "--external-id", "user_42", "--metadata", "plan=pro", "--json"]));
    const ada = parseJson<{ id: string }>(created.stdout);
    expect(await fx.seller.sdk.customers.get({ id: ada.id })).toMatchObject({ email: "ada@example.com", name: "Ada", externalId: "user_42", metadata: { plan: "pro" } });

    const [byId, byExternal] = await Promise.all([fx.run(["customers", "get", ada.id, "--json"]), fx.run(["customers", "get", "--external-id", "user_42", "--json"])]);
    expect(parseJson(byId.stdout)).toEqual(parseJson(byExternal.stdout));

    ok(await fx.run(["customers", "update", "--external-id", "user_42", "--name", "Ada Lovelace"]));
    ok(await fx.run(["customers", "update", ada.id, "--metadata", "plan=team"]));
    expect(await fx.seller.sdk.customers.get({ id: ada.id })).toMatchObject({ name: "Ada Lovelace", externalId: "user_42", metadata: { plan: "team" } });
    // an external id is set once (the server refuses to change it)
    const bob = idOf(await fx.run(["customers", "create", "--email", "bob@example.com", "--json"]));
    ok(await fx.run(["customers", "update", bob, "--set-external-id", "user_43"]));
    expect(await fx.seller.sdk.customers.get({ id: bob })).toMatchObject({ externalId: "user_43" });
    const change = await fx.run(["customers", "update", ada.id, "--set-external-id", "user_44"]);
    expect(change.exitCode).toBe(2);
    expect(change.stderr).toBe(`error: --set-external-id: Customer external ID cannot be updated.\n`);

    const state = ok(await fx.run(["customers", "state", "--external-id", "user_42", "--json"]));
    expect(parseJson(state.stdout)).toMatchObject({ id: ada.id, active_subscriptions: [], granted_benefits: [], active_meters: [] });
    const plainState = ok(await fx.run(["customers", "state", ada.id]));
    expect(plainState.stdout).toContain("Subscriptions: none\nBenefits: none\nMeters: none\n");

    const list = ok(await fx.run(["customers", "list", "--email", "ada@example.com"]));
    expect(list.stdout).toBe(`${ada.id}\tada@example.com\tAda Lovelace\tuser_42\n`);

    ok(await fx.run(["customers", "delete", "--external-id", "user_42"]));
    const gone = await fx.run(["customers", "get", ada.id]);
    expect(gone.exitCode).toBe(1);
    expect(gone.stderr).toBe(`error: Customer not found.\n`);

    const [both, neither, notUuid] = await Promise.all([
      fx.run(["customers", "get", ada.id, "--external-id", "x"]),
      fx.run(["customers", "state"]),
      fx.run(["customers", "delete", "user_43"]),
    ]);
    expect([both.exitCode, neither.exitCode, notUuid.exitCode]).toEqual([2, 2, 2]);
    expect(both.stderr).toBe("error: <id> and --external-id: address the customer by one of them\n");
    expect(neither.stderr).toBe("error: missing the customer: pass its <id> (or email) or --external-id <your id>\n");
    expect(notUuid.stderr).toBe('error: <id>: expected the customer\'s id (a UUID) or email, got "user_43"; use --external-id for your own ids\n');
  });

  it("portal prints a link to the customer's portal whose session works, by id or external id", async () => {
    const c = parseJson<{ id: string }>(ok(await fx.run(["customers", "create", "--email", "grace@example.com", "--external-id", "user_77", "--json"])).stdout);
    const byId = ok(await fx.run(["customers", "portal", c.id]));
    const url = new URL(byId.stdout.trim());
    expect(`${url.origin}${url.pathname}`).toBe(`${fx.server.url}/portal`);
    expect(byId.stderr).toContain("anyone holding it acts as the customer");
    const token = url.searchParams.get("customer_session_token") ?? "";
    const me = await fetch(`${fx.server.url}/v1/customer-portal/customers/me`, { headers: { authorization: `Bearer ${token}` } });
    expect(((await me.json()) as { id: string }).id).toBe(c.id);

    const json = parseJson<{ customer_id: string; return_url: string; token: string }>(
      ok(await fx.run(["customers", "portal", "--external-id", "user_77", "--return-url", "https://example.com/account", "--json"])).stdout,
    );
    expect(json).toMatchObject({ customer_id: c.id, return_url: "https://example.com/account" });
    const missing = await fx.run(["customers", "portal", "--external-id", "nobody"]);
    expect(missing.exitCode).toBe(2); // the server's 422 is invalid input: exit 2
    expect(missing.stderr).toContain("Customer does not exist.");
    expect((await fx.run(["customers", "portal"])).exitCode).toBe(2);
  });

  it("state names the products, benefits and meters a person reads; --json keeps the API's ids", async () => {
    const meter = await createApiCallsMeter(fx.seller);
    const product = await createProduct(fx.seller, "metered", {}, meter.id);
    const perk = await fx.seller.sdk.benefits.create({ type: "custom", description: "Priority support", properties: {} });
    await fx.seller.sdk.products.updateBenefits({ id: product.id, productBenefitsUpdate: { benefits: [perk.id] } });
    const sub = await subscribeThroughCheckout(fx.server, fx.seller.sdk, product.id, `stateful-${Date.now()}`);
    await fx.seller.sdk.events.ingest({ events: [{ name: "api.call", customerId: sub.customerId }] });
    // the customer's meter shows once its usage is counted
    for (let i = 0; i < 200 && (await fx.seller.sdk.customers.getState({ id: sub.customerId })).activeMeters.length === 0; i++) {
      await new Promise((r) => setImmediate(r));
    }
    const plain = ok(await fx.run(["customers", "state", sub.customerId]));
    expect(plain.stdout).toContain(`Subscriptions: ${product.name} (active, every month)\n`);
    expect(plain.stdout).toMatch(/\nBenefits: Priority support \(custom\) since \d{4}-\d{2}-\d{2}\n/);
    expect(plain.stdout).toContain("Meters: API calls: 1 used");
    for (const id of [product.id, perk.id, meter.id]) expect(plain.stdout).not.toContain(id);
    const json = parseJson<{ active_subscriptions: { product_id: string }[]; active_meters: { meter_id: string }[] }>(
      ok(await fx.run(["customers", "state", sub.customerId, "--json"])).stdout,
    );
    expect(json.active_subscriptions.map((x) => x.product_id)).toEqual([product.id]);
    expect(json.active_meters.map((m) => m.meter_id)).toEqual([meter.id]);
  });
});
