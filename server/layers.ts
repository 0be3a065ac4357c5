// The order of server/'s folders, bottom to top: a module may import (at runtime) only from a unit below its own,
// and only through that unit's doors. `tests/unit/folder-order.test.ts` folds the runtime import graph to these
// units and fails on any import that points up or sideways, on a door not declared here, and on a file or folder
// under server/ that no unit places; `docs/architecture.md`'s layer picture is written from this list
// (`scripts/architecture-layers.ts`). It lives at server/'s root because it orders all of server/, not billing
// alone; nothing imports it at runtime.
//
// A unit is a folder (every file under it) or a single file, named by its path under server/; two more are
// patterns: `billing/*.ts`, billing's own leaves (the files directly in billing/), and `billing/**/*routes.ts`, every
// route file of every domain (a file in a domain folder whose name ends in routes.ts belongs to it, not to its
// folder). The order is total: two units of one layer are still ordered, the lower one first. A layer only groups
// units for the picture.
//
// Doors: "all" for an open unit (the platform toolkits, whose every module is a leaf others may use, and the units at
// the top, which nothing but the start-up imports); a domain's doors are its
// service.ts, wire.ts, errors.ts (its declared errors) and jobs.ts (its loops and schedules) plus the named modules
// listed. Route files (`*routes.ts`, billing/index.ts) are the top billing unit: they may import any domain's doors.

/** A folder or file under server/ (or one of the two patterns) and its doors. */
export interface Unit {
  /** The folder or file, relative to server/ (`billing/orders`, `config.ts`). */
  readonly path: string;
  /** The modules (relative to the folder) other units may import; "all" for a toolkit. */
  readonly doors: "all" | readonly string[];
}

export interface Layer {
  readonly name: string;
  /** Bottom to top. */
  readonly units: readonly Unit[];
}

/** Billing's own leaves: errors, parsing, listing, the route contract, the caller's scope, the clock. */
export const BILLING_LEAVES = "billing/*.ts";
/** Every domain's route files: the routes may import any domain. */
export const ROUTES = "billing/**/*routes.ts";

/** A domain's usual doors. */
const DOMAIN = ["service.ts", "wire.ts", "errors.ts", "jobs.ts"] as const;
const domain = (path: string, ...more: string[]): Unit => ({ path: `billing/${path}`, doors: [...DOMAIN, ...more] });
const open = (path: string): Unit => ({ path, doors: "all" });

/** Every unit of server/, bottom to top. */
export const LAYERS: readonly Layer[] = [
  {
    name: "Platform",
    units: [
      open("layers.ts"),
      open("config.ts"),
      open("production-checks.ts"),
      open("seal.ts"),
      open("secret.ts"),
      open("i18n"),
      open("db"),
      open("metrics"),
      open("mail"),
      open("tasks"),
      open("payments"),
      open("http"),
    ],
  },
  {
    name: "Billing platform",
    units: [open(BILLING_LEAVES), open("billing/settings")],
  },
  {
    name: "Organizations",
    units: [
      domain("tax", "settings.ts", "compute.ts"),
      domain("balance"),
      domain("invoice-numbers"),
      domain("organizations", "status.ts", "sandbox.ts"),
      domain("customer-emails", "types.ts"),
      domain("processor-connections", "processor-errors.ts"),
    ],
  },
  {
    name: "Catalog",
    units: [
      domain("files", "storage.ts"),
      domain("custom-fields"),
      domain("customers", "input.ts"),
      domain("members"),
      domain("customer-sessions"),
      domain("events", "usage-events.ts"),
      domain("meters"),
      domain("license-keys", "issue.ts"),
      domain("benefits", "fulfil.ts", "features.ts", "meter-credit.ts", "meter-credit-benefits.ts"),
      domain("benefit-delivery"),
      domain("products", "pricing.ts", "input.ts", "writes.ts", "add-ons.ts"),
      domain("discounts", "input.ts", "amount.ts", "refusal.ts"),
    ],
  },
  {
    name: "Subscriptions and money",
    units: [
      domain("subscriptions", "period.ts", "change.ts", "proration.ts", "scheduled.ts", "load.ts", "usage.ts", "usage-line.ts",
        "meter-credits.ts", "monthly-credits.ts", "product-benefits.ts", "add-ons.ts", "invoice-terms.ts"),
      domain("payments", "methods.ts"),
      domain("orders"),
      domain("invoices"),
      domain("dunning", "late.ts", "mark-paid.ts", "invoices.ts", "transfer-cancel.ts"),
      domain("customer-seats"),
    ],
  },
  {
    name: "Purchases and renewal",
    units: [
      domain("checkouts", "input.ts", "create.ts", "confirm.ts", "payment-failed.ts", "expiry.ts"),
      domain("checkout-links"),
      domain("wallets", "late.ts", "credits.ts"),
      domain("renewal", "renewal.ts", "run.ts", "trial-reminders.ts", "proration.ts", "upcoming.ts", "monthly-usage.ts"),
    ],
  },
  {
    name: "Orchestrators",
    units: [
      domain("metrics", "fold.ts"),
      domain("subscription-changes", "lifecycle.ts", "preview.ts"),
      domain("usage-alerts", "check.ts", "coalesce.ts"),
      domain("entitlements", "reservations.ts", "facts.ts", "keys.ts", "snapshot.ts"),
      domain("customer-state", "state.ts", "meters.ts", "delete.ts"),
      domain("refunds"),
      domain("disputes"),
      domain("customer-portal"),
      domain("webhooks", "listen.ts", "inbound.ts", "address.ts", "sender.ts", "signing.ts"),
      domain("timeline"),
      domain("test-clock"),
      domain("processor-events"),
      domain("imports"),
    ],
  },
  {
    name: "Routes, auth and jobs",
    units: [
      open(ROUTES),
      open("billing/index.ts"),
      open("auth"),
      open("openapi"),
      open("jobs"),
      open("banner.ts"),
      open("process-guard.ts"),
      open("app.ts"),
      open("main.ts"),
    ],
  },
];
