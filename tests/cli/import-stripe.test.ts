// `till import stripe|list|show` end to end: the CLI as a child process against the real server, whose worker reads a
// sandbox's Stripe stand-in holding a small Billing business (a meter and its metered price, a monthly product,
// customers, subscriptions), plans, imports and hands the subscriptions over; then undoes it.
import type Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ImportItemWire, StripeImportWire } from "../../shared/stripe-import.js";
import { createSeller } from "../helpers/seller.js";
import { peerClient } from "../helpers/stripe-billing-seed.js";
import { startStripeSandbox, type StripeSandbox } from "../helpers/stripe-sandbox.js";
import { parseJson, spawnTill, tempConfigDir, till, type TillOptions } from "./till.js";

type RunWithItems = StripeImportWire & { items: ImportItemWire[] };

let sandbox: StripeSandbox;
let stripe: Stripe;
let cli: TillOptions;
let subscriptionId: string;
let blockedCustomer: string;

/** The Billing business at the stand-in, made as a seller makes it: through Stripe's own library. */
async function seedStripe() {
  stripe = peerClient(sandbox.peer);
  const meter = await stripe.billing.meters.create({
    display_name: "API calls",
    event_name: "api_call",
    default_aggregation: { formula: "sum" },
    value_settings: { event_payload_key: "value" },
    customer_mapping: { type: "by_id", event_payload_key: "stripe_customer_id" },
  });
  const pro = await stripe.products.create({ name: "Pro" });
  const monthly = await stripe.prices.create({ product: pro.id, currency: "usd", unit_amount: 1000, recurring: { interval: "month" } });
  const usage = await stripe.products.create({ name: "API" });
  await stripe.prices.create({ product: usage.id, currency: "usd", unit_amount: 1, recurring: { interval: "month", usage_type: "metered", meter: meter.id } });
  await stripe.coupons.create({ id: "WELCOME", percent_off: 20, duration: "once" });
  const ada = await stripe.customers.create({ email: "ada@example.com", name: "Ada" });
  const card = await stripe.paymentMethods.attach("pm_card_visa", { customer: ada.id });
  await stripe.customers.update(ada.id, { invoice_settings: { default_payment_method: card.id } });
  blockedCustomer = (await stripe.customers.create({ name: "No Email" })).id;
  subscriptionId = (await stripe.subscriptions.create({ customer: ada.id, items: [{ price: monthly.id }] })).id;
}

beforeAll(async () => {
  sandbox = await startStripeSandbox();
  // the runs and the hand-overs are the worker's
  await sandbox.server.worker.start();
  cli = { configDir: tempConfigDir(), env: { TILL_API_KEY: sandbox.key, TILL_SERVER: sandbox.server.url } };
  await seedStripe();
}, 120_000);
afterAll(async () => {
  await sandbox?.close();
});

describe("till import stripe", () => {
  it("refuses --dry-run with --apply, and --undo with either, before sending anything", async () => {
    const both = await till(["import", "stripe", "--dry-run", "--apply"], cli);
    expect(both.exitCode).toBe(2);
    expect(both.stderr).toContain("--dry-run and --apply: choose one");
    const undo = await till(["import", "stripe", "--apply", "--undo", "0b5c1d2e-0000-4000-8000-000000000001"], cli);
    expect(undo.exitCode).toBe(2);
  });

  it("without Stripe connected the run fails: exit 1 with the reason", async () => {
    const other = await createSeller(sandbox.server, "import-unconnected");
    const r = await till(["import", "stripe"], { ...cli, env: { ...cli.env, TILL_API_KEY: await other.createSandboxKey() } });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain("Stripe is not connected");
    expect(r.stdout).toBe("");
  });

  it("plans first (nothing applied yet): the counts, the blocked customer with its reason, exit 1", async () => {
    const plan = await till(["import", "stripe"], cli);
    expect(plan.exitCode, plan.stderr).toBe(1);
    expect(plan.stderr).toContain("A dry run: nothing changes");
    expect(plan.stderr).toContain("planned (dry run: nothing was changed)");
    expect(plan.stdout).toContain(blockedCustomer);
    expect(plan.stderr).toContain("block the import: fix each at Stripe");

    const json = await till(["import", "stripe", "--dry-run", "--json"], cli);
    expect(json.exitCode).toBe(1);
    const run = parseJson(json.stdout) as RunWithItems;
    expect(run).toMatchObject({ object: "stripe_import", status: "planned", dry_run: true, blocked: 1, account: { id: "acct_1TillPay", livemode: false } });
    expect(run.items.find((i) => i.stripe_id === blockedCustomer)).toMatchObject({ kind: "customer", action: "blocked" });
    expect(run.items.find((i) => i.stripe_id === subscriptionId)).toMatchObject({ kind: "subscription", action: "create" });
    expect(run.items.filter((i) => i.kind === "meter")).toHaveLength(1);
  });

  it("once nothing blocks, says to apply; --apply hands the subscription over; a bare rerun continues", async () => {
    await stripe.customers.update(blockedCustomer, { email: "no-email@example.com" });
    const clean = await till(["import", "stripe"], cli);
    expect(clean.exitCode, clean.stderr).toBe(0);
    expect(clean.stderr).toContain("Nothing blocks. Import: till import stripe --apply");

    const applied = await till(["import", "stripe", "--apply", "--json"], cli);
    expect(applied.exitCode, applied.stderr).toBe(0);
    const run = parseJson(applied.stdout) as RunWithItems;
    expect(run).toMatchObject({ status: "succeeded", dry_run: false, blocked: 0 });
    const moved = run.items.find((i) => i.stripe_id === subscriptionId);
    expect(moved).toMatchObject({ action: "moved" });
    const atStripe = await stripe.subscriptions.retrieve(subscriptionId);
    expect(atStripe.cancel_at_period_end).toBe(true);
    expect(atStripe.metadata.till_subscription_id).toBe(moved?.till_id);

    const again = await till(["import", "stripe"], cli);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stderr).toContain(`continuing import ${run.id}`);

    const customers = await till(["customers", "list", "--query", "cus_", "--json"], cli);
    expect((parseJson(customers.stdout) as Array<{ external_id: string }>).map((c) => c.external_id).sort()).toEqual(
      [blockedCustomer, (await stripe.subscriptions.retrieve(subscriptionId)).customer].sort(),
    );

    const list = await till(["import", "list", "--json"], cli);
    expect((parseJson(list.stdout) as StripeImportWire[]).map((r) => r.dry_run)).toEqual([false, false, true, true, true]);
  });

  it("--undo asks first, then hands the subscription back to Stripe", async () => {
    const runs = parseJson((await till(["import", "list", "--json"], cli)).stdout) as StripeImportWire[];
    // the newest import, a rerun that found the subscription moved by the first: undoing it hands that back too
    const applied = runs.find((r) => !r.dry_run);
    expect(applied).toBeDefined();
    const asked = await till(["import", "stripe", "--undo", applied?.id ?? ""], cli);
    expect(asked.exitCode).toBe(2);
    expect(asked.stderr).toContain(`till import stripe --undo ${applied?.id} --yes`);
    const undone = await till(["import", "stripe", "--undo", applied?.id ?? "", "--yes"], cli);
    expect(undone.exitCode, undone.stderr).toBe(0);
    expect(undone.stderr).toContain("Undone:");
    expect(undone.stderr).toContain("Undone: 1 subscription(s) handed back to Stripe");
    const atStripe = await stripe.subscriptions.retrieve(subscriptionId);
    expect(atStripe.cancel_at_period_end).toBe(false);
  });

  it("show prints one run's plan and lists the actions asked with --show", async () => {
    const runs = parseJson((await till(["import", "list", "--json"], cli)).stdout) as StripeImportWire[];
    const shown = await till(["import", "show", runs[runs.length - 1]?.id ?? "", "--show", "create"], cli);
    expect(shown.stdout).toContain(subscriptionId);
  });

  it("Ctrl-C stops the waiting, not the run: exit 130, and `till import show` follows the run to its end", async () => {
    let release = () => {};
    const held = new Promise<void>((r) => (release = r));
    // Stripe's list of customers answers only when the test says: the run stays reading
    sandbox.peer.holdAnswer = async (req) => {
      if (req.path === "/v1/customers") await held;
    };
    try {
      const child = spawnTill(["import", "stripe", "--dry-run"], cli);
      let said = "";
      await new Promise<void>((resolve) => child.stderr?.on("data", (d: Buffer) => (said += String(d)).includes("Reading Stripe") && resolve()));
      child.kill("SIGINT");
      const stopped = await child;
      expect(stopped.exitCode).toBe(130);
      const id = /till import show (\S+)/.exec(String(stopped.stderr))?.[1];
      expect(String(stopped.stderr)).toContain(`Stopped waiting: import ${id} goes on at the server`);
      release();
      const shown = await till(["import", "show", id ?? "", "--json"], cli);
      expect(shown.exitCode, shown.stderr).toBe(0);
      expect(parseJson(shown.stdout)).toMatchObject({ id, status: "planned", dry_run: true });
    } finally {
      release();
      sandbox.peer.holdAnswer = undefined;
    }
  });
});
