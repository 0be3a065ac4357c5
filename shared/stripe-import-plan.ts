// How a Stripe import's run reads to a person, for the CLI (`till import stripe`) and the web app's plan page alike:
// the counts per kind and action as rows, what the run is doing while it runs, and the step that comes next.
import { IMPORT_ACTIONS, IMPORT_KINDS, type ImportAction, type ImportCounts, type ImportKind, type StripeImportWire } from "./stripe-import.js";

/** A kind in the plural, as a count reads ("1,200 customers"). */
export const KIND_PLURAL: Record<ImportKind, string> = {
  meter: "meters",
  product: "products",
  price: "prices",
  discount: "discounts",
  customer: "customers",
  subscription: "subscriptions",
};

/** An action as a column header or a sentence reads it. */
export const ACTION_WORDS: Record<ImportAction, string> = {
  create: "create",
  update: "update",
  unchanged: "unchanged",
  blocked: "blocked",
  skipped: "skipped",
  waiting: "waiting",
  moved: "moved",
  handed_back: "handed back",
};

const count = (n: number) => n.toLocaleString("en-US");

/** Stripe's lists as the run's `read` names them. */
const READ_LISTS = ["customers", "subscriptions", "products", "prices", "coupons", "promotion_codes", "meters"] as const;

/** How many of `kind` the run has seen, whatever their action. */
export function kindTotal(counts: ImportCounts, kind: ImportKind): number {
  return Object.values(counts[kind] ?? {}).reduce((a, b) => a + (b ?? 0), 0);
}

/** How many items have `action`, over all kinds. */
export function actionTotal(counts: ImportCounts, action: ImportAction): number {
  return IMPORT_KINDS.reduce((sum, kind) => sum + (counts[kind]?.[action] ?? 0), 0);
}

/** The actions that occur in the run at all, in IMPORT_ACTIONS' order: the count table's columns. */
export function actionsSeen(counts: ImportCounts): ImportAction[] {
  return IMPORT_ACTIONS.filter((a) => actionTotal(counts, a) > 0);
}

export interface CountRow {
  kind: ImportKind;
  total: number;
  /** Per action of `actionsSeen`, the count (0 when none). */
  by: Record<ImportAction, number>;
}

/** One row per kind the run has seen any of, in the plan's order. */
export function countRows(counts: ImportCounts): CountRow[] {
  return IMPORT_KINDS.filter((kind) => kindTotal(counts, kind) > 0).map((kind) => ({
    kind,
    total: kindTotal(counts, kind),
    by: Object.fromEntries(IMPORT_ACTIONS.map((a) => [a, counts[kind]?.[a] ?? 0])) as Record<ImportAction, number>,
  }));
}

/** The subscriptions a plan would move (or a moving run has still to move): those it creates or updates in till. */
export const subscriptionsToMove = (counts: ImportCounts): number => (counts.subscription?.create ?? 0) + (counts.subscription?.update ?? 0);

/**
 * What a run is doing, in a few words, for a spinner or a status line: "Reading Stripe… 1,200 customers".
 * Moving counts the subscriptions moved against those still planned to move (create or update).
 */
export function progressOf(run: StripeImportWire): string {
  const { counts } = run;
  switch (run.status) {
    case "queued":
      return "Waiting for the server to start the import…";
    case "reading": {
      // the lists Stripe is read by, in the order they matter most to a seller
      const read = READ_LISTS.filter((list) => (run.read[list] ?? 0) > 0).map((list) => `${count(run.read[list] ?? 0)} ${list.replace("_", " ")}`);
      return read.length > 0 ? `Reading Stripe… ${read.join(", ")}` : "Reading Stripe…";
    }
    case "importing":
      return "Importing into till…";
    case "moving": {
      const moved = counts.subscription?.moved ?? 0;
      return `Moving subscriptions… ${count(moved)} of ${count(moved + subscriptionsToMove(counts))}`;
    }
    case "undoing":
      return `Handing subscriptions back to Stripe… ${count(counts.subscription?.handed_back ?? 0)} handed back`;
    default:
      return statusWords(run);
  }
}

/** A settled run's outcome in words: "planned (dry run)", "succeeded", "failed: …". */
export function statusWords(run: StripeImportWire): string {
  if (run.status === "failed") return `failed: ${run.error ?? "no reason given"}`;
  if (run.status === "planned") return "planned (dry run: nothing was changed)";
  if (run.status === "succeeded") return "imported";
  if (run.status === "undone") return "undone (its subscriptions were handed back to Stripe)";
  return run.status;
}

/** Where the run read from: "acct_123 (test mode)". */
export function accountWords(run: StripeImportWire): string {
  if (!run.account) return "the connected Stripe account";
  return `${run.account.id} (${run.account.livemode ? "live mode" : "test mode"})`;
}

/** The "3 waiting, 12 skipped" line of the items not listed by default (of `actions`), or null when there are none. */
export function asideWords(counts: ImportCounts, actions: readonly ImportAction[] = ["waiting", "skipped"]): string | null {
  const parts = actions.map((a) => [a, actionTotal(counts, a)] as const).filter(([, n]) => n > 0);
  return parts.length === 0 ? null : parts.map(([a, n]) => `${count(n)} ${ACTION_WORDS[a]}`).join(", ");
}
