// SQL of the customer emails: rows made from outbox events, claimed by the worker with a lease (FOR UPDATE
// SKIP LOCKED), and their outcome recorded by the lease holder only.
import { and, asc, eq, inArray, isNull, lt, lte, or, sql } from "drizzle-orm";
import type { Queryable } from "../../db/client.js";
import { accountOf, DELIVERED_BENEFIT_TYPES } from "../../../shared/kinds.js";
import { reverseChargeTax } from "../../../shared/reverse-charge.js";
import { resolveLocale, type AnyLocale } from "../../../shared/i18n/locales.js";
import type { UsageLineFacts } from "../../../shared/tiers.js";
import { benefit, billingOrganization, checkout, customer, customerEmail, order, orderItem, organization, productBenefit, type ProrationFacts, type WalletCredit } from "../../db/schema/index.js";

export type CustomerEmailRow = typeof customerEmail.$inferSelect;

export interface Sender {
  name: string;
  slug: string;
  logo: string | null;
}

export type ClaimedEmail = CustomerEmailRow & { sender: Sender };

/** Each organization's stored email settings (missing keys take the defaults). */
export async function emailSettingsOf(tx: Queryable, organizationIds: string[]): Promise<Map<string, Record<string, boolean>>> {
  if (organizationIds.length === 0) return new Map();
  const rows = await tx
    .select({ id: billingOrganization.organizationId, settings: billingOrganization.customerEmailSettings })
    .from(billingOrganization)
    .where(inArray(billingOrganization.organizationId, organizationIds));
  return new Map(rows.map((r) => [r.id, r.settings ?? {}]));
}

/** Who an email is written for, to resolve its language. */
export interface LocaleSubject {
  organizationId: string;
  /** The customer the email is about (their stored locale), when known. */
  customerId?: string | null;
  /** The recipient, to find the customer by email when no id is known. */
  recipient?: string | null;
  /** The checkout the email's order came from (its `locale` comes first). */
  checkoutId?: string | null;
}

const uuid = (v: string | null | undefined): v is string => typeof v === "string" && /^[0-9a-f-]{36}$/i.test(v);

/**
 * The language of each email: the checkout's `locale`, else the customer's stored locale, else the
 * organization's default locale (`details.default_locale`), else English. Read once, when the email is recorded.
 */
export async function localesOf(tx: Queryable, subjects: LocaleSubject[]): Promise<AnyLocale[]> {
  if (subjects.length === 0) return [];
  const customerIds = [...new Set(subjects.map((s) => s.customerId).filter(uuid))];
  const checkoutIds = [...new Set(subjects.map((s) => s.checkoutId).filter(uuid))];
  const byEmail = subjects.filter((s) => !uuid(s.customerId) && s.recipient).map((s) => s.recipient!.toLowerCase());
  const [customers, checkouts, orgs, emailed] = await Promise.all([
    customerIds.length ? tx.select({ id: customer.id, locale: customer.locale }).from(customer).where(inArray(customer.id, customerIds)) : [],
    checkoutIds.length ? tx.select({ id: checkout.id, locale: checkout.locale }).from(checkout).where(inArray(checkout.id, checkoutIds)) : [],
    tx
      .select({ id: billingOrganization.organizationId, details: billingOrganization.details })
      .from(billingOrganization)
      .where(inArray(billingOrganization.organizationId, [...new Set(subjects.map((s) => s.organizationId))])),
    byEmail.length
      ? tx
          .select({ organizationId: customer.organizationId, email: customer.email, locale: customer.locale })
          .from(customer)
          .where(and(inArray(customer.email, [...new Set(byEmail)]), isNull(customer.deletedAt)))
      : [],
  ]);
  const customerLocale = new Map(customers.map((c) => [c.id, c.locale]));
  const checkoutLocale = new Map(checkouts.map((c) => [c.id, c.locale]));
  const orgLocale = new Map(orgs.map((o) => [o.id, typeof o.details?.default_locale === "string" ? o.details.default_locale : null]));
  return subjects.map((s) =>
    resolveLocale({
      checkout: s.checkoutId ? checkoutLocale.get(s.checkoutId) : null,
      customer: uuid(s.customerId)
        ? customerLocale.get(s.customerId)
        : emailed.find((c) => c.organizationId === s.organizationId && c.email === s.recipient?.toLowerCase())?.locale,
      organization: orgLocale.get(s.organizationId),
    }),
  );
}

/** Inserts emails; one that exists already (same event, type and recipient) is left as it is. */
export async function insertEmails(tx: Queryable, rows: Array<typeof customerEmail.$inferInsert>): Promise<number> {
  if (rows.length === 0) return 0;
  const done = await tx.insert(customerEmail).values(rows).onConflictDoNothing().returning({ id: customerEmail.id });
  return done.length;
}

const leaseUntil = (leaseMs: number) => sql`now() + make_interval(secs => ${leaseMs / 1000})`;

/** Leases up to `limit` due emails to `token`, with their sender (the organization). */
export async function claimDue(db: Queryable, limit: number, leaseMs: number, token: string): Promise<ClaimedEmail[]> {
  const due = db
    .select({ id: customerEmail.id })
    .from(customerEmail)
    .where(
      and(
        isNull(customerEmail.sentAt),
        isNull(customerEmail.failedAt),
        lte(customerEmail.nextAttemptAt, sql`now()`),
        or(isNull(customerEmail.lockedUntil), lt(customerEmail.lockedUntil, sql`now()`)),
      ),
    )
    .orderBy(asc(customerEmail.nextAttemptAt))
    .limit(limit)
    .for("update", { skipLocked: true });
  const claimed = await db
    .update(customerEmail)
    .set({ lockedUntil: leaseUntil(leaseMs), lockedBy: token })
    .where(inArray(customerEmail.id, due))
    .returning();
  if (claimed.length === 0) return [];
  const senders = await db
    .select({ id: organization.id, name: organization.name, slug: organization.slug, logo: organization.logo })
    .from(organization)
    .where(inArray(organization.id, [...new Set(claimed.map((c) => c.organizationId))]));
  const byId = new Map(senders.map((s) => [s.id, s]));
  const [accounts, reverseCharged, lineFacts, credits] = await Promise.all([
    accountsNeeded(db, claimed),
    reverseChargedOrders(db, claimed),
    lineFactsOf(db, claimed),
    creditsOffered(db, claimed),
  ]);
  return claimed.flatMap((c) => {
    const s = byId.get(c.organizationId);
    const connect = accounts.get(c.id);
    const label = reverseCharged.get(c.id);
    const items = withLineFacts(c.data.items, lineFacts);
    const meterCredits = credits.get(c.id);
    const data = {
      ...c.data,
      ...(connect ? { connect_accounts: connect } : {}),
      ...(label ? { reverse_charge: label } : {}),
      ...(items ? { items } : {}),
      ...(meterCredits ? { meter_credits: meterCredits } : {}),
    };
    return s ? [{ ...c, data, sender: { name: s.name, slug: s.slug, logo: s.logo } }] : [];
  });
}

const CONFIRMATIONS = new Set(["order_confirmation", "subscription_confirmation"]);

/**
 * The accounts a confirmation's product needs connected (its github_repository / discord benefits), by email id:
 * the message invites the customer to connect them in the portal.
 */
async function accountsNeeded(db: Queryable, emails: CustomerEmailRow[]): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  const wanted = emails.filter((e) => CONFIRMATIONS.has(e.type) && typeof e.data.product_id === "string");
  if (wanted.length === 0) return out;
  const rows = await db
    .select({ productId: productBenefit.productId, type: benefit.type })
    .from(productBenefit)
    .innerJoin(benefit, eq(benefit.id, productBenefit.benefitId))
    .where(and(inArray(productBenefit.productId, [...new Set(wanted.map((e) => e.data.product_id as string))]), inArray(benefit.type, [...DELIVERED_BENEFIT_TYPES]), eq(benefit.isDeleted, false)));
  for (const e of wanted) {
    const platforms = [...new Set(rows.filter((r) => r.productId === e.data.product_id).map((r) => accountOf(r.type)!))].sort();
    if (platforms.length > 0) out.set(e.id, platforms);
  }
  return out;
}

type CreditTerms = { units: number | null; schedule: "period" | "monthly" | "once"; rollover: boolean; pool: boolean };

/** The meter credits a confirmation's product gives (its meter_credit benefits' terms), by email id. */
async function creditsOffered(db: Queryable, emails: CustomerEmailRow[]): Promise<Map<string, CreditTerms[]>> {
  const out = new Map<string, CreditTerms[]>();
  const wanted = emails.filter((e) => CONFIRMATIONS.has(e.type) && typeof e.data.product_id === "string");
  if (wanted.length === 0) return out;
  const rows = await db
    .select({ productId: productBenefit.productId, properties: benefit.properties })
    .from(productBenefit)
    .innerJoin(benefit, eq(benefit.id, productBenefit.benefitId))
    .where(and(inArray(productBenefit.productId, [...new Set(wanted.map((e) => e.data.product_id as string))]), eq(benefit.type, "meter_credit"), eq(benefit.isDeleted, false)));
  for (const e of wanted) {
    const terms = rows
      .filter((r) => r.productId === e.data.product_id)
      .map(({ properties: p }): CreditTerms => ({
        units: typeof p.per_amount === "number" ? null : typeof p.units === "number" ? Math.trunc(p.units) : 0,
        schedule: p.schedule === "once" || p.schedule === "monthly" ? p.schedule : "period",
        rollover: p.rollover === true,
        pool: p.pool === "subscription",
      }));
    if (terms.length > 0) out.set(e.id, terms);
  }
  return out;
}

/**
 * The tax not charged ("vat", "gst") of each email whose order was reverse charged (its stored tax note), by
 * email id: the receipt names it on the tax line in the email's language, as the checkout page and the invoice do.
 */
async function reverseChargedOrders(db: Queryable, emails: CustomerEmailRow[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const orderEmails = emails.filter((e) => typeof e.data.invoice_number === "string" && typeof e.data.id === "string");
  if (orderEmails.length === 0) return out;
  const rows = await db
    .select({ id: order.id, organizationId: order.organizationId, address: order.billingAddress })
    .from(order)
    .where(and(inArray(order.id, [...new Set(orderEmails.map((e) => e.data.id as string))]), sql`${order.taxNote} IS NOT NULL`));
  for (const e of orderEmails) {
    const row = rows.find((r) => r.id === e.data.id && r.organizationId === e.organizationId);
    if (row) out.set(e.id, reverseChargeTax(row.address?.country));
  }
  return out;
}

/** What an order line carries besides its English label, as the receipt email's data names it. */
interface LineFactsData {
  usage?: UsageLineFacts;
  proration_facts?: ProrationFacts;
  wallet_credit?: WalletCredit;
}

/**
 * The facts of the order lines till wrote, of the orders the emails are about, by order item id: a metered line's
 * figures (since 0064), a proration line's (0066), a top-up's kind (0067). The receipt says such a line in the
 * email's language, as the invoice does, where the event's `label` is English.
 */
async function lineFactsOf(db: Queryable, emails: CustomerEmailRow[]): Promise<Map<string, LineFactsData>> {
  const orderEmails = emails.filter((e) => typeof e.data.invoice_number === "string" && typeof e.data.id === "string" && Array.isArray(e.data.items));
  if (orderEmails.length === 0) return new Map();
  const rows = await db
    .select({ id: orderItem.id, usage: orderItem.usage, proration: orderItem.prorationFacts, walletCredit: orderItem.walletCredit })
    .from(orderItem)
    .where(
      and(
        inArray(orderItem.orderId, [...new Set(orderEmails.map((e) => e.data.id as string))]),
        sql`(${orderItem.usage} IS NOT NULL OR ${orderItem.prorationFacts} IS NOT NULL OR ${orderItem.walletCredit} IS NOT NULL)`,
      ),
    );
  return new Map(
    rows.map((r) => [
      r.id,
      { ...(r.usage ? { usage: r.usage } : {}), ...(r.proration ? { proration_facts: r.proration } : {}), ...(r.walletCredit ? { wallet_credit: r.walletCredit } : {}) },
    ]),
  );
}

/** The event's order items, each line till wrote with its facts; undefined when none has any. */
function withLineFacts(items: unknown, facts: Map<string, LineFactsData>): unknown[] | undefined {
  if (!Array.isArray(items) || facts.size === 0) return undefined;
  const idOf = (i: unknown) => (i && typeof i === "object" && "id" in i && typeof i.id === "string" ? i.id : null);
  if (!items.some((i) => facts.has(idOf(i) ?? ""))) return undefined;
  return items.map((i: unknown) => {
    const f = facts.get(idOf(i) ?? "");
    return f && i && typeof i === "object" ? { ...i, ...f } : i;
  });
}

/** A credential an email carries (a seat invitation's token) is kept only while the email may still be sent. */
const withoutSecrets = sql`${customerEmail.data} - 'token'`;

/** The lease holder records the send. */
export async function markSent(db: Queryable, id: string, token: string): Promise<void> {
  await db
    .update(customerEmail)
    .set({ sentAt: sql`now()`, attempts: sql`${customerEmail.attempts} + 1`, lockedUntil: null, lockedBy: null, lastError: null, data: withoutSecrets })
    .where(and(eq(customerEmail.id, id), eq(customerEmail.lockedBy, token)));
}

/** The lease holder records a failed attempt: tried again after `retryInMs`, or given up when null. */
export async function markFailed(db: Queryable, id: string, token: string, error: string, retryInMs: number | null): Promise<void> {
  await db
    .update(customerEmail)
    .set({
      attempts: sql`${customerEmail.attempts} + 1`,
      lastError: error.slice(0, 1000),
      lockedUntil: null,
      lockedBy: null,
      ...(retryInMs === null ? { failedAt: sql`now()`, data: withoutSecrets } : { nextAttemptAt: leaseUntil(retryInMs) }),
    })
    .where(and(eq(customerEmail.id, id), eq(customerEmail.lockedBy, token)));
}

/** Gives leases back (a stopping worker). */
export async function release(db: Queryable, token: string, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await db.update(customerEmail).set({ lockedUntil: null, lockedBy: null }).where(and(inArray(customerEmail.id, ids), eq(customerEmail.lockedBy, token)));
}
