// `till products update --add-on` marks add-ons of a base product; `till subscriptions update|preview --add-on
// <product>[=qty] --remove-add-on <product>` adds, requantifies and removes them (the flags applied to the set the
// subscription holds), printing the preview before asking at a terminal. The CLI as a child process against the real
// server; what changed read back through the API.
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { subscription } from "../../server/db/schema/index.js";
import { rawRequest } from "../helpers/api.js";
import { salesFixture } from "./sales-fixtures.js";
import { json, ok } from "./seller-cli-fixtures.js";

const fx = salesFixture();
const DAY = 86_400_000;
// eslint-disable-next-line no-control-regex
const shown = (out: unknown) => String(out).replace(/\x1b\[[0-9;?]*[A-Za-z]/g, "").replace(/\r/g, "");

interface Item {
  product_id: string;
  quantity: number;
  amount: number;
}

describe("till and add-ons", () => {
  it("products update --add-on marks them; subscriptions update adds, requantifies and removes them, previewed first", async () => {
    const addOn = async (name: string, amount: number) =>
      (await fx.seller.sdk.products.create({ name, recurringInterval: "month", prices: [{ amountType: "fixed", priceAmount: amount, priceCurrency: "usd" }] })).id;
    const base = (await fx.seller.sdk.products.create({ name: "Base", recurringInterval: "month", prices: [{ amountType: "fixed", priceAmount: 3000, priceCurrency: "usd" }] })).id;
    const storage = await addOn("Storage", 500);
    const support = await addOn("Support", 1000);
    const marked = json<{ add_on_ids: string[] }>(await fx.run(["products", "update", base, "--add-on", storage, "--add-on", support, "--json"]));
    expect(marked.add_on_ids).toEqual([storage, support]);
    expect(ok(await fx.run(["products", "get", base])).stdout).toContain(`${storage}, ${support}`);
    // another interval is refused by the server, named by its flag's value
    const refused = await fx.run(["products", "update", base, "--add-on", fx.yearly.id]);
    expect(refused.exitCode).toBe(2);

    const product = await fx.seller.sdk.products.get({ id: base });
    const id = (await fx.buy(product)).subscriptionId ?? "";
    const start = new Date(Date.now() - 10 * DAY);
    await fx.server.database.db.update(subscription)
      .set({ currentPeriodStart: start, currentPeriodEnd: new Date(start.getTime() + 30 * DAY), startedAt: start }).where(eq(subscription.id, id));
    const items = async () => ((await rawRequest(fx.server.url, fx.seller.token, "GET", `/v1/subscriptions/${id}`)).body.items as Item[]).map((i) => [i.product_id, i.quantity]);

    // the preview changes nothing
    const previewed = ok(await fx.run(["subscriptions", "preview", id, "--add-on", `${storage}=3`, "--proration", "invoice"])).stdout;
    expect(previewed).toContain("Billed now:\n  Remaining time on Storage × 3: $");
    expect(previewed).toContain("  total: $45.00\n");
    expect(await items()).toEqual([]);

    // at a terminal: the preview, then the question; no changes nothing, yes bills what it showed
    const declined = await fx.onTerminal(`subscriptions update ${id} --add-on ${storage}=3 --add-on ${support} --proration invoice`, "no");
    expect(declined.exitCode).toBe(2);
    expect(shown(declined.stdout)).toContain("Remaining time on Support: $");
    expect(shown(declined.stdout)).toContain("Make this change? [y/N]");
    expect(await items()).toEqual([]);
    const accepted = await fx.onTerminal(`subscriptions update ${id} --add-on ${storage}=3 --add-on ${support} --proration invoice`, "y");
    expect(accepted.exitCode).toBe(0);
    expect(shown(accepted.stdout)).toContain("add-ons Storage × 3 ($15.00), Support ($10.00)");
    expect(await items()).toEqual([[storage, 3], [support, 1]]);
    const orders = (await fx.seller.sdk.orders.list({ subscriptionId: id, limit: 100 })).result.items;
    const billed = orders.find((o) => o.billingReason === "subscription_update");
    if (!billed) throw new Error("no subscription_update order");
    expect(shown(accepted.stdout)).toContain(`  total: $${(billed.totalAmount / 100).toFixed(2)}\n`);

    // a quantity changed and an add-on removed in one update; the others stay
    ok(await fx.run(["subscriptions", "update", id, "--add-on", `${storage}=1`, "--remove-add-on", support, "--proration", "prorate"]));
    expect(await items()).toEqual([[storage, 1]]);
    expect(ok(await fx.run(["subscriptions", "get", id])).stdout).toContain("Storage ($5.00)");
    // next_period waits: shown as the pending change
    const waiting = ok(await fx.run(["subscriptions", "update", id, "--remove-add-on", storage, "--proration", "next_period"])).stdout;
    expect(waiting).toContain("Waits for the period's end: no add-ons on ");
    expect(await items()).toEqual([[storage, 1]]);

    const bad = await fx.run(["subscriptions", "update", id, "--add-on", `${storage}=0`]);
    expect(bad.exitCode).toBe(2);
    const mixed = await fx.run(["subscriptions", "update", id, "--add-on", storage, "--seats", "2"]);
    expect([mixed.exitCode, mixed.stderr]).toEqual([2, "error: --seats and --add-on, --remove-add-on: one kind of change per update (the API applies one at a time); run update once for each\n"]);
    // an add-on the subscription does not hold (the waiting change holds none): refused before anything is sent
    const absent = await fx.run(["subscriptions", "update", id, "--remove-add-on", support, "--yes"]);
    expect([absent.exitCode, absent.stderr]).toEqual([2, `error: --remove-add-on: ${support} is not an add-on of this subscription; nothing was changed\n`]);
    expect(await items()).toEqual([[storage, 1]]);
  });
});
