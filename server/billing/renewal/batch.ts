// A renewal batch of the schedule (server/jobs/schedules.ts): what its renewals read once for all of them
// (prepareBatch) and what its end does for all of them (finishBatch: invoice numbers, outbox events). The
// renewal itself is renewal.ts; the rows of its deferred renewals, writes.ts.
import type { Queryable } from "../../db/client.js";
import { enqueue, type OutboxEvent } from "../../db/outbox.js";
import { balancesOf, pendingProrationsOf } from "../balance/service.js";
import { meterCreditGrantsOf } from "../benefits/service.js";
import { addInterval } from "../subscriptions/period.js";
import { isMetered } from "../products/pricing.js";
import { loadCustomers } from "../customers/service.js";
import { loadDiscountBases } from "../discounts/service.js";
import type { DunningSettings } from "../settings/dunning.js";
import { numberPlannedOrders } from "../orders/service.js";
import { getOrganization } from "../organizations/service.js";
import type { OrganizationWire } from "../organizations/wire.js";
import { chargeableMethods, type PaymentMethodRow } from "../payments/service.js";
import { loadPrices, loadProducts, loadProductSummaries } from "../products/service.js";
import type { ProductSummaryWire } from "../products/wire.js";
import { creditsOf } from "../subscriptions/meter-credits.js";
import type { Embeds, RenewalDeps } from "./renewal.js";
import type { DeferredWrites } from "./writes.js";
import { meteredUsage, subscriptionMeters, type MeteredUsage, type UsagePeriod } from "../subscriptions/usage.js";
import type { SubscriptionMeterWire, SubscriptionRow } from "../subscriptions/wire.js";

/**
 * What a batch of claimed renewals (the renewal schedule, server/jobs/schedules.ts) reads once for all of them —
 * one query each instead of one per subscription — and what it defers to the batch's end: the orders' invoice
 * numbers (one statement, so the organization's counter is locked for milliseconds, not for the batch) and the
 * outbox events (one statement; they carry the numbers).
 */
export interface RenewalBatch {
  /** By subscription id (absent: read per renewal, which fails that renewal alone when a row is missing). */
  embeds: Map<string, Embeds>;
  organizations: Map<string, OrganizationWire>;
  /** By product id. */
  summaries: Map<string, ProductSummaryWire>;
  /** By subscription id: its metered prices' usage over the period ended. */
  usage: Map<string, MeteredUsage[]>;
  credits: Map<string, Map<string, number>>;
  prorations: Awaited<ReturnType<typeof pendingProrationsOf>>;
  creditGrants: Map<string, Awaited<ReturnType<typeof meterCreditGrantsOf>> extends Map<string, infer G> ? G : never>;
  /** By customer id: the method a charge uses (absent: none on file). */
  methods: Map<string, PaymentMethodRow>;
  /**
   * By subscription id: `Subscription.meters` over the period the renewal starts, as wireOf reads them after the
   * renewal (its credits are read before the new period's are set, there too); metered subscriptions only.
   */
  newMeters: Map<string, SubscriptionMeterWire[]>;
  /** `customerId:currency` → balance, for customers with any movement (absent: 0). */
  balances: Map<string, number>;
  /** Customers whose balance moved in this batch: their balance is read again, under the lock. */
  moved: Set<string>;
  /** By organization: its dunning settings, read by the first deferred renewal whose charge failed. */
  dunningSettings: Map<string, DunningSettings>;
}

/** What one renewal of a batch leaves for the batch's end (pushed only once its savepoint is released). */
export interface RenewalOutput {
  orders: Array<{ organizationId: string; id: string }>;
  events: OutboxEvent[];
  /** A deferred renewal's rows, written with the batch's (writes.ts); its grants' cycled events go in at `cycle.at`. */
  deferred?: DeferredWrites;
}

/** Reads what the claimed subscriptions' renewals need, one query per kind and organization. */
export async function prepareBatch(tx: Queryable, deps: RenewalDeps, subs: SubscriptionRow[]): Promise<RenewalBatch> {
  const batch: RenewalBatch = {
    embeds: new Map(),
    organizations: new Map(),
    summaries: new Map(),
    usage: new Map(),
    credits: new Map(),
    prorations: new Map(),
    creditGrants: new Map(),
    methods: new Map(),
    newMeters: new Map(),
    balances: new Map(),
    moved: new Set(),
    dunningSettings: new Map(),
  };
  const byOrg = new Map<string, SubscriptionRow[]>();
  for (const sub of subs) byOrg.set(sub.organizationId, [...(byOrg.get(sub.organizationId) ?? []), sub]);
  for (const [org, list] of byOrg) {
    const ids = list.map((s) => s.id);
    const customerIds = [...new Set(list.map((s) => s.customerId))];
    const productIds = [...new Set(list.map((s) => s.productId))];
    // sent together: pipelined on the transaction's connection
    const [customers, products, discounts, prices, organization, summaries, prorations, balances, creditGrants, credits, methods] = await Promise.all([
      loadCustomers(tx, org, { ids: customerIds, externalIds: [] }),
      loadProducts(tx, org, productIds, deps.baseURL),
      loadDiscountBases(tx, org, list.flatMap((s) => (s.discountId ? [s.discountId] : []))),
      loadPrices(tx, org, [...new Set(list.flatMap((s) => s.priceIds))]),
      getOrganization(tx, org),
      loadProductSummaries(tx, org, productIds),
      pendingProrationsOf(tx, org, ids),
      balancesOf(tx, org, customerIds),
      meterCreditGrantsOf(tx, org, ids),
      creditsOf(tx, org, ids),
      chargeableMethods(tx, deps.processor, org, customerIds),
    ]);
    batch.organizations.set(org, organization);
    for (const [id, summary] of summaries) batch.summaries.set(id, summary);
    for (const [k, v] of balances) batch.balances.set(k, v);
    for (const [k, v] of methods) batch.methods.set(k, v);
    const metered: Array<{ sub: SubscriptionRow; period: UsagePeriod }> = [];
    for (const sub of list) {
      const customer = customers.byId.get(sub.customerId);
      const product = products.get(sub.productId);
      batch.prorations.set(sub.id, prorations.get(sub.id) ?? []);
      batch.creditGrants.set(sub.id, creditGrants.get(sub.id) ?? []);
      batch.credits.set(sub.id, credits.get(sub.id) ?? new Map());
      if (!customer || !product) continue;
      const e: Embeds = {
        customer,
        product,
        discount: sub.discountId ? (discounts.get(sub.discountId) ?? null) : null,
        prices: sub.priceIds.flatMap((id) => prices.get(id) ?? []),
      };
      batch.embeds.set(sub.id, e);
      if (sub.status !== "trialing" && !sub.cancelAtPeriodEnd && e.prices.some(isMetered)) {
        metered.push({ sub, period: { customer, prices: e.prices, start: sub.currentPeriodStart, end: sub.currentPeriodEnd, subscriptionId: sub.id } });
      } else {
        batch.usage.set(sub.id, []);
      }
    }
    if (metered.length > 0) {
      // the period ended (billed) and the one the renewal starts (the webhook payloads' meters), together
      const next = metered.map(({ sub, period }) => ({
        row: { ...sub, status: "active", currentPeriodStart: sub.currentPeriodEnd, currentPeriodEnd: addInterval(sub.currentPeriodEnd, sub.recurringInterval, sub.recurringIntervalCount) },
        customer: period.customer,
        prices: period.prices,
      }));
      const [usage, meters] = await Promise.all([meteredUsage(tx, org, metered.map((m) => m.period)), subscriptionMeters(tx, org, next)]);
      metered.forEach((m, i) => {
        batch.usage.set(m.sub.id, usage[i] ?? []);
        batch.newMeters.set(m.sub.id, meters[i] ?? []);
      });
    }
  }
  return batch;
}

/**
 * The batch's end, in the claiming transaction: numbers its orders (per organization, in renewal order) and
 * records their events. The counter rows stay locked from here to the commit.
 */
export async function finishBatch(tx: Queryable, batch: RenewalBatch, outputs: RenewalOutput[]): Promise<void> {
  const byOrg = new Map<string, string[]>();
  for (const o of outputs.flatMap((out) => out.orders)) byOrg.set(o.organizationId, [...(byOrg.get(o.organizationId) ?? []), o.id]);
  for (const [org, ids] of byOrg) {
    const organization = batch.organizations.get(org) ?? (await getOrganization(tx, org));
    const numbered = await numberPlannedOrders(tx, org, ids, organization.slug);
    if (numbered !== ids.length) throw new Error(`renewals: ${numbered} of ${ids.length} orders of organization ${org} numbered`);
  }
  await enqueue(tx, outputs.flatMap((o) => o.events));
}

