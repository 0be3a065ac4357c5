// The organization's lifecycle as a function of its facts (server/billing/organizations/status.ts): the cases the
// API tests do not walk through — an organization live before reviews were required, one that cleared its legal
// details again, a sandbox twin.
import { describe, expect, it } from "vitest";
import { lifecycleStatus, stepsOf, type StatusFacts } from "../../server/billing/organizations/status.js";

const facts = (f: Partial<StatusFacts>): StatusFacts => ({
  current: "created",
  twin: false,
  legalDetails: false,
  detailsSubmitted: false,
  processorConnected: false,
  review: null,
  reviewReason: null,
  ...f,
});

describe("lifecycleStatus", () => {
  it("moves created → onboarding_started → active without review", () => {
    expect(lifecycleStatus(facts({}), false)).toBe("created");
    expect(lifecycleStatus(facts({ legalDetails: true }), false)).toBe("onboarding_started");
    expect(lifecycleStatus(facts({ processorConnected: true }), false)).toBe("onboarding_started");
    expect(lifecycleStatus(facts({ detailsSubmitted: true, processorConnected: true }), false)).toBe("active");
  });

  it("never goes back to created once begun, and keeps a twin active", () => {
    expect(lifecycleStatus(facts({ current: "onboarding_started" }), false)).toBe("onboarding_started");
    expect(lifecycleStatus(facts({ twin: true }), true)).toBe("active");
  });

  it("needs an approval where review is required, except for an organization live before that", () => {
    const ready = { detailsSubmitted: true, processorConnected: true };
    expect(lifecycleStatus(facts({ ...ready, current: "onboarding_started" }), true)).toBe("onboarding_started");
    expect(lifecycleStatus(facts({ ...ready, review: "pending" }), true)).toBe("under_review");
    expect(lifecycleStatus(facts({ ...ready, review: "denied" }), true)).toBe("denied");
    expect(lifecycleStatus(facts({ ...ready, review: "approved" }), true)).toBe("active");
    expect(lifecycleStatus(facts({ ...ready, current: "active" }), true)).toBe("active");
    expect(lifecycleStatus(facts({ detailsSubmitted: true, review: "approved" }), true)).toBe("onboarding_started");
  });

  it("lists the review step only where one is required or was made, with a denial's reason", () => {
    expect(stepsOf(facts({}), { testInLive: false, reviewRequired: false }).map((s) => s.step)).toEqual(["business_details", "payment_processor"]);
    const denied = stepsOf(facts({ detailsSubmitted: true, review: "denied", reviewReason: "Say more." }), { testInLive: false, reviewRequired: true });
    expect(denied.map((s) => [s.step, s.done])).toEqual([["business_details", false], ["payment_processor", false], ["review", false]]);
    expect(denied[2]?.text).toContain("Say more.");
  });
});
