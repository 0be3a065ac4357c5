// `till subscriptions preview|upcoming`, and the preview `update` prints and asks about at a terminal: the CLI as a
// child process against the real server, what changed (nothing, for a preview) read back through the Polar SDK.
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { subscription } from "../../server/db/schema/index.js";
import { salesFixture } from "./sales-fixtures.js";
import { json, ok } from "./seller-cli-fixtures.js";

const fx = salesFixture();
const DAY = 86_400_000;
/** What a terminal showed, without its escape sequences and carriage returns. */
// eslint-disable-next-line no-control-regex
const shown = (out: unknown) => String(out).replace(/\x1b\[[0-9;?]*[A-Za-z]/g, "").replace(/\r/g, "");

/** A seat subscription (2 seats) ten days into its 30-day period. */
async function seated(): Promise<string> {
  const id = (await fx.buy(fx.seats, { seats: 2 })).subscriptionId ?? "";
  const start = new Date(Date.now() - 10 * DAY);
  await fx.server.database.db
    .update(subscription)
    .set({ currentPeriodStart: start, currentPeriodEnd: new Date(start.getTime() + 30 * DAY), startedAt: start })
    .where(eq(subscription.id, id));
  return id;
}

interface Draft {
  total_amount: number;
  due_amount: number;
  items: Array<{ label: string; amount: number }>;
}

describe("till subscriptions preview and upcoming", () => {
  it("preview prints what update would bill and changes nothing; upcoming shows the next renewal; --json", async () => {
    const id = await seated();
    const before = await fx.seller.sdk.subscriptions.get({ id });
    const previewed = json<{ order: Draft; next_renewal: Draft; proration_behavior: string }>(
      await fx.run(["subscriptions", "preview", id, "--seats", "5", "--proration", "invoice", "--json"]),
    );
    expect(previewed.proration_behavior).toBe("invoice");
    expect(previewed.order.items.map((i) => i.label)).toEqual(["Unused time on 2 seats", "Remaining time on 5 seats"]);
    expect(previewed.order.total_amount).toBeGreaterThan(0);
    // 5 seats at $8
    expect(previewed.next_renewal.total_amount).toBe(4000);
    const text = ok(await fx.run(["subscriptions", "preview", id, "--seats", "5", "--proration", "invoice"])).stdout;
    expect(text).toContain("Proration: invoice.\nBilled now:\n  Unused time on 2 seats: -$");
    expect(text).toContain("Next renewal, ");
    expect(text).toContain("  total: $40.00\n");
    expect(text).toContain("Nothing was changed: `till subscriptions update");
    expect(await fx.seller.sdk.subscriptions.get({ id })).toEqual(before);

    const upcoming = json<Draft & { renews_at: string }>(await fx.run(["subscriptions", "upcoming", id, "--json"]));
    expect(upcoming).toMatchObject({ total_amount: before.amount, due_amount: before.amount, renews_at: before.currentPeriodEnd?.toISOString() });
    expect(ok(await fx.run(["subscriptions", "upcoming", id])).stdout).toContain(`Next renewal of ${id}, ${before.currentPeriodEnd?.toISOString().slice(0, 10)}:\n`);

    const bad = await fx.run(["subscriptions", "preview", id]);
    expect([bad.exitCode, bad.stderr]).toEqual([2, "error: nothing to update: pass --product, --discount, --trial-end, --seats, --add-on, --remove-add-on or --billing-period-end\n"]);
    const foreign = await fx.run(["subscriptions", "upcoming", "00000000-0000-4000-8000-000000000000"]);
    expect(foreign.exitCode).toBe(1);
  });

  it("update at a terminal prints the preview and asks: no changes nothing; yes bills what it showed", async () => {
    const id = await seated();
    const declined = await fx.onTerminal(`subscriptions update ${id} --seats 4 --proration invoice`, "no");
    expect(declined.exitCode).toBe(2);
    expect(shown(declined.stdout)).toContain("Unused time on 2 seats: -$");
    expect(shown(declined.stdout)).toContain("Make this change? [y/N]");
    expect(shown(declined.stdout)).toContain("Cancelled: nothing was changed.");
    expect((await fx.seller.sdk.subscriptions.get({ id })).seats).toBe(2);

    const accepted = await fx.onTerminal(`subscriptions update ${id} --seats 4 --proration invoice`, "y");
    expect(accepted.exitCode).toBe(0);
    expect((await fx.seller.sdk.subscriptions.get({ id })).seats).toBe(4);
    const orders = (await fx.seller.sdk.orders.list({ subscriptionId: id, limit: 100 })).result.items;
    const billed = orders.find((o) => o.billingReason === "subscription_update");
    if (!billed) throw new Error("no subscription_update order");
    // the change went with the preview's proration_date: the total billed is the one shown
    expect(shown(accepted.stdout)).toContain(`  total: $${(billed.totalAmount / 100).toFixed(2)}\n`);

    // --yes at a terminal: no preview, no question, the change made
    const yes = await fx.onTerminal(`subscriptions update ${id} --seats 3 --proration prorate --yes`, "");
    expect(yes.exitCode).toBe(0);
    expect(shown(yes.stdout)).not.toContain("Make this change?");
    expect(shown(yes.stdout)).not.toContain("Next renewal");
    expect((await fx.seller.sdk.subscriptions.get({ id })).seats).toBe(3);
    // and a pipe asks nobody, as before
    ok(await fx.run(["subscriptions", "update", id, "--seats", "4", "--proration", "prorate", "--yes"]));
    ok(await fx.run(["subscriptions", "update", id, "--seats", "5", "--proration", "prorate"]));
    expect((await fx.seller.sdk.subscriptions.get({ id })).seats).toBe(5);
  });
});
