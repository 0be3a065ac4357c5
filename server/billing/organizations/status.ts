// The organization's lifecycle (the product spec's states): created → onboarding_started (the seller began: legal
// details, business details or a Stripe account) → active (business details submitted and Stripe connected for
// real money), through under_review → active or denied when the instance requires a platform admin's review
// (TILL_ORG_REVIEW=required). The status is stored and moved in the transaction of the change that moves it
// (settleStatus), which records organization.updated; a sandbox twin is active from the start, and every
// organization answers active while the server runs with TILL_TEST_PAYMENTS=live (the test card pays them).
import type { Config } from "../../config.js";
import type { Queryable } from "../../db/client.js";
import { enqueue } from "../../db/outbox.js";
import { hasProcessorConnection } from "../../payments/index.js";
import * as repo from "./repository.js";
import { toOrganizationWire, type BillingOrganizationRow, type OrganizationWire } from "./wire.js";

export const ORGANIZATION_STATUSES = ["created", "onboarding_started", "under_review", "denied", "active"] as const;
export type OrganizationStatus = (typeof ORGANIZATION_STATUSES)[number];
export type ReviewStatus = "pending" | "approved" | "denied";

/** How the instance runs: every organization active (TILL_TEST_PAYMENTS=live), details reviewed (TILL_ORG_REVIEW). */
export interface StatusPolicy {
  testInLive: boolean;
  reviewRequired: boolean;
}

export const statusPolicy = (config: Pick<Config, "payments" | "organizations">): StatusPolicy => ({
  testInLive: config.payments.testInLive,
  reviewRequired: config.organizations.reviewRequired,
});

/** What the status follows from. */
export interface StatusFacts {
  current: OrganizationStatus;
  twin: boolean;
  /** Legal details (invoice_details) given. */
  legalDetails: boolean;
  detailsSubmitted: boolean;
  processorConnected: boolean;
  review: ReviewStatus | null;
  reviewReason: string | null;
}

const isStatus = (s: string | undefined): s is OrganizationStatus => (ORGANIZATION_STATUSES as readonly string[]).includes(s ?? "");
const isReview = (s: string | null | undefined): s is ReviewStatus => s === "pending" || s === "approved" || s === "denied";

export const storedStatus = (billing: BillingOrganizationRow | undefined): OrganizationStatus => (isStatus(billing?.status) ? billing.status : "created");

/** Whether the review lets the organization go live: none required, approved, or live before review was required. */
const reviewPassed = (f: StatusFacts, reviewRequired: boolean) => !reviewRequired || f.review === "approved" || (f.current === "active" && f.review === null);

/** The status the facts give (the stored one moves to it). */
export function lifecycleStatus(f: StatusFacts, reviewRequired: boolean): OrganizationStatus {
  if (f.twin) return "active";
  if (f.review === "denied") return "denied";
  if (f.review === "pending") return "under_review";
  if (f.detailsSubmitted && f.processorConnected && reviewPassed(f, reviewRequired)) return "active";
  // begun once is begun: clearing the legal details again does not make it new
  if (f.current !== "created" || f.legalDetails || f.detailsSubmitted || f.processorConnected) return "onboarding_started";
  return "created";
}

export type StepName = "business_details" | "payment_processor" | "review";

export interface Step {
  step: StepName;
  done: boolean;
  /** What the seller does (or waits for), in words. */
  text: string;
  /** The command that does it, when there is one. */
  command: string | null;
}

export const SUBMIT_COMMAND = 'till orgs submit --about "…" --product-description "…" --intended-use "…"';

/** The steps to live payments, in order; the review only where the instance requires one (or one was made). */
export function stepsOf(f: StatusFacts, policy: StatusPolicy): Step[] {
  const steps: Step[] = [
    {
      step: "business_details",
      done: f.detailsSubmitted && f.review !== "denied",
      text: f.review === "denied" ? "Change your business details and submit them again" : "Submit your business details (what you sell and to whom)",
      command: SUBMIT_COMMAND,
    },
    {
      step: "payment_processor", done: f.processorConnected, text: "Connect your Stripe account with its live keys",
      command: "till stripe connect --live --publishable-key pk_live_… --secret-key @-",
    },
  ];
  if (policy.reviewRequired || f.review !== null) {
    const text =
      f.review === "pending"
        ? "Wait for a platform admin to review your details"
        : f.review === "denied"
          ? `A platform admin denied your details: ${f.reviewReason ?? "no reason given"}`
          : f.review === "approved"
            ? "Your details were approved"
            : "A platform admin reviews your details once you submit them";
    steps.push({ step: "review", done: reviewPassed(f, policy.reviewRequired), text, command: null });
  }
  return steps;
}

/** The facts of an organization as stored (its billing row, whether it is a twin, its processor connection). */
export async function factsOf(db: Queryable, organizationId: string, billing: BillingOrganizationRow | undefined): Promise<StatusFacts> {
  const [twin, processorConnected] = await Promise.all([repo.liveOrganizationOf(db, organizationId), hasProcessorConnection(db, organizationId)]);
  const invoice = billing?.details?.invoice_details;
  return {
    current: storedStatus(billing),
    twin: twin !== null,
    legalDetails: invoice !== undefined && invoice !== null,
    detailsSubmitted: billing?.detailsSubmittedAt != null,
    processorConnected,
    review: isReview(billing?.reviewStatus) ? billing.reviewStatus : null,
    reviewReason: billing?.reviewReason ?? null,
  };
}

/**
 * Moves the stored status to the one its facts give, in the caller's transaction; answers the organization as
 * the policy shows it and whether its status moved. Does not record the event (see moveStatus).
 */
export async function settleStatus(tx: Queryable, organizationId: string, policy: StatusPolicy): Promise<{ wire: OrganizationWire; moved: boolean } | null> {
  const found = await repo.findOrganization(tx, organizationId);
  if (!found) return null;
  const facts = await factsOf(tx, organizationId, found.billing);
  const next = lifecycleStatus(facts, policy.reviewRequired);
  if (next === facts.current) return { wire: toOrganizationWire(found.org, found.billing, policy), moved: false };
  await repo.upsertBillingSettings(tx, organizationId, { status: next, modifiedAt: new Date() });
  const updated = await repo.findOrganization(tx, organizationId);
  if (!updated) return null;
  return { wire: toOrganizationWire(updated.org, updated.billing, policy), moved: true };
}

/**
 * settleStatus, recording organization.updated when the status moved (a Stripe account connected, a review decided).
 */
export async function moveStatus(tx: Queryable, organizationId: string, policy: StatusPolicy): Promise<OrganizationWire | null> {
  const settled = await settleStatus(tx, organizationId, policy);
  if (settled?.moved) await enqueue(tx, { type: "organization.updated", organizationId, data: { ...settled.wire } });
  return settled?.wire ?? null;
}

/** GET /v1/organizations/{id}/status (till's own): where the organization stands and the next step to live payments. */
export async function statusReport(db: Queryable, organizationId: string, policy: StatusPolicy) {
  const found = await repo.findOrganization(db, organizationId);
  if (!found) return null;
  const facts = await factsOf(db, organizationId, found.billing);
  const steps = facts.twin ? [] : stepsOf(facts, policy);
  const status: OrganizationStatus = policy.testInLive ? "active" : facts.current;
  return {
    organization_id: organizationId,
    status,
    /**
     * The lifecycle underneath: differs from status only while TILL_TEST_PAYMENTS=live makes every organization active.
     */
    lifecycle_status: facts.current,
    sandbox: facts.twin,
    test_payments: policy.testInLive,
    live_payments: status === "active",
    details_submitted_at: found.billing?.detailsSubmittedAt?.toISOString() ?? null,
    review: {
      required: policy.reviewRequired,
      status: facts.review,
      reason: facts.reviewReason,
      reviewed_at: found.billing?.reviewedAt?.toISOString() ?? null,
    },
    steps,
    next_step: facts.current === "active" ? null : (steps.find((s) => !s.done) ?? null),
  };
}
export type StatusReport = NonNullable<Awaited<ReturnType<typeof statusReport>>>;
