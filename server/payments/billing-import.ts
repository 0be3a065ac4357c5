// A billing business kept at the seller's processor (Stripe Billing), as the importer sees it, in no processor's
// words: the catalog, coupons and codes, customers and their saved payment method, and the subscriptions that
// still renew there. Every object keeps the processor's id (`id`), so a rerun finds what it imported before. The
// processor's side is server/payments/stripe/billing-import/; billing/stripe-import plans and applies.

/** An amount in minor units of `currency` (lower-case ISO 4217). */
export interface SourceMoney {
  amount: number;
  currency: string;
}

/** One tier of a tiered price: up to `upTo` units (null: the last tier), each at `unitAmount`, plus `flatAmount`. */
export interface SourceTier {
  upTo: number | null;
  /** Minor units per unit, a decimal string ("0.25"). */
  unitAmount: string;
  /** Minor units charged once when usage (or the quantity) reaches the tier. */
  flatAmount: number;
}

export interface SourceTiers {
  mode: "graduated" | "volume";
  tiers: SourceTier[];
}

/** What one currency of a price charges: per unit, or through tiers. */
export interface SourceAmount {
  /** Minor units per unit, a decimal string; null when tiered or customer-chosen. */
  unitAmount: string | null;
  tiers: SourceTiers | null;
}

export interface SourcePrice extends SourceAmount {
  id: string;
  productId: string;
  active: boolean;
  nickname: string | null;
  /** The price's own currency (lower-case); `currencyOptions` holds the others. */
  currency: string;
  type: "one_time" | "recurring";
  interval: "day" | "week" | "month" | "year" | null;
  intervalCount: number | null;
  /** licensed: a quantity bought up front (1, or seats); metered: usage of `meterId` billed in arrears. */
  usage: "licensed" | "metered";
  meterId: string | null;
  /** The customer chooses the amount (Stripe's custom_unit_amount); minor units, null where not set. */
  custom: { minimum: number | null; maximum: number | null; preset: number | null } | null;
  /** Other currencies the price charges in (lower-case code → its amount or tiers). */
  currencyOptions: Record<string, SourceAmount>;
  /** The quantity is divided before billing (Stripe's transform_quantity): till has no such price. */
  transformQuantity: boolean;
  taxBehavior: "inclusive" | "exclusive" | null;
  metadata: Record<string, string>;
}

export interface SourceProduct {
  id: string;
  name: string;
  description: string | null;
  active: boolean;
  /** The price the processor offers by default for the product; null when none. */
  defaultPriceId: string | null;
  metadata: Record<string, string>;
  /** Every price of the product, active or not (an old price may still be billed to a subscription). */
  prices: SourcePrice[];
}

/** A usage meter (Stripe's Billing Meter). */
export interface SourceMeter {
  id: string;
  name: string;
  /** The name usage events of this meter carry. */
  eventName: string;
  aggregation: "sum" | "count" | "last";
  /** The event's payload key holding the value (sum, last). */
  valueKey: string;
  /** The event's payload key holding the processor's customer id. */
  customerKey: string;
  active: boolean;
}

export interface SourceCoupon {
  id: string;
  name: string | null;
  /** Percent off (0–100, up to two decimals); null for an amount off. */
  percentOff: number | null;
  /** Amount off in its currency, and in other currencies (lower-case code → minor units). */
  amountOff: SourceMoney | null;
  amountOffOptions: Record<string, number>;
  duration: "once" | "forever" | "repeating";
  durationInMonths: number | null;
  maxRedemptions: number | null;
  timesRedeemed: number;
  redeemBy: Date | null;
  /** The products it applies to (null: all). */
  productIds: string[] | null;
  /** Whether it can still be redeemed. */
  valid: boolean;
  metadata: Record<string, string>;
}

export interface SourcePromotionCode {
  id: string;
  code: string;
  couponId: string;
  active: boolean;
  maxRedemptions: number | null;
  timesRedeemed: number;
  expiresAt: Date | null;
  /** Restrictions till has no equivalent for: the plan says the code cannot be imported as it is. */
  firstTimeOnly: boolean;
  minimumAmount: SourceMoney | null;
  /** Only this customer may redeem it. */
  customerId: string | null;
  metadata: Record<string, string>;
}

/** A saved payment method, by reference only: what can be shown of it, never a number. */
export interface SourcePaymentMethod {
  id: string;
  /** The processor's type (card, sepa_debit, us_bank_account, …). */
  type: string;
  /** A card's brand, else the bank's name or the type. */
  brand: string;
  last4: string;
  /** 0 for a method that does not expire (a bank account). */
  expMonth: number;
  expYear: number;
}

export interface SourceAddress {
  line1: string | null;
  line2: string | null;
  postalCode: string | null;
  city: string | null;
  state: string | null;
  /** ISO 3166-1 alpha-2, upper-case. */
  country: string | null;
}

export interface SourceCustomer {
  id: string;
  email: string | null;
  name: string | null;
  address: SourceAddress | null;
  /** The processor's tax id types (eu_vat, gb_vat, us_ein, …: the same words Polar's TaxIDFormat uses). */
  taxIds: Array<{ type: string; value: string }>;
  metadata: Record<string, string>;
  /** The method invoices are charged to by default; null when none. */
  defaultPaymentMethod: SourcePaymentMethod | null;
  /** When the processor's customer was made. */
  created: Date;
}

export interface SourceSubscriptionItem {
  id: string;
  priceId: string;
  /** Null for a metered price (no quantity). */
  quantity: number | null;
}

export interface SourceSubscription {
  id: string;
  customerId: string;
  /** The processor's status in its own words (active, trialing, past_due, canceled, unpaid, incomplete, paused, …). */
  status: string;
  /** automatic: charged to the saved method; send_invoice: the customer is sent an invoice to pay. */
  collection: "automatic" | "send_invoice";
  /** With send_invoice, in how many days each invoice is due; null otherwise. */
  daysUntilDue: number | null;
  items: SourceSubscriptionItem[];
  /** The coupons applied to the subscription as a whole (not to one item). */
  couponIds: string[];
  currency: string;
  currentPeriodStart: Date;
  currentPeriodEnd: Date;
  trialStart: Date | null;
  trialEnd: Date | null;
  cancelAtPeriodEnd: boolean;
  /** An end set at a date other than the period's end; null when none. */
  cancelAt: Date | null;
  /** Collection paused (Stripe's pause_collection). */
  paused: boolean;
  /** The subscription's own method (it wins over the customer's default); null when none. */
  defaultPaymentMethod: SourcePaymentMethod | null;
  metadata: Record<string, string>;
  /**
   * till's subscription this one was handed over to (the mark the hand-over leaves in its metadata); null while it
   * renews at the processor.
   */
  movedTo: string | null;
  created: Date;
}

/** Everything importable of the account, read in one pass. */
export interface SourceSnapshot {
  account: { id: string; livemode: boolean };
  products: SourceProduct[];
  meters: SourceMeter[];
  coupons: SourceCoupon[];
  promotionCodes: SourcePromotionCode[];
  customers: SourceCustomer[];
  /** The subscriptions in any status but ended ones (canceled, incomplete_expired): the plan says why each is left. */
  subscriptions: SourceSubscription[];
}

/** The processor refused or could not be reached; `retryable` when trying again later may succeed. */
export class BillingSourceError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
  }
}

/** The counters of the requests a source made (the bench's rate). */
export interface SourceRequests {
  /** Requests sent (retries included). */
  sent: number;
  /** Answered "too many requests" (retried after a wait). */
  throttled: number;
  /** The pace the source holds itself to (requests per second). */
  limit: number;
}

/** The organization's account at its processor, as the importer reads and hands subscriptions over. */
export interface BillingSource {
  /** `PaymentProcessor.id` of the account ("stripe"). */
  readonly processor: string;
  readonly requests: SourceRequests;
  /** Reads the whole importable account (lists of 100 with what they need expanded); `onPage` after each page. */
  read(onPage?: (kind: string, read: number) => void): Promise<SourceSnapshot>;
  /** One subscription as it is now; null when it no longer exists. */
  readSubscription(id: string): Promise<SourceSubscription | null>;
  /**
   * Makes the subscription end at the end of its current period, marked as moved to till's `tillSubscriptionId`
   * (idempotent: sent again, it answers the same). Answers the subscription as it is after. `known`: the subscription
   * as readSubscription just answered it, which is then not read again.
   */
  handOver(id: string, tillSubscriptionId: string, known?: SourceSubscription): Promise<SourceSubscription>;
  /** Undoes a hand-over: the subscription renews at the processor again, the mark removed. */
  handBack(id: string, tillSubscriptionId: string): Promise<SourceSubscription>;
}
