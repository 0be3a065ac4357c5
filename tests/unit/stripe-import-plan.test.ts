// How a Stripe import's run reads (shared/stripe-import-plan.ts, used by `till import` and the web app's plan page),
// and the CLI's next step after each kind of settled run.
import { describe, expect, it } from "vitest";
import type { ImportCounts, StripeImportWire } from "../../shared/stripe-import.js";
import { actionsSeen, asideWords, countRows, kindTotal, progressOf, statusWords } from "../../shared/stripe-import-plan.js";
import { nextStep } from "../../cli/commands/import-plan.js";

const counts = (c: Partial<ImportCounts>): ImportCounts => ({ meter: {}, product: {}, price: {}, discount: {}, customer: {}, subscription: {}, ...c });

const run = (over: Partial<StripeImportWire>): StripeImportWire => ({
  id: "0b5c1d2e-0000-4000-8000-000000000001",
  object: "stripe_import",
  status: "planned",
  dry_run: true,
  account: { id: "acct_1", livemode: false },
  counts: counts({}),
  blocked: 0,
  read: {},
  requests: { sent: 0, throttled: 0, limit: 25 },
  error: null,
  created_at: "2026-11-29T03:00:00.000Z",
  finished_at: null,
  ...over,
});

describe("a run's plan in words", () => {
  const plan = counts({ product: { create: 2, skipped: 1 }, customer: { create: 1200, blocked: 3 }, subscription: { create: 40, waiting: 2 } });

  it("counts per kind, the actions that occur (in the wire's order) and the rows of kinds seen", () => {
    expect(kindTotal(plan, "customer")).toBe(1203);
    expect(actionsSeen(plan)).toEqual(["create", "blocked", "skipped", "waiting"]);
    expect(countRows(plan).map((r) => [r.kind, r.total, r.by.create])).toEqual([
      ["product", 3, 2],
      ["customer", 1203, 1200],
      ["subscription", 42, 40],
    ]);
    expect(asideWords(plan)).toBe("2 waiting, 1 skipped");
    expect(asideWords(counts({ product: { create: 1 } }))).toBeNull();
  });

  it("says what a running run does: what it read so far, the subscriptions moved of those to move", () => {
    expect(progressOf(run({ status: "reading", read: { subscriptions: 42, customers: 1200 } }))).toBe("Reading Stripe… 1,200 customers, 42 subscriptions");
    expect(progressOf(run({ status: "reading", read: { promotion_codes: 3 } }))).toBe("Reading Stripe… 3 promotion codes");
    expect(progressOf(run({ status: "reading" }))).toBe("Reading Stripe…");
    expect(progressOf(run({ status: "moving", dry_run: false, counts: counts({ subscription: { moved: 10, create: 30 } }) }))).toBe("Moving subscriptions… 10 of 40");
    expect(statusWords(run({ status: "failed", error: "the key was revoked" }))).toBe("failed: the key was revoked");
  });

  it("the next step: fix what blocks, import when nothing does, undo after an import", () => {
    expect(nextStep(run({ blocked: 3 }))).toContain("then plan again: till import stripe --dry-run");
    expect(nextStep(run({}))).toBe("Nothing blocks. Import: till import stripe --apply");
    const applied = nextStep(run({ status: "succeeded", dry_run: false, counts: counts({ subscription: { moved: 5, waiting: 1 } }) }));
    expect(applied).toContain("Imported.");
    expect(applied).toContain("1 subscription(s) wait until Stripe's invoice is settled");
    expect(applied).toContain("till import stripe --undo 0b5c1d2e-0000-4000-8000-000000000001");
  });
});
