// The recipes of `till trigger` (cli/commands/trigger.ts): for each payment webhook event, the /v1 calls that make
// it happen for real with the profile's credentials — a product, a checkout paid with the test card, a refund… —
// and what each recipe creates that --override can address.
import { failFor, request, v1, whoami, type Page, type V1Client } from "./client.js";
import { requireCredential, type Context } from "./context.js";
import { CliError } from "./errors.js";
import { PAYMENT_EVENT_TYPES, type PaymentEventType } from "../shared/webhook-events.js";
import { setPath, type Override, type OverrideNoun } from "./trigger-override.js";

/** The spec's 27 payment webhook events: each has a recipe. */
export const TRIGGER_EVENT_TYPES = PAYMENT_EVENT_TYPES;
export type TriggerEventType = PaymentEventType;

export const isTriggerType = (v: string): v is TriggerEventType => (TRIGGER_EVENT_TYPES as readonly string[]).includes(v);

const TEST_CARD = "4242 4242 4242 4242";

/** What one run made, by noun, and how each step reads on a terminal. */
export class Run {
  readonly created: Record<string, string> = {};
  readonly api: V1Client;

  constructor(
    readonly ctx: Context,
    readonly type: TriggerEventType,
    readonly overrides: Override[] = [],
  ) {
    this.api = v1(ctx);
  }

  /** The body of the request that creates `noun`, with the --override values for that noun set in it. */
  body<T extends Record<string, unknown>>(noun: OverrideNoun, body: T, prefix = ""): T {
    for (const o of this.overrides) if (o.noun === noun) setPath(body, [`${prefix}${o.path[0] ?? ""}`, ...o.path.slice(1)], o.value);
    return body;
  }

  /** "created product 3f0c…": one line on stdout per step (nothing under --json until the end). */
  step(verb: string, noun: string, id: string, extra = ""): void {
    this.created[noun] ??= id;
    if (!this.ctx.json) this.ctx.out.done(null, `${verb} ${noun} ${id}${extra}`);
  }
}

// ---- the objects recipes are made of ----------------------------------------------------------------

interface Created {
  id: string;
}

const tag = () => `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;

/**
 * The metadata key that marks what `till trigger` makes (benefits, products, customers; its checkouts, orders and
 * subscriptions carry it too): `till catalog pull` leaves such objects out, and `till sandbox reset` clears them.
 */
export const TRIGGER_METADATA_KEY = "till_trigger";
const mark = (run: Run) => ({ [TRIGGER_METADATA_KEY]: run.type });

async function benefit(run: Run): Promise<Created> {
  const b = await run.api.send<Created>(
    "POST",
    "/benefits/",
    run.body("benefit", { type: "custom", description: `till trigger ${run.type}`, properties: { note: "Made by `till trigger`." }, metadata: mark(run) }),
  );
  run.step("created", "benefit", b.id);
  return b;
}

/** A monthly product (so a purchase also makes a subscription), with the benefit when given. */
async function product(run: Run, benefitId?: string): Promise<Created> {
  const p = await run.api.send<Created>(
    "POST",
    "/products/",
    run.body("product", {
      name: `till trigger ${run.type}`,
      description: "Made by `till trigger` to cause a webhook event.",
      recurring_interval: "month",
      prices: [{ amount_type: "fixed", price_amount: 900, price_currency: "usd" }],
      metadata: mark(run),
    }),
  );
  run.step("created", "product", p.id);
  if (benefitId) {
    await run.api.send("POST", `/products/${p.id}/benefits`, { benefits: [benefitId] });
    run.step("attached", "benefit", benefitId, ` to product ${p.id}`);
  }
  return p;
}

async function checkout(run: Run, productId: string): Promise<Created & { client_secret: string }> {
  const c = await run.api.send<Created & { client_secret: string }>(
    "POST",
    "/checkouts/",
    run.body("checkout", { products: [productId], metadata: mark(run), customer_metadata: mark(run) }),
  );
  run.step("created", "checkout", c.id);
  return c;
}

/** The customer's side, as the checkout page does it: the test processor tokenizes the card, then confirm. */
async function pay(run: Run, c: Created & { client_secret: string }): Promise<void> {
  const base = `/v1/checkouts/client/${encodeURIComponent(c.client_secret)}`;
  const card = await request(run.ctx, "POST", `${base}/test-card`, {
    body: { number: TEST_CARD, exp_month: 12, exp_year: new Date().getUTCFullYear() + 2, cvc: "123" },
  });
  if (card.status !== 200) failFor(card, null, `POST ${base.replace(c.client_secret, "{client_secret}")}/test-card`);
  const token = (card.body as { confirmation_token_id: string }).confirmation_token_id;
  const confirmed = await request(run.ctx, "POST", `${base}/confirm`, {
    // the customer of a purchase is made by this confirmation: customer.<field> overrides its customer_<field>
    body: run.body(
      "customer",
      {
        customer_email: `till-trigger-${tag()}@example.com`,
        customer_name: "Till Trigger",
        customer_billing_address: { country: "FR" },
        confirmation_token_id: token,
      },
      "customer_",
    ),
  });
  if (confirmed.status !== 200) failFor(confirmed, null, `POST /v1/checkouts/client/{client_secret}/confirm`);
  run.step("paid", "checkout", c.id, ` with the test card ${TEST_CARD.slice(-4)}`);
}

interface Purchase {
  benefit: Created;
  product: Created;
  order: Created & { subscription_id: string | null; customer_id: string; net_amount: number; refundable_amount?: number };
}

/** A benefit, a monthly product granting it, a checkout paid with the test card: order, subscription, grant. */
async function purchase(run: Run): Promise<Purchase> {
  const b = await benefit(run);
  const p = await product(run, b.id);
  const c = await checkout(run, p.id);
  await pay(run, c);
  const orders = await run.api.get<Page<Purchase["order"]>>("/orders/", { checkout_id: c.id });
  const order = orders.items[0];
  if (!order) throw new CliError(`the checkout ${c.id} was paid but no order came of it`);
  run.step("created", "customer", order.customer_id);
  run.step("created", "order", order.id);
  if (order.subscription_id) run.step("created", "subscription", order.subscription_id);
  return { benefit: b, product: p, order };
}

function subscriptionOf(p: Purchase): string {
  if (!p.order.subscription_id) throw new CliError(`the order ${p.order.id} has no subscription`);
  return p.order.subscription_id;
}

async function customer(run: Run): Promise<Created> {
  const c = await run.api.send<Created>("POST", "/customers/", run.body("customer", { email: `till-trigger-${tag()}@example.com`, name: "Till Trigger", metadata: mark(run) }));
  run.step("created", "customer", c.id);
  return c;
}

// ---- the recipes ------------------------------------------------------------------------------------

async function refund(run: Run): Promise<void> {
  const p = await purchase(run);
  const r = await run.api.send<Created>(
    "POST",
    "/refunds/",
    run.body("refund", {
      order_id: p.order.id,
      reason: "customer_request",
      // all of it: the refundable amount is before tax (the tax is refunded in proportion)
      amount: p.order.refundable_amount ?? p.order.net_amount,
      comment: "till trigger",
    }),
  );
  run.step("created", "refund", r.id, ` of order ${p.order.id}`);
}

async function cancel(run: Run, andUncancel: boolean): Promise<void> {
  const id = subscriptionOf(await purchase(run));
  await run.api.send("PATCH", `/subscriptions/${id}`, { cancel_at_period_end: true });
  run.step("canceled", "subscription", id, " at the end of its period");
  if (andUncancel) {
    await run.api.send("PATCH", `/subscriptions/${id}`, { cancel_at_period_end: false });
    run.step("uncanceled", "subscription", id);
  }
}

async function revoke(run: Run): Promise<void> {
  const id = subscriptionOf(await purchase(run));
  await run.api.send("DELETE", `/subscriptions/${id}`);
  run.step("revoked", "subscription", id);
}

async function renew(run: Run): Promise<void> {
  const id = subscriptionOf(await purchase(run));
  // naming the period renews it once, whatever retries happen
  const { current_period_start } = await run.api.get<{ current_period_start: string }>(`/subscriptions/${id}`);
  await run.api.send("POST", `/subscriptions/${id}/renew`, { current_period_start });
  run.step("renewed", "subscription", id);
}

interface WireGrant {
  id: string;
  modified_at: string | null;
}

/** A granted benefit whose properties change: the server updates its grants. */
async function updateGrantedBenefit(run: Run): Promise<void> {
  const p = await purchase(run);
  const grantsOf = async () => (await run.api.get<Page<WireGrant>>(`/benefits/${p.benefit.id}/grants`, { limit: 100 })).items;
  const before = await grantsOf();
  await run.api.send("PATCH", `/benefits/${p.benefit.id}`, { type: "custom", properties: { note: `Changed by \`till trigger\` ${tag()}.` } });
  run.step("updated", "benefit", p.benefit.id);
  // a server that does not update grants when their benefit changes leaves them as they were: say so
  const after = await grantsOf();
  const changed = after.filter((g) => g.modified_at !== null && g.modified_at !== before.find((b) => b.id === g.id)?.modified_at);
  if (changed.length === 0) {
    throw new CliError(`${run.type}: this server does not update grants when their benefit changes yet (no benefit_grant.updated was sent)`, {
      hint: "update the till server, or pick another type from `till trigger --list`",
    });
  }
  for (const g of changed) run.step("updated", "benefit_grant", g.id);
}

export const RECIPES: Record<TriggerEventType, (run: Run) => Promise<unknown>> = {
  "benefit.created": benefit,
  "benefit.updated": async (run) => {
    const b = await benefit(run);
    await run.api.send("PATCH", `/benefits/${b.id}`, { type: "custom", description: `till trigger ${run.type} (updated)` });
    run.step("updated", "benefit", b.id);
  },
  "benefit_grant.created": purchase,
  "benefit_grant.updated": updateGrantedBenefit,
  "benefit_grant.revoked": revoke,
  "benefit_grant.cycled": renew,
  "checkout.created": async (run) => checkout(run, (await product(run)).id),
  "checkout.updated": async (run) => {
    const c = await checkout(run, (await product(run)).id);
    await run.api.send("PATCH", `/checkouts/${c.id}`, { metadata: { till_trigger: run.type, updated: "yes" } });
    run.step("updated", "checkout", c.id);
  },
  "order.created": purchase,
  "order.updated": refund,
  "order.paid": purchase,
  "order.refunded": refund,
  "organization.updated": async (run) => {
    const me = await whoami(run.ctx, requireCredential(run.ctx));
    if (!me.organization_id) throw new CliError("no active organization: run `till orgs switch <org>` first");
    const org = await run.api.get<{ id: string; name: string }>(`/organizations/${me.organization_id}`);
    // its own name again: the organization is saved (and the event sent) with nothing changed
    await run.api.send("PATCH", `/organizations/${org.id}`, { name: org.name });
    run.step("updated", "organization", org.id, " (saved unchanged)");
  },
  "product.created": (run) => product(run),
  "product.updated": async (run) => {
    const p = await product(run);
    await run.api.send("PATCH", `/products/${p.id}`, { description: "Updated by `till trigger product.updated`." });
    run.step("updated", "product", p.id);
  },
  "refund.created": refund,
  "refund.updated": refund,
  "subscription.created": purchase,
  "subscription.active": purchase,
  "subscription.updated": (run) => cancel(run, false),
  "subscription.canceled": (run) => cancel(run, false),
  "subscription.uncanceled": (run) => cancel(run, true),
  "subscription.revoked": revoke,
  "customer.created": customer,
  "customer.updated": async (run) => {
    const c = await customer(run);
    await run.api.send("PATCH", `/customers/${c.id}`, { name: "Till Trigger (updated)" });
    run.step("updated", "customer", c.id);
  },
  "customer.deleted": async (run) => {
    const c = await customer(run);
    await run.api.send("DELETE", `/customers/${c.id}`);
    run.step("deleted", "customer", c.id);
  },
  "customer.state_changed": purchase,
};

/** What each recipe does, and the objects it creates that --override can address. */
export interface RecipeInfo {
  does: string;
  creates: OverrideNoun[];
}

const PURCHASE: RecipeInfo = {
  does: "a test-card purchase of a $9.00/month product with a benefit (customer, order, subscription, grant)",
  creates: ["benefit", "product", "checkout", "customer"],
};
const then = (base: RecipeInfo, what: string, creates: OverrideNoun[] = []): RecipeInfo => ({ does: `${base.does}, then ${what}`, creates: [...base.creates, ...creates] });
const BENEFIT: RecipeInfo = { does: "a custom benefit", creates: ["benefit"] };
const PRODUCT: RecipeInfo = { does: "a $9.00/month product", creates: ["product"] };
const CHECKOUT: RecipeInfo = { does: "a product and an open checkout for it", creates: ["product", "checkout"] };
const CUSTOMER: RecipeInfo = { does: "a customer", creates: ["customer"] };
const REFUND = then(PURCHASE, "refunds the order in full", ["refund"]);

export const RECIPE_INFO: Record<TriggerEventType, RecipeInfo> = {
  "benefit.created": BENEFIT,
  "benefit.updated": then(BENEFIT, "changes its description"),
  "benefit_grant.created": PURCHASE,
  "benefit_grant.updated": then(PURCHASE, "changes the benefit's properties"),
  "benefit_grant.revoked": then(PURCHASE, "revokes the subscription"),
  "benefit_grant.cycled": then(PURCHASE, "renews the subscription"),
  "checkout.created": CHECKOUT,
  "checkout.updated": { ...CHECKOUT, does: `${CHECKOUT.does}, then changes the checkout's metadata` },
  "order.created": PURCHASE,
  "order.updated": REFUND,
  "order.paid": PURCHASE,
  "order.refunded": REFUND,
  "organization.updated": { does: "saves the active organization unchanged", creates: [] },
  "product.created": PRODUCT,
  "product.updated": then(PRODUCT, "changes its description"),
  "refund.created": REFUND,
  "refund.updated": REFUND,
  "subscription.created": PURCHASE,
  "subscription.active": PURCHASE,
  "subscription.updated": then(PURCHASE, "cancels the subscription at the period's end"),
  "subscription.canceled": then(PURCHASE, "cancels the subscription at the period's end"),
  "subscription.uncanceled": then(PURCHASE, "cancels the subscription, then uncancels it"),
  "subscription.revoked": then(PURCHASE, "revokes the subscription"),
  "customer.created": CUSTOMER,
  "customer.updated": then(CUSTOMER, "renames them"),
  "customer.deleted": then(CUSTOMER, "deletes them"),
  "customer.state_changed": PURCHASE,
};
