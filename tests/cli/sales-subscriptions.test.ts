// `till subscriptions`, end to end: the CLI as a child process against the real server with an organization API
// key, what it changed read back through the Polar SDK; the ask-first revoke runs under `script` for a real
// terminal.
import { describe, expect, it } from "vitest";
import { salesFixture } from "./sales-fixtures.js";
import { json, ok } from "./seller-cli-fixtures.js";

const fx = salesFixture();

describe("till subscriptions", () => {
  it("list and get; cancel with a reason, uncancel", async () => {
    const { subscriptionId, customerId } = await fx.buy(fx.monthly);
    const id = subscriptionId ?? "";
    const [listed, active, plain, get] = await Promise.all([
      fx.run(["subscriptions", "list", "--customer", customerId, "--json"]),
      fx.run(["subscriptions", "list", "--active", "--product", fx.monthly.id, "--all", "--json"]),
      fx.run(["subscriptions", "list", "--customer", customerId]),
      fx.run(["subscriptions", "get", id]),
    ]);
    expect(json<{ id: string; status: string }[]>(listed)).toMatchObject([{ id, status: "active" }]);
    expect(json<{ id: string }[]>(active).map((s) => s.id)).toContain(id);
    const sub = await fx.seller.sdk.subscriptions.get({ id });
    const periodEnd = sub.currentPeriodEnd?.toISOString().slice(0, 10);
    expect(ok(plain).stdout).toBe(`${id}\tactive\t${sub.customer.email}\t${fx.monthly.name}\t$9.00 every month\t${periodEnd}\n`);
    expect(ok(get).stdout).toContain(`ID: ${id}\nStatus: active\nCustomer: ${sub.customer.email} (${customerId})\nProduct: ${fx.monthly.name} (${fx.monthly.id})\nAmount: $9.00 every month\n`);
    expect(get.stdout).toContain(`Renews: ${periodEnd}\n`);

    const canceled = ok(await fx.run(["subscriptions", "cancel", id, "--reason", "too_expensive", "--comment", "asked by email"]));
    expect(canceled.stdout).toBe(
      `Subscription ${id} (${sub.customer.email}, ${fx.monthly.name}) ends on ${periodEnd}; it stays active until then. \`till subscriptions uncancel ${id}\` keeps it.\n`,
    );
    expect(await fx.seller.sdk.subscriptions.get({ id })).toMatchObject({
      status: "active",
      cancelAtPeriodEnd: true,
      customerCancellationReason: "too_expensive",
      customerCancellationComment: "asked by email",
    });
    expect(json<{ id: string }[]>(await fx.run(["subscriptions", "list", "--canceling", "--all", "--json"])).map((s) => s.id)).toContain(id);
    expect(ok(await fx.run(["subscriptions", "get", id])).stdout).toContain(`Status: active, ends ${periodEnd}\n`);

    const kept = json<{ cancel_at_period_end: boolean }>(await fx.run(["subscriptions", "uncancel", id, "--json"]));
    expect(kept.cancel_at_period_end).toBe(false);
    expect((await fx.seller.sdk.subscriptions.get({ id })).cancelAtPeriodEnd).toBe(false);
  });

  it("update: product with proration, discount and none, seats", async () => {
    const id = (await fx.buy(fx.monthly)).subscriptionId ?? "";
    const discount = await fx.seller.sdk.discounts.create({ name: "Half", type: "percentage", basisPoints: 5000, duration: "forever" });
    const moved = ok(await fx.run(["subscriptions", "update", id, "--product", fx.yearly.id, "--proration", "invoice"]));
    expect(moved.stdout).toMatch(new RegExp(`^Updated subscription ${id} \\(\\S+\\): product Yearly; \\$90\\.00 every year\\.\\n$`));
    expect(await fx.seller.sdk.subscriptions.get({ id })).toMatchObject({ productId: fx.yearly.id, amount: 9000, recurringInterval: "year" });

    const withDiscount = json<{ discount_id: string }>(await fx.run(["subscriptions", "update", id, "--discount", discount.id, "--json"]));
    expect(withDiscount.discount_id).toBe(discount.id);
    ok(await fx.run(["subscriptions", "update", id, "--discount", "none"]));
    expect((await fx.seller.sdk.subscriptions.get({ id })).discountId).toBeNull();

    const seated = (await fx.buy(fx.seats, { seats: 2 })).subscriptionId ?? "";
    const r = ok(await fx.run(["subscriptions", "update", seated, "--seats", "5"]));
    expect(r.stdout).toMatch(/: 5 seats; \$40\.00 every month\.\n$/);
    expect(await fx.seller.sdk.subscriptions.get({ id: seated })).toMatchObject({ seats: 5, amount: 4000 });
  });

  it("bad input exits 2 before anything is sent; the server's refusal exits 1 and changes nothing", async () => {
    const id = (await fx.buy(fx.monthly)).subscriptionId ?? "";
    const results = await Promise.all([
      fx.run(["subscriptions", "update", id]),
      fx.run(["subscriptions", "update", id, "--product", fx.yearly.id, "--seats", "3"]),
      fx.run(["subscriptions", "update", id, "--proration", "invoice", "--discount", "none"]),
      fx.run(["subscriptions", "update", id, "--proration", "sometimes", "--product", fx.yearly.id]),
      fx.run(["subscriptions", "update", id, "--seats", "0"]),
      fx.run(["subscriptions", "cancel", id, "--reason", "bored"]),
      fx.run(["subscriptions", "list", "--status", "paused"]),
    ]);
    expect(results.map((r) => r.stderr)).toEqual([
      "error: nothing to update: pass --product, --discount, --trial-end, --seats, --add-on, --remove-add-on or --billing-period-end\n",
      "error: --product and --seats: one kind of change per update (the API applies one at a time); run update once for each\n",
      "error: --proration: only with --product, --seats or add-ons\n",
      "error: option '--proration <behavior>' argument 'sometimes' is invalid. expected one of invoice, prorate, next_period, reset.\n",
      "error: option '--seats <n>' argument '0' is invalid. expected a whole number of at least 1.\n",
      "error: option '--reason <reason>' argument 'bored' is invalid. expected one of customer_service, low_quality, missing_features, switched_service, too_complex, too_expensive, unused, other.\n",
      "error: option '--status <status>' argument 'paused' is invalid. expected one of incomplete, incomplete_expired, trialing, active, past_due, canceled, unpaid.\n",
    ]);
    expect(results.every((r) => r.exitCode === 2)).toBe(true);
    const notSeats = await fx.run(["subscriptions", "update", id, "--seats", "3"]);
    expect([notSeats.exitCode, notSeats.stderr]).toEqual([2, `error: --seats: This subscription is not seat-based.\n`]);
    expect(await fx.seller.sdk.subscriptions.get({ id })).toMatchObject({ status: "active", productId: fx.monthly.id, cancelAtPeriodEnd: false });
  });

  it("revoke: refused without --yes when nobody can answer (exit 2, nothing changed); --yes revokes, with a reason too", async () => {
    const [a, b] = await Promise.all([fx.buy(fx.monthly), fx.buy(fx.monthly)]);
    const first = a.subscriptionId ?? "";
    const second = b.subscriptionId ?? "";
    const [refused, refusedJson] = await Promise.all([fx.run(["subscriptions", "revoke", first]), fx.run(["subscriptions", "revoke", first, "--json", "--reason", "unused"])]);
    expect(refused.exitCode).toBe(2);
    expect(refused.stdout).toBe("");
    expect(refused.stderr).toBe(
      `error: revoke needs confirmation: subscription ${first} would end now, its benefits revoked, and nobody to ask\n` +
        `hint: check it with \`till subscriptions get ${first}\`, then run \`till subscriptions revoke ${first} --yes\`\n`,
    );
    expect(refusedJson.exitCode).toBe(2);
    expect(JSON.parse(refusedJson.stderr)).toMatchObject({ error: { code: "usage" } });
    expect(await fx.seller.sdk.subscriptions.get({ id: first })).toMatchObject({ status: "active", endedAt: null });

    const revoked = ok(await fx.run(["subscriptions", "revoke", first, "--yes"]));
    expect(revoked.stdout).toMatch(new RegExp(`^Revoked subscription ${first} \\(\\S+, ${fx.monthly.name}\\): ended now, benefits revoked\\.\\n$`));
    expect((await fx.seller.sdk.subscriptions.get({ id: first })).status).toBe("canceled");
    const withReason = json<{ status: string; customer_cancellation_reason: string }>(
      await fx.run(["subscriptions", "revoke", second, "--reason", "unused", "--comment", "moved on", "-y", "--json"]),
    );
    expect(withReason).toMatchObject({ status: "canceled", customer_cancellation_reason: "unused" });
    const third = (await fx.buy(fx.monthly)).subscriptionId ?? "";
    const declined = await fx.onTerminal(`subscriptions revoke ${third}`, "no");
    expect(declined.exitCode).toBe(2);
    expect(String(declined.stdout)).toContain(`Revoke ${fx.monthly.name} ($9.00 every month) of `);
    expect(String(declined.stdout)).toContain("Cancelled: nothing was changed.");
    expect(String(declined.stdout)).not.toContain("error:");
    expect(await fx.seller.sdk.subscriptions.get({ id: third })).toMatchObject({ status: "active", endedAt: null });

    const again = await fx.run(["subscriptions", "revoke", second, "--yes"]);
    expect([again.exitCode, again.stderr]).toEqual([
      1,
      `error: This subscription is already canceled or will be at the end of the period.\n`,
    ]);
  });
});
