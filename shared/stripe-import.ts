// An import of the organization's Stripe Billing business (till's own routes under /v1/stripe/imports), as the
// server answers it and the CLI (`till import stripe`) and the web app's plan page read it.

/** What the import reads of Stripe, in the order the plan lists them. */
export const IMPORT_KINDS = ["meter", "product", "price", "discount", "customer", "subscription"] as const;
export type ImportKind = (typeof IMPORT_KINDS)[number];

/**
 * What the import does (or did) with one of Stripe's objects.
 * - create / update / unchanged: imported (a rerun updates what changed and leaves the rest);
 * - blocked: cannot be imported as it is (`reason` says why and what to do); a plan with one exits 1;
 * - skipped: left at Stripe on purpose (an ended subscription, an archived product nothing bills);
 * - waiting: a subscription that moves later (past due at Stripe: it moves once Stripe's invoice is settled);
 * - moved: a subscription till renews from the end of its Stripe period;
 * - handed_back: a subscription given back to Stripe (`--undo`).
 */
export const IMPORT_ACTIONS = ["create", "update", "unchanged", "blocked", "skipped", "waiting", "moved", "handed_back"] as const;
export type ImportAction = (typeof IMPORT_ACTIONS)[number];

export interface ImportItemWire {
  kind: ImportKind;
  /**
   * Stripe's id (prod_…, price_…, mtr_…, coupon id or promo_…, cus_…, sub_…), unique in the run: a product's carries
   * the interval till splits it by (`prod_…/month/1`), a price's its currency (`price_…/usd`).
   */
  stripe_id: string;
  /**
   * What it is called at Stripe (a product's name, a price's nickname or its product's name and interval, a customer's
   * email, a subscription's customer and plan: the names of the till products it bills).
   */
  label: string;
  action: ImportAction;
  /** What it becomes in till, in words ("product Pro (monthly), $10.00 a month"); null when blocked or skipped. */
  becomes: string | null;
  /** till's id of what it became; null until imported. */
  till_id: string | null;
  /** Why it is blocked, skipped or waiting, and what to do; null otherwise. */
  reason: string | null;
}

/**
 * queued → reading → planned (a dry run) or importing → moving (subscriptions being handed over one by one)
 * → succeeded; failed when Stripe could not be read (`error`); undone after `--undo`.
 */
export const IMPORT_STATUSES = ["queued", "reading", "planned", "importing", "moving", "succeeded", "failed", "undoing", "undone"] as const;
export type ImportStatus = (typeof IMPORT_STATUSES)[number];

export type ImportCounts = Record<ImportKind, Partial<Record<ImportAction, number>>>;

export interface StripeImportWire {
  id: string;
  object: "stripe_import";
  status: ImportStatus;
  dry_run: boolean;
  /** The Stripe account read, and whether it is live; null until read. */
  account: { id: string; livemode: boolean } | null;
  /** Per kind, how many of each action. */
  counts: ImportCounts;
  /** How many items block the import (the dry run exits 1 when any does). */
  blocked: number;
  /**
   * Objects read from Stripe so far, by Stripe's list (`customers`, `subscriptions`, `prices` …): how far the reading
   * is while the run is `reading`.
   */
  read: Record<string, number>;
  /** Requests made to Stripe, and the pace kept (requests per second). */
  requests: { sent: number; throttled: number; limit: number };
  /** Why the run failed (Stripe unreachable, keys revoked); null otherwise. */
  error: string | null;
  created_at: string;
  finished_at: string | null;
}

/** GET /v1/stripe/imports/{id}/items: a page of the plan (Polar's list shape). */
export interface ImportItemsPage {
  items: ImportItemWire[];
  pagination: { total_count: number; max_page: number };
}

/** Whether a run has reached a state it does not leave by itself (the CLI stops waiting). */
export const isSettled = (status: ImportStatus) => ["planned", "succeeded", "failed", "undone"].includes(status);
